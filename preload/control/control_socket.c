/*
 * The control channel (CALLTRACE_CONTROL=1): `calltrace control PID CMD`
 * reaches a running process through a Unix socket
 *
 *     /tmp/calltrace-<uid>/<pid>.ctl      directory 0700, ours
 *
 * served by a thread of the tracer's own.  Only the same user (and root)
 * is admitted: the directory's mode keeps others from connecting, and
 * SO_PEERCRED is checked again on every connection.  One command a
 * connection, one line each way (docs/tracer.md):
 *
 *     on | off | snapshot | status | filter SPEC
 *     -> "ok ..." or "error ..."
 *
 * The program owns every descriptor number.  The listening socket is the
 * one descriptor the tracer keeps; before each use its identity (device
 * and inode) is checked, and if the program closed it or put its own file
 * under the number, the tracer leaves that number alone for good and binds
 * a new socket.  The thread blocks every signal, is detached, and ends by
 * itself once it is the process's last thread (a main that called
 * pthread_exit): it never keeps the program alive.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "preload/filters/filter.h"
#include "preload/patch/patch.h"
#include "preload/tracer.h"

#define CT_CONTROL_LINE 4096

static struct {
    char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
    int fd;                 /* listening socket, -1 if none               */
    uint64_t dev, ino;      /* what fd must still be                      */
    uint32_t pid;           /* the process that made it                   */
    int running;
} ctl = {.fd = -1};

int ct_control_path(char *dst, size_t cap, unsigned uid, unsigned pid)
{
    int n = snprintf(dst, cap, "/tmp/calltrace-%u/%u.ctl", uid, pid);
    return n < 0 || (size_t)n >= cap ? -1 : 0;
}

/* The directory exists, is a directory (not a link), is ours and 0700. */
static int private_dir(const char *dir)
{
    if (mkdir(dir, 0700) != 0 && errno != EEXIST)
        return -1;
    struct stat st;
    if (lstat(dir, &st) != 0)
        return -1;
    if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
        (st.st_mode & 077)) {
        errno = EPERM;
        return -1;
    }
    return 0;
}

static int still_ours(int fd, uint64_t dev, uint64_t ino)
{
    struct stat st;
    return fd >= 0 && fstat(fd, &st) == 0 && (uint64_t)st.st_dev == dev &&
           (uint64_t)st.st_ino == ino;
}

/* The socket under a number near the descriptor limit, so the numbers
 * the program's own open() returns stay what they would be untraced. */
static int move_high(int fd)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur < 256 ||
        rl.rlim_cur == RLIM_INFINITY)
        return fd;
    int hi = fcntl(fd, F_DUPFD_CLOEXEC, (int)(rl.rlim_cur - 64));
    if (hi < 0)
        return fd;
    close(fd);
    return hi;
}

/* Binds the socket; 0 or -1 with errno. */
static int bind_socket(void)
{
    ctl.fd = -1;
    char dir[64];
    snprintf(dir, sizeof dir, "/tmp/calltrace-%u", (unsigned)geteuid());
    if (private_dir(dir) < 0)
        return -1;
    if (ct_control_path(ctl.path, sizeof ctl.path, (unsigned)geteuid(),
                        ct_proc.pid) < 0) {
        errno = ENAMETOOLONG;
        return -1;
    }
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    fd = move_high(fd);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    memcpy(a.sun_path, ctl.path, strlen(ctl.path) + 1);
    unlink(ctl.path);  /* a dead process's, with our pid */
    struct stat st;
    if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0 ||
        listen(fd, 4) != 0 || fstat(fd, &st) != 0) {
        int err = errno;
        close(fd);
        errno = err;
        return -1;
    }
    ctl.dev = (uint64_t)st.st_dev;
    ctl.ino = (uint64_t)st.st_ino;
    ctl.fd = fd;
    return 0;
}

