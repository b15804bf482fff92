/*
 * calltrace recv: receives the traces that programs stream with
 * CALLTRACE_OUTPUT=tcp:HOST:PORT, one connection per process, and stores
 * each as DIR/calltrace-PID.raw.  One thread and poll(2): a slow or
 * hostile sender holds nothing but its own connection.  Each stream is
 * checked as it arrives (recv_parse.c); one that breaks the format ends
 * with one line naming the peer and the byte, and what it sent before
 * stays in its file.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "frontend/frontend.h"
#include "frontend/recv_parse.h"

#define MAX_CONN 1024
#define HEADER_WAIT_S 10   /* a sender that connects says who it is at once */
#define BUF (256u << 10)

struct conn {
    int fd, out;
    char peer[80];
    char path[4096];
    time_t since;
    uint64_t stored;
    struct ct_recv_parser p;
};

static volatile sig_atomic_t stop;
static bool quiet;

static void on_signal(int sig)
{
    (void)sig;
    stop = 1;
}

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
    if (quiet)
        return;
    char line[4600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "calltrace recv: %s\n", line);
}

static const char usage_text[] =
"Usage: calltrace recv [OPTION]...\n"
"Receive traces streamed with CALLTRACE_OUTPUT=tcp:HOST:PORT (or calltrace\n"
"record --host/--port), several at once, one connection per process, and\n"
"store each as DIR/calltrace-PID.raw (.1, .2, ... if taken).  Runs until\n"
"interrupted (or --streams=N have ended).\n"
"\n"
"  -p, --port=P       TCP port to listen on (default 4444; 0: any, the\n"
"                     port is printed)\n"
"  -b, --bind=ADDR    address to listen on (default 127.0.0.1; 0.0.0.0 for\n"
"                     every interface: the streams are not authenticated)\n"
"  -d, --dir=DIR      where the traces go (default: the current folder)\n"
"  -n, --streams=N    exit after N streams have ended\n"
"  -q, --quiet        no line per stream (errors are still printed)\n"
"  -h, --help         show this help and exit\n";

