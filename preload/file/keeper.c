/*
 * The file keeper (keeper.h).  Before it, each block reopened the trace by
 * name, checked it with fstat, then grew and mapped the descriptor
 * *number*: a thread of the program that dup2()ed its own file over that
 * number in between got a trace block written into its data.  A number
 * the tracer holds in the program's table can never be made safe (an
 * ftruncate or fallocate of the wrong file cannot be undone by a check
 * after it), so the descriptor lives in a table the program cannot touch:
 * the keeper's, a process cloned with CLONE_VM (it maps into the program's
 * address space) and neither CLONE_FILES nor CLONE_FS (its descriptors,
 * root and working directory stay its own through the program's dup2,
 * close_range, chroot, chdir, unshare and setns).
 *
 * Requests go through a few slots of shared memory: a caller claims a free
 * slot (FREE -> CLAIMED), fills it, posts it (POSTED) and wakes the
 * keeper, which takes it (SERVING), does the work and answers (DONE).  A
 * caller that waited long (a keeper stopped or starved) withdraws a slot
 * still POSTED and counts the block lost; one being served is waited for.
 * No lock: a signal handler that interrupts a caller takes another slot.
 *
 * The keeper makes raw system calls only and touches no thread-local
 * state (it runs on the TLS of the thread that started it), blocks every
 * signal, signals no one at its exit, and ends when the program execs or
 * is gone (within a few ms of an exit).
 */
#include <fcntl.h>
#include <linux/futex.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "preload/base/helper.h"
#include "preload/file/keeper.h"
#include "preload/base/rawsys.h"
#include "preload/tracer.h"

#define NSLOTS 64u
#define STACK_SIZE (64u << 10)
#define NAP_NS 100000000l        /* at most this long between looks       */
#define WITHDRAW_NAPS 50         /* 5 s of waiting for a posted request   */
/* Once the process exits, the keeper ends within this of it, closing its
 * descriptor; till then it serves what the exit path still needs (the
 * program's destructors run after the trace is closed). */
#define CLOSING_NAP_NS 5000000l

enum { R_FREE, R_CLAIMED, R_POSTED, R_SERVING, R_DONE };
enum { OP_CREATE, OP_MAP, OP_WRITE, OP_COPY };

struct req {
    uint32_t state;
    int op;
    const char *name;
    const void *buf;
    uint64_t off, len;
    uint64_t patch_off;
    uint32_t patch_len;
    long result;          /* -errno, or 0 / an address                    */
    uint64_t dev, ino;
} __attribute__((aligned(64)));

/* Shared by the program and its keeper (one address space). */
static struct {
    struct req r[NSLOTS];
    int state;            /* 0 none, 1 starting, 2 running, 3 closed       */
    int stop;
    uint32_t tid;         /* the keeper's, cleared by the kernel at exit  */
    uint32_t wake;        /* futex word                                    */
    int sleeping;
    int closing;          /* the process is exiting: look more often      */
    uint32_t parent;
    void *stack;
    struct ct_helper helper;  /* how it was started: its pidfd of the program */
    /* The keeper's alone. */
    int fd;               /* in the keeper's table; -1 none                */
    int no_fallocate;
    uint64_t made;        /* the length the tracer gave the file           */
    int magic_seen;       /* the header's magic was read back once         */
    uint32_t uid[4], gid[4];  /* the program's at the start (getres*id)    */
} K;

/* Zeros written where fallocate is unsupported (keeper only): one page,
 * given ZERO_IOVS times to each pwritev, so 64 KiB go in one call without
 * 64 KiB in every process's address space. */
#define ZERO_PAGE 4096u
#define ZERO_IOVS 16u
static uint8_t zeros[ZERO_PAGE];

static long sys(long n, long a, long b, long c, long d, long e, long f)
{
    return ct_rsys(n, a, b, c, d, e, f);
}

static void futex_wake(uint32_t *w)
{
    sys(SYS_futex, (long)w, FUTEX_WAKE, 1, 0, 0, 0);
}

static void futex_wait(uint32_t *w, uint32_t val, long ns)
{
    struct timespec ts = {0, ns};
    sys(SYS_futex, (long)w, FUTEX_WAIT, val, (long)&ts, 0, 0);
}