static void reply(int fd, uint64_t dev, uint64_t ino, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void reply(int fd, uint64_t dev, uint64_t ino, const char *fmt, ...)
{
    char line[CT_PATH_MAX + 4096 + 256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line - 1, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n > sizeof line - 2)
        n = (int)sizeof line - 2;
    line[n++] = '\n';
    if (still_ours(fd, dev, ino))
        (void)!send(fd, line, (size_t)n, MSG_NOSIGNAL);
}

static void set_enabled(int on)
{
    __atomic_store_n(&ct_enabled, on, __ATOMIC_RELAXED);
    ct_global_update();
}

static void run_command(int fd, uint64_t dev, uint64_t ino, char *cmd)
{
    char buf[CT_PATH_MAX + 4096 + 64];
    if (strcmp(cmd, "on") == 0 || strcmp(cmd, "off") == 0) {
        set_enabled(cmd[1] == 'n');
        reply(fd, dev, ino, "ok tracing %s", cmd);
    } else if (strcmp(cmd, "snapshot") == 0) {
        if (ct_flight_snapshot(buf, sizeof buf) == 0)
            reply(fd, dev, ino, "ok snapshot %s", buf);
        else
            reply(fd, dev, ino, "error snapshot: %s", strerror(errno));
    } else if (strcmp(cmd, "status") == 0) {
        int on = !(__atomic_load_n(&ct_global_word, __ATOMIC_RELAXED) & 1);
        reply(fd, dev, ino,
              "ok pid=%u tracing=%s flight=%s threads=%u lost=%llu "
              "trace=%s", ct_proc.pid, on ? "on" : "off",
              ct_flight_slots ? "on" : "off",
              __atomic_load_n(&ct_proc.threads, __ATOMIC_RELAXED),
              (unsigned long long)__atomic_load_n(&ct_proc.lost,
                                                  __ATOMIC_RELAXED),
              ct_proc.reopen);
    } else if (strncmp(cmd, "filter", 6) == 0 &&
               (cmd[6] == ' ' || cmd[6] == '\0')) {
        const char *spec = cmd[6] ? cmd + 7 : "";
        char err[256] = "";
        if (ct_filter_reload(spec, err, sizeof err) == 0)
            reply(fd, dev, ino, "ok filter %s", spec);
        else
            reply(fd, dev, ino, "error filter: %s", err);
    } else if (strncmp(cmd, "patch ", 6) == 0) {
        char msg[512];
        if (ct_patch_apply(cmd + 6, msg, sizeof msg) == 0)
            reply(fd, dev, ino, "ok patch %s", msg);
        else
            reply(fd, dev, ino, "error patch: %s", msg);
    } else {
        reply(fd, dev, ino, "error unknown command '%.64s'; expected on, off, "
              "snapshot, status, filter SPEC or patch SPEC", cmd);
    }
}

/* One connection: credentials, one line, one answer. */
static void serve(int fd)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return;
    uint64_t dev = (uint64_t)st.st_dev, ino = (uint64_t)st.st_ino;
    struct timeval tv = {.tv_sec = 2};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    char line[CT_CONTROL_LINE + 1];
    size_t have = 0;
    char *nl = NULL;
    while (have < CT_CONTROL_LINE && !nl) {
        ssize_t n = recv(fd, line + have, CT_CONTROL_LINE - have, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        line[have + (size_t)n] = '\0';
        nl = memchr(line + have, '\n', (size_t)n);
        have += (size_t)n;
    }
    /* Checked after the line is read, so the client, still sending,
     * reads the refusal instead of a reset connection. */
    struct ucred cr;
    socklen_t len = sizeof cr;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) != 0 ||
        (cr.uid != geteuid() && cr.uid != 0)) {
        reply(fd, dev, ino, "error permission denied: uid %u does not own "
              "process %u", (unsigned)cr.uid, ct_proc.pid);
        return;
    }
    if (!nl) {
        reply(fd, dev, ino, "error malformed command: expected one line "
              "shorter than %u bytes", CT_CONTROL_LINE);
        return;
    }
    if (memchr(line, '\0', (size_t)(nl - line))) {
        reply(fd, dev, ino, "error malformed command: a NUL byte");
        return;
    }
    *nl = '\0';
    if (nl > line && nl[-1] == '\r')
        nl[-1] = '\0';
    run_command(fd, dev, ino, line);
}

/* The process's threads, from /proc/self/stat's 20th field. */
static long thread_count(void)
{
    int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    char buf[1024];
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    char *p = strrchr(buf, ')');
    for (int field = 2; p && field < 20; field++)
        p = strchr(p + 1, ' ');
    return p ? strtol(p + 1, NULL, 10) : -1;
}

static void *control_thread(void *arg)
{
    (void)arg;
    uint32_t pid = ct_proc.pid;
    while (__atomic_load_n(&ctl.running, __ATOMIC_ACQUIRE) &&
           ctl.pid == pid) {
        if (!still_ours(ctl.fd, ctl.dev, ctl.ino)) {
            /* The program took the number: it is theirs now. */
            if (bind_socket() < 0) {
                ctl.fd = -1;
                sleep(1);
                continue;
            }
        }
        struct pollfd p = {.fd = ctl.fd, .events = POLLIN};
        int r = poll(&p, 1, 1000);
        if (r == 0) {
            if (thread_count() == 1)
                break;  /* the program is gone but for us */
            continue;
        }
        if (r < 0 || !(p.revents & POLLIN) ||
            !still_ours(ctl.fd, ctl.dev, ctl.ino))
            continue;
        int c = accept4(ctl.fd, NULL, NULL, SOCK_CLOEXEC);
        if (c < 0)
            continue;
        serve(c);
        close(c);
    }
    return NULL;
}

static void start_thread(void)
{
    ctl.pid = ct_proc.pid;
    if (bind_socket() < 0) {
        ct_message("calltrace: CALLTRACE_CONTROL: cannot create %s: %s; no "
                   "control channel", ctl.path[0] ? ctl.path
                                                  : "/tmp/calltrace-UID",
                   strerror(errno));
        return;
    }
    __atomic_store_n(&ctl.running, 1, __ATOMIC_RELEASE);
    /* Every signal blocked: the program's signals go to its own threads. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&at, 64 << 10);
    pthread_t th;
    int err = pthread_create(&th, &at, control_thread, NULL);
    pthread_attr_destroy(&at);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (err) {
        ct_control_stop();
        ct_message("calltrace: CALLTRACE_CONTROL: cannot start its thread: "
                   "%s", strerror(err));
    }
}

void ct_control_start(void)
{
    if (ct_proc.cfg.control && ct_proc.hdr)
        start_thread();
}

void ct_control_after_fork(void)
{
    /* The parent's thread is not here; its socket is the parent's. */
    if (still_ours(ctl.fd, ctl.dev, ctl.ino))
        close(ctl.fd);
    ctl.fd = -1;
    ctl.running = 0;
    ct_control_start();
}

void ct_control_stop(void)
{
    if (!__atomic_exchange_n(&ctl.running, 0, __ATOMIC_ACQ_REL))
        return;
    if (ctl.pid == ct_proc.pid && ctl.path[0])
        unlink(ctl.path);
}