static int listen_on(const char *addr, const char *port)
{
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM,
                             .ai_flags = AI_PASSIVE | AI_NUMERICSERV};
    struct addrinfo *res;
    int rc = getaddrinfo(addr, port, &hints, &res);
    if (rc != 0) {
        ct_fe_error("recv: cannot listen on %s port %s: %s", addr, port,
                    gai_strerror(rc));
        return -1;
    }
    int fd = -1, err = 0;
    for (struct addrinfo *a = res; a && fd < 0; a = a->ai_next) {
        fd = socket(a->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
        int one = 1;
        if (fd >= 0 &&
            (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) ||
             bind(fd, a->ai_addr, a->ai_addrlen) || listen(fd, 64))) {
            err = errno;
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(res);
    if (fd < 0)
        ct_fe_error("recv: cannot listen on %s port %s: %s", addr, port,
                    strerror(err));
    return fd;
}

static void peer_name(int fd, char *dst, size_t cap)
{
    struct sockaddr_storage ss;
    socklen_t len = sizeof ss;
    char host[64], serv[16];
    if (getpeername(fd, (struct sockaddr *)&ss, &len) != 0 ||
        getnameinfo((struct sockaddr *)&ss, len, host, sizeof host, serv,
                    sizeof serv, NI_NUMERICHOST | NI_NUMERICSERV) != 0)
        snprintf(dst, cap, "connection %d", fd);
    else
        snprintf(dst, cap, "%s:%s", host, serv);
}

static int open_trace(struct conn *c, const char *dir)
{
    for (int i = 0; i < 10000; i++) {
        if (i == 0)
            snprintf(c->path, sizeof c->path, "%s/calltrace-%u.raw", dir,
                     c->p.pid);
        else
            snprintf(c->path, sizeof c->path, "%s/calltrace-%u.raw.%d", dir,
                     c->p.pid, i);
        c->out = open(c->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (c->out >= 0 || errno != EEXIST)
            break;
    }
    if (c->out < 0) {
        say("%s: cannot create %s: %s; connection closed", c->peer, c->path,
            strerror(errno));
        return -1;
    }
    say("%s: pid %u -> %s", c->peer, c->p.pid, c->path);
    return 0;
}

static int store(struct conn *c, const uint8_t *p, size_t n)
{
    while (n) {
        ssize_t w = write(c->out, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            say("%s: cannot write %s: %s; connection closed", c->peer,
                c->path, strerror(errno));
            return -1;
        }
        p += w;
        n -= (size_t)w;
        c->stored += (uint64_t)w;
    }
    return 0;
}

/* Checks and stores what came in; -1 when the connection must end. */
static int take(struct conn *c, const uint8_t *buf, size_t n, const char *dir)
{
    bool had_header = c->p.header_done;
    size_t head_part = CT_FILE_HEADER_SIZE - (size_t)c->p.offset;
    size_t ok = ct_recv_feed(&c->p, buf, n);
    if (!had_header && c->p.header_done) {
        /* Named by the pid in the header: the file opens only now. */
        if (open_trace(c, dir) < 0 ||
            store(c, c->p.header, CT_FILE_HEADER_SIZE) < 0 ||
            store(c, buf + head_part, ok - head_part) < 0)
            return -1;
    } else if (c->p.header_done && store(c, buf, ok) < 0) {
        return -1;
    }
    if (c->p.failed) {
        say("%s: %s; connection closed%s%s", c->peer, c->p.error,
            c->out >= 0 ? ", kept what came before in " : "",
            c->out >= 0 ? c->path : "");
        return -1;
    }
    return 0;
}

static void finish(struct conn *c, const char *why)
{
    if (why && !*why)
        ; /* told already */
    else if (why)
        say("%s: %s%s%s", c->peer, why, c->out >= 0 ? "; stored in " : "",
            c->out >= 0 ? c->path : "");
    else
        say("%s: pid %u ended cleanly, %llu bytes in %s", c->peer, c->p.pid,
            (unsigned long long)c->stored, c->path);
    if (c->out >= 0)
        close(c->out);
    close(c->fd);
    c->fd = c->out = -1;
}

int ct_fe_recv(int argc, char **argv)
{
    static const struct option opts[] = {
        {"port", required_argument, NULL, 'p'},
        {"bind", required_argument, NULL, 'b'},
        {"dir", required_argument, NULL, 'd'},
        {"streams", required_argument, NULL, 'n'},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *port = "4444", *addr = "127.0.0.1", *dir = ".";
    long streams = -1;
    int o;
    while ((o = getopt_long(argc, argv, "+p:b:d:n:qh", opts, NULL)) != -1) {
        char *end;
        switch (o) {
        case 'p':
            if (strtol(optarg, &end, 10) < 0 || *end || !*optarg ||
                strtol(optarg, NULL, 10) > 65535)
                ct_fe_usage_error("recv", "--port='%s': expected 0 to 65535",
                                  optarg);
            port = optarg;
            break;
        case 'b': addr = optarg; break;
        case 'd': dir = optarg; break;
        case 'n':
            streams = strtol(optarg, &end, 10);
            if (*end || !*optarg || streams < 1)
                ct_fe_usage_error("recv", "--streams='%s': expected a count",
                                  optarg);
            break;
        case 'q': quiet = true; break;
        case 'h': fputs(usage_text, stdout); return 0;
        default: ct_fe_usage_error("recv", "unknown option");
        }
    }
    if (optind < argc)
        ct_fe_usage_error("recv", "unexpected argument '%s'", argv[optind]);
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        ct_fe_error("recv: %s: not a folder", dir);
        return CT_FE_FAILED;
    }
    int lfd = listen_on(addr, port);
    if (lfd < 0)
        return CT_FE_FAILED;
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    char host[64] = "?", serv[16] = "?";
    if (getsockname(lfd, (struct sockaddr *)&ss, &sl) == 0)
        getnameinfo((struct sockaddr *)&ss, sl, host, sizeof host, serv,
                    sizeof serv, NI_NUMERICHOST | NI_NUMERICSERV);
    fprintf(stderr, "calltrace recv: listening on %s port %s, traces go to "
            "%s\n", host, serv, dir);

    struct sigaction sa = {.sa_handler = on_signal};
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);

    struct conn *conns = calloc(MAX_CONN, sizeof *conns);
    struct pollfd *pfd = calloc(MAX_CONN + 1, sizeof *pfd);
    uint8_t *buf = malloc(BUF);
    if (!conns || !pfd || !buf) {
        ct_fe_error("recv: out of memory");
        return CT_FE_FAILED;
    }
    for (int i = 0; i < MAX_CONN; i++)
        conns[i].fd = conns[i].out = -1;
    long ended = 0;
    while (!stop && (streams < 0 || ended < streams)) {
        /* Only the open connections: pfd[k + 1] is conns[slot_of[k]]'s. */
        static int slot_of[MAX_CONN];
        int npfd = 0;
        pfd[npfd++] = (struct pollfd){.fd = lfd, .events = POLLIN};
        for (int i = 0; i < MAX_CONN; i++)
            if (conns[i].fd >= 0) {
                slot_of[npfd - 1] = i;
                pfd[npfd++] = (struct pollfd){.fd = conns[i].fd,
                                              .events = POLLIN};
            }
        int n = poll(pfd, (nfds_t)npfd, 1000);
        if (n < 0 && errno != EINTR) {
            ct_fe_error("recv: poll: %s", strerror(errno));
            break;
        }
        time_t now = time(NULL);
        for (int k = 1; k < npfd; k++) {
            struct conn *c = &conns[slot_of[k - 1]];
            if (n > 0 && (pfd[k].revents & (POLLIN | POLLHUP | POLLERR))) {
                ssize_t r = read(c->fd, buf, BUF);
                if (r > 0 && take(c, buf, (size_t)r, dir) < 0) {
                    finish(c, "");
                    ended++;
                } else if (r == 0) {
                    finish(c, ct_recv_end(&c->p));
                    ended++;
                } else if (r < 0 && errno != EINTR && errno != EAGAIN) {
                    char why[160];
                    snprintf(why, sizeof why, "read failed: %s",
                             strerror(errno));
                    finish(c, why);
                    ended++;
                }
            } else if (!c->p.header_done && now - c->since > HEADER_WAIT_S) {
                finish(c, "no header within 10 s; connection closed");
                ended++;
            }
        }
        if (n > 0 && (pfd[0].revents & POLLIN)) {
            int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
            int slot = 0;
            while (fd >= 0 && slot < MAX_CONN && conns[slot].fd >= 0)
                slot++;
            if (fd >= 0 && slot == MAX_CONN) {
                say("%d streams at once: a new connection refused", MAX_CONN);
                close(fd);
            } else if (fd >= 0) {
                struct conn *c = &conns[slot];
                c->fd = fd;
                c->out = -1;
                c->since = now;
                c->stored = 0;
                peer_name(fd, c->peer, sizeof c->peer);
                ct_recv_init(&c->p);
            }
        }
    }
    for (int i = 0; i < MAX_CONN; i++)
        if (conns[i].fd >= 0)
            finish(&conns[i], "the receiver stopped; connection closed");
    free(buf);
    free(pfd);
    free(conns);
    close(lfd);
    return 0;
}