/* ------------------------------------------------------------- keeper */

/* The four ids (real, effective, saved, file system) on a "Uid:" or
 * "Gid:" line of /proc/PID/status. */
static int ids_on(const char *buf, long n, const char *key, long ids[4])
{
    for (long i = 0; i + 5 < n; i++) {
        if ((i && buf[i - 1] != '\n') || memcmp(buf + i, key, 5) != 0)
            continue;
        long k = 0, p = i + 5;
        while (k < 4 && p < n && buf[p] != '\n') {
            while (p < n && (buf[p] == '\t' || buf[p] == ' '))
                p++;
            long v = 0;
            while (p < n && buf[p] >= '0' && buf[p] <= '9')
                v = v * 10 + (buf[p++] - '0');
            ids[k++] = v;
        }
        return k == 4 ? 0 : -1;
    }
    return -1;
}

/*
 * The keeper keeps the credentials the program had when it started it.
 * After the program changed them (setuid, setgid, a daemon dropping root)
 * the keeper names no file for it any more (create, copy, reopen): it
 * shares the program's memory, so a request is whatever the program
 * wrote, and the keeper must not open for it what it could not open
 * itself.  The descriptor held already, of the program's own trace, is
 * used on, as a log file opened before the change would be.  Where
 * /proc cannot be read the change cannot be seen, and nothing is refused.
 */
static long same_credentials(void)
{
    char path[32] = "/proc/", *d = path + 6;
    char digits[12];
    int nd = 0;
    for (uint32_t p = K.parent; p && nd < 11; p /= 10)
        digits[nd++] = (char)('0' + p % 10);
    while (nd)
        *d++ = digits[--nd];
    memcpy(d, "/status", 8);
    long fd = sys(SYS_open, (long)path, O_RDONLY | O_CLOEXEC, 0, 0, 0, 0);
    if (fd < 0)
        return 0;
    char buf[4096];
    long n = sys(SYS_read, fd, (long)buf, sizeof buf, 0, 0, 0);
    sys(SYS_close, fd, 0, 0, 0, 0, 0);
    long uid[4], gid[4];
    if (n <= 0 || ids_on(buf, n, "Uid:\t", uid) || ids_on(buf, n, "Gid:\t", gid))
        return 0;
    for (int i = 0; i < 4; i++)
        if ((uint32_t)uid[i] != K.uid[i] || (uint32_t)gid[i] != K.gid[i])
            return -EPERM;
    return 0;
}

/* The file by its absolute name, checked to be the tracer's: a keeper
 * started again after an exec that failed. */
static long reopen(void)
{
    long ok = same_credentials();
    if (ok)
        return ok;
    long fd = sys(SYS_open, (long)ct_proc.reopen,
                  O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, 0, 0, 0, 0);
    if (fd < 0)
        return fd == -ELOOP ? -ENOENT : fd;
    struct stat st;
    if (sys(SYS_fstat, fd, (long)&st, 0, 0, 0, 0) != 0 ||
        (uint64_t)st.st_dev != ct_proc.dev ||
        (uint64_t)st.st_ino != ct_proc.ino) {
        sys(SYS_close, fd, 0, 0, 0, 0, 0);
        return -ENOENT;
    }
    K.fd = (int)fd;
    K.made = (uint64_t)st.st_size;
    return 0;
}

/* The file is still there and as long as the tracer made it. */
static long check(void)
{
    if (K.fd < 0) {
        long r = reopen();
        if (r)
            return r;
    }
    struct stat st;
    long r = sys(SYS_fstat, K.fd, (long)&st, 0, 0, 0, 0);
    if (r)
        return r;
    if (st.st_nlink == 0)
        return -CT_KEEPER_REMOVED;
    if ((uint64_t)st.st_size < K.made)
        return -CT_KEEPER_TRUNCATED;
    return 0;
}

static long write_all(long fd, const uint8_t *p, uint64_t off, uint64_t len)
{
    for (uint64_t done = 0; done < len;) {
        long n = sys(SYS_pwrite64, fd, (long)(p + done), (long)(len - done),
                     (long)(off + done), 0, 0);
        if (n == -EINTR)
            continue;
        if (n <= 0)
            return n ? n : -EIO;
        done += (uint64_t)n;
    }
    return 0;
}

/* Disk space for [off, off + len): fallocate, or zeros written for real
 * where it is unsupported (ext2, NFSv3, many FUSE file systems), so a full
 * disk says ENOSPC here rather than SIGBUS at a store into the mapping. */
static long grow(uint64_t off, uint64_t len)
{
    if (!K.no_fallocate) {
        long r = sys(SYS_fallocate, K.fd, 0, (long)off, (long)len, 0, 0);
        if (r == 0)
            goto made;
        if (r != -EOPNOTSUPP && r != -ENOSYS)
            return r;
        K.no_fallocate = 1;
    }
    for (uint64_t done = 0; done < len;) {
        struct iovec iov[ZERO_IOVS];
        uint64_t left = len - done;
        unsigned k = 0;
        for (; k < ZERO_IOVS && left; k++) {
            iov[k].iov_base = zeros;
            iov[k].iov_len = left < ZERO_PAGE ? left : ZERO_PAGE;
            left -= iov[k].iov_len;
        }
        /* pwritev's offset comes as two longs: low and high halves. */
        long n = sys(SYS_pwritev, K.fd, (long)iov, (long)k,
                     (long)(off + done), (long)((off + done) >> 32), 0);
        if (n == -EINTR)
            continue;
        if (n <= 0)
            return n ? n : -EIO;
        done += (uint64_t)n;
    }
made:
    if (off + len > K.made)
        K.made = off + len;
    return 0;
}

static long create(struct req *q)
{
    long ok = same_credentials();
    if (ok)
        return ok;
    long fd = sys(SYS_open, (long)q->name,
                  O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY, 0644, 0,
                  0, 0);
    if (fd < 0)
        return fd;
    struct stat st;
    long r = sys(SYS_fstat, fd, (long)&st, 0, 0, 0, 0);
    if (r) {
        sys(SYS_close, fd, 0, 0, 0, 0, 0);
        return r;
    }
    if (K.fd >= 0)
        sys(SYS_close, K.fd, 0, 0, 0, 0, 0);
    K.fd = (int)fd;
    K.made = 0;
    K.no_fallocate = 0;
    K.magic_seen = 0;
    q->dev = (uint64_t)st.st_dev;
    q->ino = (uint64_t)st.st_ino;
    return 0;
}

/*
 * A truncation between check() and grow(): grow extended the file again,
 * over a hole where the trace was, so no store into the old mappings
 * faults and nothing else would tell (1 run in about 600 of
 * trace_storage.sh's, on a loaded machine).  The header's magic, gone
 * from the file, tells: read back after each grow, once it has been seen
 * (a thread's first block may be asked for before the header is filled).
 */
static long header_gone(void)
{
    char m[CT_FILE_MAGIC_LEN];
    long n = sys(SYS_pread64, K.fd, (long)m, sizeof m, 0, 0, 0);
    if (n == (long)sizeof m && memcmp(m, CT_FILE_MAGIC, sizeof m) == 0) {
        K.magic_seen = 1;
        return 0;
    }
    return K.magic_seen ? -CT_KEEPER_TRUNCATED : 0;
}

static long map(struct req *q)
{
    long r = check();
    if (!r)
        r = grow(q->off, q->len);
    if (!r)
        r = header_gone();
    if (r)
        return r;
    return sys(SYS_mmap, 0, (long)q->len, PROT_READ | PROT_WRITE, MAP_SHARED,
               K.fd, (long)q->off);
}

static long write_req(struct req *q)
{
    long r = check();
    if (!r)
        r = grow(q->off, q->len);
    if (!r)
        r = header_gone();
    return r ? r : write_all(K.fd, q->buf, q->off, q->len);
}

/* copy_file_range, else pread/pwrite through a buffer of its own. */
static long copy_data(long out, uint64_t len)
{
    loff_t in_off = 0, out_off = 0;
    while ((uint64_t)in_off < len) {
        long n = sys(SYS_copy_file_range, K.fd, (long)&in_off, out,
                     (long)&out_off, (long)(len - (uint64_t)in_off), 0);
        if (n == -EINTR || n > 0)
            continue;
        if (n == 0)
            return 0;
        break;
    }
    enum { BUF = 1 << 20 };
    long b = sys(SYS_mmap, 0, BUF, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (b < 0 && b > -4096)
        return b;
    long r = 0;
    while ((uint64_t)in_off < len && !r) {
        long n = sys(SYS_pread64, K.fd, b, BUF, in_off, 0, 0);
        if (n == -EINTR)
            continue;
        if (n <= 0)
            break;
        r = write_all(out, (const uint8_t *)b, (uint64_t)in_off, (uint64_t)n);
        in_off += n;
    }
    sys(SYS_munmap, b, BUF, 0, 0, 0, 0);
    return r;
}

static long copy(struct req *q)
{
    long r = check();
    struct stat st;
    if (!r)
        r = sys(SYS_fstat, K.fd, (long)&st, 0, 0, 0, 0);
    if (!r)
        r = same_credentials();
    if (r)
        return r;
    long out = sys(SYS_open, (long)q->name,
                   O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW |
                       O_NOCTTY, 0644, 0, 0, 0);
    if (out < 0)
        return out;
    r = copy_data(out, (uint64_t)st.st_size);
    if (!r)
        r = write_all(out, q->buf, q->patch_off, q->patch_len);
    sys(SYS_close, out, 0, 0, 0, 0, 0);
    if (r)
        sys(SYS_unlink, (long)q->name, 0, 0, 0, 0, 0);
    return r;
}

static void serve(struct req *q)
{
    uint32_t posted = R_POSTED;
    if (!__atomic_compare_exchange_n(&q->state, &posted, R_SERVING, 0,
                                     __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
        return;
    switch (q->op) {
    case OP_CREATE: q->result = create(q); break;
    case OP_MAP: q->result = map(q); break;
    case OP_WRITE: q->result = write_req(q); break;
    default: q->result = copy(q); break;
    }
    __atomic_store_n(&q->state, R_DONE, __ATOMIC_RELEASE);
    futex_wake(&q->state);
}

static int pass(void)
{
    int worked = 0;
    for (unsigned i = 0; i < NSLOTS; i++)
        if (__atomic_load_n(&K.r[i].state, __ATOMIC_ACQUIRE) == R_POSTED) {
            serve(&K.r[i]);
            worked = 1;
        }
    return worked;
}

static int program_gone(void)
{
    return __atomic_load_n(&K.stop, __ATOMIC_ACQUIRE) ||
           ct_helper_program_gone(&K.helper);
}

static int keeper_main(void *arg)
{
    (void)arg;
    /* Nothing of the program's: a copy of its descriptors would keep its
     * pipes and files open. */
    ct_helper_close_others(&K.helper, -1);
    sys(SYS_prctl, PR_SET_NAME, (long)"calltrace-file", 0, 0, 0, 0);
    while (!program_gone()) {
        if (pass())
            continue;
        uint32_t w = __atomic_load_n(&K.wake, __ATOMIC_SEQ_CST);
        __atomic_store_n(&K.sleeping, 1, __ATOMIC_SEQ_CST);
        if (!pass() && !program_gone())
            futex_wait(&K.wake, w, __atomic_load_n(&K.closing,
                                                   __ATOMIC_RELAXED)
                                       ? CLOSING_NAP_NS : NAP_NS);
        __atomic_store_n(&K.sleeping, 0, __ATOMIC_SEQ_CST);
    }
    if (K.fd >= 0)
        sys(SYS_close, K.fd, 0, 0, 0, 0, 0);
    if (K.helper.pidfd >= 0)
        sys(SYS_close, K.helper.pidfd, 0, 0, 0, 0, 0);
    sys(SYS_exit, 0, 0, 0, 0, 0, 0);
    return 0;
}

/* ------------------------------------------------------------- program */

/* Only the process whose trace it is starts one (not a vfork child, not
 * the block supplier): 0 when one runs. */
static int start(void)
{
    int st = __atomic_load_n(&K.state, __ATOMIC_ACQUIRE);
    if (st == 2)
        return 0;
    if (st == 3)
        return -CT_KEEPER_CLOSED;
    if ((uint32_t)sys(SYS_getpid, 0, 0, 0, 0, 0, 0) != ct_proc.pid)
        return -EAGAIN;
    if (st != 0 || !__atomic_compare_exchange_n(&K.state, &st, 1, 0,
                                                __ATOMIC_ACQ_REL,
                                                __ATOMIC_RELAXED))
        return -EAGAIN;  /* another thread is starting it */
    long r = 0;
    if (!K.stack) {
        long s = sys(SYS_mmap, 0, STACK_SIZE, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
        if (s < 0 && s > -4096)
            r = s;
        else
            K.stack = (void *)s;
        if (!r)
            sys(SYS_madvise, s, STACK_SIZE, MADV_DONTFORK, 0, 0, 0);
    }
    if (!r) {
        K.fd = -1;
        K.stop = 0;
        K.closing = 0;
        K.parent = ct_proc.pid;
        unsigned u[3], g[3];
        sys(SYS_getresuid, (long)&u[0], (long)&u[1], (long)&u[2], 0, 0, 0);
        sys(SYS_getresgid, (long)&g[0], (long)&g[1], (long)&g[2], 0, 0, 0);
        K.uid[0] = u[0], K.uid[1] = u[1], K.uid[2] = u[2];
        K.gid[0] = g[0], K.gid[1] = g[1], K.gid[2] = g[2];
        K.uid[3] = (uint32_t)sys(SYS_setfsuid, -1, 0, 0, 0, 0, 0);
        K.gid[3] = (uint32_t)sys(SYS_setfsgid, -1, 0, 0, 0, 0, 0);
        /* Not the program's child, so no wait of the program's (even
         * with __WALL) meets it; every signal blocked, its exit signalling
         * no one (helper.c).  K.tid is its tid while it lives. */
        __atomic_store_n(&K.tid, 0, __ATOMIC_RELAXED);
        K.helper.fn = keeper_main;
        K.helper.arg = NULL;
        K.helper.stack = K.stack;
        K.helper.stack_size = STACK_SIZE;
        K.helper.ctid = &K.tid;
        if (ct_helper_start(&K.helper) != 0 ||
            !__atomic_load_n(&K.tid, __ATOMIC_ACQUIRE))
            r = -EAGAIN;
    }
    __atomic_store_n(&K.state, r ? 0 : 2, __ATOMIC_RELEASE);
    return (int)r;
}

static struct req *claim(void)
{
    for (unsigned i = 0; i < NSLOTS; i++) {
        uint32_t free_ = R_FREE;
        if (__atomic_compare_exchange_n(&K.r[i].state, &free_, R_CLAIMED, 0,
                                        __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
            return &K.r[i];
    }
    return NULL;
}

/* Posts q and waits for its answer: the result, or -EAGAIN when the
 * keeper is gone or was too slow to take it.  The create's answer in
 * out. */
static long call(struct req *q, struct req *out)
{
    __atomic_store_n(&q->state, R_POSTED, __ATOMIC_RELEASE);
    __atomic_add_fetch(&K.wake, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&K.sleeping, __ATOMIC_SEQ_CST))
        futex_wake(&K.wake);
    for (int naps = 0;;) {
        uint32_t s = __atomic_load_n(&q->state, __ATOMIC_ACQUIRE);
        if (s == R_DONE)
            break;
        int alive = __atomic_load_n(&K.tid, __ATOMIC_ACQUIRE) != 0;
        if (s == R_POSTED && (!alive || ++naps > WITHDRAW_NAPS) &&
            __atomic_compare_exchange_n(&q->state, &s, R_FREE, 0,
                                        __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
            return -EAGAIN;
        if (s == R_SERVING && !alive)
            return -EAGAIN;  /* killed while at it: the slot stays taken */
        futex_wait(&q->state, s, NAP_NS);
    }
    long r = q->result;
    out->dev = q->dev;
    out->ino = q->ino;
    __atomic_store_n(&q->state, R_FREE, __ATOMIC_RELEASE);
    return r;
}

static void nap(void)
{
    struct timespec ts = {0, 100000};
    sys(SYS_nanosleep, (long)&ts, 0, 0, 0, 0, 0);
}

/* A keeper being started by another thread, or every slot taken (many
 * threads switching blocks at once): waited for, up to 5 s. */
static long request(struct req *tmpl)
{
    long r = start();
    for (int i = 0; r == -EAGAIN && i < 50000 &&
                    __atomic_load_n(&K.state, __ATOMIC_ACQUIRE) == 1; i++) {
        nap();
        r = start();
    }
    if (r)
        return r;
    struct req *q = claim();
    for (int i = 0; !q && i < 50000; i++) {
        nap();
        q = claim();
    }
    if (!q)
        return -EAGAIN;
    /* Field by field: the state word is the claim, never written over. */
    q->op = tmpl->op;
    q->name = tmpl->name;
    q->buf = tmpl->buf;
    q->off = tmpl->off;
    q->len = tmpl->len;
    q->patch_off = tmpl->patch_off;
    q->patch_len = tmpl->patch_len;
    return call(q, tmpl);
}

static int err_of(long r)
{
    return r < 0 && r > -4096 ? (int)-r : 0;
}

int ct_keeper_create(const char *name, uint64_t *dev, uint64_t *ino)
{
    struct req q = {.op = OP_CREATE, .name = name};
    int err = err_of(request(&q));
    if (!err) {
        *dev = q.dev;
        *ino = q.ino;
    }
    return err;
}

int ct_keeper_map(uint64_t off, uint64_t len, void **p)
{
    struct req q = {.op = OP_MAP, .off = off, .len = len};
    long r = request(&q);
    int err = err_of(r);
    if (!err)
        *p = (void *)r;
    return err;
}

int ct_keeper_write(const void *buf, uint64_t off, uint64_t len)
{
    struct req q = {.op = OP_WRITE, .buf = buf, .off = off, .len = len};
    return err_of(request(&q));
}

int ct_keeper_copy(const char *name, const void *patch, uint64_t patch_off,
                   uint32_t patch_len)
{
    struct req q = {.op = OP_COPY, .name = name, .buf = patch,
                    .patch_off = patch_off, .patch_len = patch_len};
    return err_of(request(&q));
}

void ct_keeper_stop(void)
{
    if (__atomic_load_n(&K.state, __ATOMIC_ACQUIRE) != 2 ||
        (uint32_t)sys(SYS_getpid, 0, 0, 0, 0, 0, 0) != ct_proc.pid)
        return;
    __atomic_store_n(&K.stop, 1, __ATOMIC_RELEASE);
    __atomic_add_fetch(&K.wake, 1, __ATOMIC_SEQ_CST);
    futex_wake(&K.wake);
    /* Bounded: a keeper stopped by a debugger must not hang the exit. */
    for (int naps = 0; naps < WITHDRAW_NAPS; naps++) {
        uint32_t tid = __atomic_load_n(&K.tid, __ATOMIC_ACQUIRE);
        if (!tid)
            break;
        futex_wait(&K.tid, tid, NAP_NS);
    }
    __atomic_store_n(&K.state, 3, __ATOMIC_RELEASE);
}

void ct_keeper_closing(void)
{
    if (__atomic_load_n(&K.state, __ATOMIC_ACQUIRE) != 2)
        return;
    __atomic_store_n(&K.closing, 1, __ATOMIC_RELAXED);
    /* Asleep for up to NAP_NS: woken to sleep the shorter nap. */
    __atomic_add_fetch(&K.wake, 1, __ATOMIC_SEQ_CST);
    futex_wake(&K.wake);
}

void ct_keeper_resume(void)
{
    int closed = 3;
    __atomic_compare_exchange_n(&K.state, &closed, 0, 0, __ATOMIC_ACQ_REL,
                                __ATOMIC_RELAXED);
}

void ct_keeper_after_fork_child(void)
{
    /* The keeper's stack was not copied (MADV_DONTFORK); the child starts
     * its own keeper for its own file. */
    memset(&K, 0, sizeof K);
}
