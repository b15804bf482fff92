/*
 * Streaming output (stream.h).  The blocks live in a memfd mapped twice:
 * the program's view, handed out by ct_stream_block exactly as file.c
 * hands out file mappings (a closed block is unmapped by its thread), and
 * the sender's view, which stays.  The sender is a process cloned with
 * CLONE_VM and without CLONE_FILES: it reads the program's memory without
 * copying it, and its descriptor table is its own, so the socket is never
 * a number in the program's table.  It outlives the program (exit, exec,
 * SIGKILL) long enough to send what is left.
 *
 * Sharing the address space has one rule: the sender's code may not touch
 * errno or any other thread-local state, which would be the state of the
 * program's thread that started it.  So it makes raw system calls only,
 * and calls nothing in libc but memcpy and memset.
 */
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "preload/base/rawsys.h"
#include "preload/base/helper.h"
#include "preload/stream/stream.h"
#include "preload/tracer.h"

#define WINDOW_MAX (256ull << 30)   /* address space, not memory          */
#define WINDOW_MIN (64ull << 20)
#define CONNECT_MS 2000
#define TICK_MS 100
#define SNAPSHOT_NS 1000000000ull   /* open blocks that grew: each second */
#define MAX_PENDING 65536u
#define MAX_CARRY 1024u
#define SENDER_STACK (256u << 10)

struct pending {
    uint64_t off;
    uint32_t size;
    uint32_t snap_len;     /* records sent in the latest snapshot           */
    uint64_t snap_ns;      /* when, or when first seen                      */
    int dropped;
};

struct carry {
    uint32_t tid;
    uint64_t events;       /* dropped, to be told on the tid's next block   */
};

/* Shared by the program and its sender (one address space). */
static struct {
    uint8_t *win;          /* the program's view                           */
    uint8_t *view;         /* the sender's view                            */
    uint64_t win_len;
    int sock;
    struct ct_helper helper;  /* the sender: the program's pid, its pidfd */
    uint64_t backlog;
    uint64_t timeout_ns;
    /* Sender to program. */
    int gone;              /* the sender stopped; why says why             */
    char why[160];
    uint64_t dropped_blocks, dropped_events;
    /* Program side. */
    int told_gone, told_dropped;
    /* Sender only. */
    struct pending *pend;
    uint32_t npend;
    uint64_t walk;
    uint64_t inflight;     /* offset of the block being sent, or 0         */
    uint64_t last_progress; /* the listener last took data, or the send began */
    struct carry carry[MAX_CARRY];
    uint8_t zero[CT_BLOCK_ALIGN];
} S;

/* ------------------------------------------------------------ the format */

uint64_t ct_stream_count_events(const uint8_t *p, size_t len,
                                size_t *complete, uint32_t *last_switch)
{
    const uint8_t *s = p, *e = p + len;
    uint64_t n = 0;
    size_t done = 0;
    uint32_t ls = 0;
    while (s < e && *s) {
        const uint8_t *rec = s;
        uint64_t head, a, b;
        if (ct_get_varint(&s, e, &head) != 0)
            break;
        uint64_t delta;
        unsigned type = ct_head_split(head, true, &delta);
        if (type == CT_REC_EXIT) {
            n++;
        } else if (type == CT_REC_ENTRY) {
            if (ct_get_varint(&s, e, &a) != 0 || ct_get_varint(&s, e, &b) != 0)
                break;
            n++;
        } else if (type == CT_REC_EXT) {
            if (s >= e)
                break;
            unsigned sub = *s++;
            if (ct_get_varint(&s, e, &a) != 0 || a > (uint64_t)(e - s))
                break;
            s += a;
            if (sub == CT_EXT_SAMPLE || sub == CT_EXT_SAMPLE_OF ||
                sub == CT_EXT_USER)
                n++;
            if (sub == CT_EXT_SWITCH)
                ls = (uint32_t)(rec - p) + 1;
        } else {
            break;
        }
        done = (size_t)(s - p);
    }
    if (complete)
        *complete = done;
    if (last_switch)
        *last_switch = ls;
    return n;
}

/* ------------------------------------------------- raw calls (the sender) */

#define rsys ct_rsys

static uint64_t now_ns(void)
{
    struct timespec ts;
    rsys(SYS_clock_gettime, CLOCK_MONOTONIC, (long)&ts, 0, 0, 0, 0);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void nap(int ms)
{
    rsys(SYS_poll, 0, 0, ms, 0, 0, 0);
}

static void say(const char *a, uint64_t num, const char *b)
{
    char *d = S.why;
    size_t cap = sizeof S.why - 1, n = 0;
    for (; *a && n < cap; a++)
        d[n++] = *a;
    if (b) {
        char digits[24];
        int k = 0;
        do
            digits[k++] = (char)('0' + num % 10);
        while ((num /= 10) && k < 24);
        while (k && n < cap)
            d[n++] = digits[--k];
        for (; *b && n < cap; b++)
            d[n++] = *b;
    }
    d[n] = '\0';
}

static void give_up(void)
{
    __atomic_store_n(&S.gone, 1, __ATOMIC_RELEASE);
}

/* --------------------------------------------------------------- sender */

static void walk(int final)
{
    uint64_t end = __atomic_load_n(&ct_proc.next_off, __ATOMIC_ACQUIRE);
    if (end > S.win_len)
        end = S.win_len;
    while (S.walk < end && S.npend < MAX_PENDING) {
        const struct ct_block_header *h =
            (const struct ct_block_header *)(S.view + S.walk);
        uint32_t magic = __atomic_load_n(&h->magic, __ATOMIC_ACQUIRE);
        uint32_t size = __atomic_load_n(&h->size, __ATOMIC_ACQUIRE);
        if (magic != CT_BLOCK_MAGIC || size < CT_BLOCK_ALIGN ||
            size % CT_BLOCK_ALIGN || S.walk + size > end) {
            if (!final)
                return;  /* reserved, header not written yet */
            S.walk += CT_BLOCK_ALIGN;  /* reserved, never started */
            continue;
        }
        S.pend[S.npend++] = (struct pending){.off = S.walk, .size = size,
                                             .snap_ns = now_ns()};
        S.walk += size;
    }
}

static void carry_add(uint32_t tid, uint64_t events)
{
    for (uint32_t i = 0; i < MAX_CARRY; i++)
        if (S.carry[i].tid == tid || S.carry[i].tid == 0) {
            S.carry[i].tid = tid;
            S.carry[i].events += events;
            return;
        }
}

static uint64_t carry_take(uint32_t tid)
{
    for (uint32_t i = 0; i < MAX_CARRY && S.carry[i].tid; i++)
        if (S.carry[i].tid == tid) {
            uint64_t n = S.carry[i].events;
            S.carry[i].events = 0;
            return n;
        }
    return 0;
}

static int closed(const struct ct_block_header *h)
{
    return (__atomic_load_n(&h->flags, __ATOMIC_ACQUIRE) & CT_BLOCK_CLOSED) != 0;
}

static void release(const struct pending *p)
{
    rsys(SYS_madvise, (long)(S.view + p->off), p->size, MADV_REMOVE, 0, 0, 0);
}

/* Drops the oldest closed EVENTS blocks while the closed blocks waiting
 * hold more than the backlog (the one in flight excepted).  Called only
 * while the listener takes nothing: a listener that keeps up loses
 * nothing, however fast the program. */
static void drop_excess(void)
{
    uint64_t held = 0;
    for (uint32_t i = 0; i < S.npend; i++) {
        const struct pending *p = &S.pend[i];
        if (!p->dropped && p->off != S.inflight &&
            closed((const void *)(S.view + p->off)))
            held += p->size;
    }
    for (uint32_t i = 0; i < S.npend && held > S.backlog; i++) {
        struct pending *p = &S.pend[i];
        const struct ct_block_header *h = (const void *)(S.view + p->off);
        if (p->dropped || p->off == S.inflight || !closed(h) ||
            h->kind != CT_BLOCK_EVENTS)
            continue;
        uint32_t used = h->used < p->size - CT_BLOCK_HEADER_SIZE
                            ? h->used : p->size - CT_BLOCK_HEADER_SIZE;
        uint64_t n = ct_stream_count_events((const uint8_t *)(h + 1), used,
                                            NULL, NULL);
        carry_add(h->tid, n);
        __atomic_fetch_add(&S.dropped_events, n, __ATOMIC_RELAXED);
        __atomic_fetch_add(&S.dropped_blocks, 1, __ATOMIC_RELEASE);
        p->dropped = 1;
        held -= p->size;
        release(p);
    }
}

/* Sends len bytes, waiting for the listener a tick at a time; meanwhile
 * new blocks are noted and the backlog is kept.  0, or -1 (gone). */
static int send_all(const void *buf, size_t len, int final)
{
    const uint8_t *p = buf;
    S.last_progress = now_ns();  /* a quiet spell before is not a stall */
    while (len) {
        long r = rsys(SYS_sendto, S.sock, (long)p, (long)len,
                      MSG_NOSIGNAL | MSG_DONTWAIT, 0, 0);
        if (r > 0) {
            p += r;
            len -= (size_t)r;
            S.last_progress = now_ns();
            continue;
        }
        if (r != -EAGAIN && r != -EINTR) {
            say(r == -EPIPE || r == -ECONNRESET
                    ? "the listener closed the connection"
                    : "the connection failed",
                0, NULL);
            give_up();
            return -1;
        }
        struct pollfd pfd = {.fd = S.sock, .events = POLLOUT};
        rsys(SYS_poll, (long)&pfd, 1, TICK_MS, 0, 0, 0);
        if (now_ns() - S.last_progress > S.timeout_ns) {
            say("the listener took no data for ", S.timeout_ns / 1000000,
                " ms");
            give_up();
            return -1;
        }
        walk(final);
        drop_excess();
    }
    return 0;
}

static int send_padded(const struct ct_block_header *h, const void *payload,
                       size_t len, int final)
{
    if (send_all(h, sizeof *h, final) < 0 ||
        send_all(payload, len, final) < 0)
        return -1;
    size_t pad = h->size - CT_BLOCK_HEADER_SIZE - len;
    while (pad) {
        size_t n = pad < sizeof S.zero ? pad : sizeof S.zero;
        if (send_all(S.zero, n, final) < 0)
            return -1;
        pad -= n;
    }
    return 0;
}

static uint32_t round_block(size_t payload)
{
    return (uint32_t)ct_align_up(CT_BLOCK_HEADER_SIZE + payload,
                                 CT_BLOCK_ALIGN);
}

/* Length of the written part of an open block: up to its last non-zero
 * byte, every byte of which is final (a thread writes in order). */
static size_t written(const uint8_t *payload, size_t cap)
{
    while (cap && payload[cap - 1] == 0)
        cap--;
    return cap;
}

static int send_block(struct pending *p, int is_closed, int final)
{
    const struct ct_block_header *live = (const void *)(S.view + p->off);
    struct ct_block_header h;
    memcpy(&h, live, sizeof h);
    size_t cap = p->size - CT_BLOCK_HEADER_SIZE;
    size_t len = is_closed ? (h.used < cap ? h.used : cap)
                           : written((const uint8_t *)(live + 1), cap);
    /* A stream carries the used part only; size says how much follows. */
    h.size = round_block(len);
    if (h.kind == CT_BLOCK_EVENTS)
        h.lost += carry_take(h.tid);
    S.inflight = p->off;
    int rc = send_padded(&h, live + 1, len, final);
    S.inflight = 0;
    if (rc == 0 && is_closed)
        release(p);
    return rc;
}

/* The records of an open block so far, when they grew and the previous
 * snapshot is a second old: a quiet thread's events reach the listener. */
static int send_snapshot(struct pending *p, uint64_t now, int final)
{
    if (now - p->snap_ns < SNAPSHOT_NS)
        return 0;
    const struct ct_block_header *live = (const void *)(S.view + p->off);
    if (live->kind != CT_BLOCK_EVENTS)
        return 0;
    const uint8_t *payload = (const uint8_t *)(live + 1);
    size_t complete;
    uint32_t ls;
    ct_stream_count_events(payload, written(payload,
                                            p->size - CT_BLOCK_HEADER_SIZE),
                           &complete, &ls);
    p->snap_ns = now;
    if (complete <= p->snap_len)
        return 0;
    struct ct_block_header h;
    memcpy(&h, live, sizeof h);
    h.kind = CT_BLOCK_STREAM;
    h.reserved = CT_STREAM_PARTIAL;
    h.flags = 0;
    h.used = (uint32_t)complete;
    h.last_switch = ls;
    h.size = round_block(complete);
    p->snap_len = (uint32_t)complete;
    return send_padded(&h, payload, complete, final);
}

static int tid_in(const uint32_t *set, uint32_t n, uint32_t tid)
{
    for (uint32_t i = 0; i < n; i++)
        if (set[i] == tid)
            return 1;
    return 0;
}

/* One pass over the blocks not yet sent, in file order.  A thread's
 * blocks keep their order: after one of its blocks that is still open,
 * its later blocks wait for the next pass. */
static int send_pending(int final)
{
    uint32_t open_tids[256], nopen = 0;
    int hold_all = 0;
    uint64_t now = now_ns();
    uint32_t j = 0;
    for (uint32_t i = 0; i < S.npend; i++) {
        struct pending *p = &S.pend[i];
        const struct ct_block_header *h = (const void *)(S.view + p->off);
        int is_closed = closed(h);
        uint32_t tid = h->tid;
        int held = !final && (hold_all || tid_in(open_tids, nopen, tid));
        if (!p->dropped && (is_closed || final) && !held) {
            if (send_block(p, is_closed, final) < 0)
                return -1;
            continue;
        }
        if (p->dropped)
            continue;
        if (!is_closed) {
            if (tid == 0 || nopen == 256)
                hold_all = 1;
            else if (!tid_in(open_tids, nopen, tid))
                open_tids[nopen++] = tid;
            if (!held && send_snapshot(p, now, final) < 0)
                return -1;
        }
        S.pend[j++] = *p;
    }
    /* Blocks noted while sending went in after the end. */
    S.npend = j;
    return 0;
}

static int send_header(uint32_t stream_kind)
{
    struct {
        struct ct_block_header b;
        uint8_t page[CT_FILE_HEADER_SIZE];
    } t;
    memcpy(t.page, S.view, sizeof t.page);
    struct ct_file_header *fh = (struct ct_file_header *)t.page;
    fh->lost += __atomic_load_n(&S.dropped_events, __ATOMIC_RELAXED);
    fh->flags |= CT_FILE_STREAM;
    if (!stream_kind)
        return send_all(t.page, sizeof t.page, 0);
    memset(&t.b, 0, sizeof t.b);
    ct_block_begin(&t.b, CT_BLOCK_STREAM, round_block(sizeof t.page), fh->pid,
                   0, fh->end_ticks);
    t.b.used = sizeof t.page;
    t.b.last_ticks = fh->end_ticks;
    t.b.flags = CT_BLOCK_CLOSED;
    t.b.reserved = stream_kind;
    return send_padded(&t.b, t.page, sizeof t.page, 1);
}

static int program_done(uint32_t *finished_ticks)
{
    if (ct_helper_program_gone(&S.helper))
        return 1;  /* exited or killed */
    const struct ct_file_header *fh = (const void *)S.view;
    if (__atomic_load_n(&fh->flags, __ATOMIC_ACQUIRE) & CT_FILE_FINISHED)
        return ++*finished_ticks > 2;  /* exec: the new image streams anew */
    *finished_ticks = 0;
    return 0;
}

static int sender_main(void *arg)
{
    (void)arg;
    /* Only the socket: a copy of the program's descriptors would keep its
     * pipes and files open. */
    ct_helper_close_others(&S.helper, S.sock);
    rsys(SYS_prctl, PR_SET_NAME, (long)"calltrace-send", 0, 0, 0, 0);
    uint32_t finished_ticks = 0;
    if (send_header(0) == 0) {
        for (;;) {
            int final = program_done(&finished_ticks);
            walk(final);
            if (send_pending(final) < 0)
                break;
            if (final) {
                send_header(CT_STREAM_TRAILER);
                break;
            }
            nap(TICK_MS);
        }
    }
    rsys(SYS_close, S.sock, 0, 0, 0, 0, 0);
    if (__atomic_load_n(&S.gone, __ATOMIC_ACQUIRE))
        rsys(SYS_madvise, (long)(S.view + CT_FILE_HEADER_SIZE),
             (long)(S.win_len - CT_FILE_HEADER_SIZE), MADV_REMOVE, 0, 0, 0);
    rsys(SYS_exit, 0, 0, 0, 0, 0, 0);
    return 0;
}

/* -------------------------------------------------------- program side */

int ct_stream_wanted(const char *output)
{
    return strncmp(output, "tcp:", 4) == 0 || strncmp(output, "unix:", 5) == 0;
}

static int wait_connected(int fd)
{
    struct pollfd pfd = {.fd = fd, .events = POLLOUT};
    int n = poll(&pfd, 1, CONNECT_MS);
    if (n == 0)
        return ETIMEDOUT;
    if (n < 0)
        return errno;
    int err = 0;
    socklen_t len = sizeof err;
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0)
        return errno;
    return err;
}

static int connect_addr(const struct sockaddr *sa, socklen_t len, int family,
                        int *err)
{
    int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) {
        *err = errno;
        return -1;
    }
    if (connect(fd, sa, len) == 0)
        return fd;
    *err = errno == EINPROGRESS ? wait_connected(fd) : errno;
    if (*err == 0)
        return fd;
    close(fd);
    return -1;
}

/* "tcp:HOST:PORT" ([v6] in brackets) or "unix:PATH".  A descriptor, or -1
 * with *err (EINVAL: the address is malformed). */
static int connect_to(const char *spec, int *err)
{
    *err = EINVAL;
    if (strncmp(spec, "unix:", 5) == 0) {
        struct sockaddr_un un = {.sun_family = AF_UNIX};
        size_t n = strlen(spec + 5);
        if (n == 0 || n >= sizeof un.sun_path)
            return -1;
        memcpy(un.sun_path, spec + 5, n);
        return connect_addr((struct sockaddr *)&un, sizeof un, AF_UNIX, err);
    }
    char host[256];
    const char *hp = spec + 4, *colon = strrchr(hp, ':');
    if (!colon || colon == hp || !colon[1] || (size_t)(colon - hp) >= sizeof host)
        return -1;
    memcpy(host, hp, (size_t)(colon - hp));
    host[colon - hp] = '\0';
    char *h = host;
    size_t hl = strlen(h);
    if (h[0] == '[' && hl > 2 && h[hl - 1] == ']') {
        h[hl - 1] = '\0';
        h++;
    }
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM,
                             .ai_flags = AI_NUMERICSERV};
    struct addrinfo *res;
    int rc = getaddrinfo(h, colon + 1, &hints, &res);
    if (rc != 0) {
        *err = rc == EAI_SYSTEM ? errno : EHOSTUNREACH;
        return -1;
    }
    int fd = -1;
    for (struct addrinfo *a = res; a && fd < 0; a = a->ai_next)
        fd = connect_addr(a->ai_addr, a->ai_addrlen, a->ai_family, err);
    freeaddrinfo(res);
    return fd;
}

/* Two views of one memfd, as large as the address space allows.  Under an
 * address space limit (ulimit -v, RLIMIT_AS) the first size that fits
 * would take most of what the program has left and fail its own
 * allocations: the views together take an eighth of the limit at most. */
static int map_window(void)
{
    uint64_t len = WINDOW_MAX;
    struct rlimit as;
    if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY &&
        as.rlim_cur / 16 < len)
        len = as.rlim_cur / 16;
    if (len < WINDOW_MIN)
        return ENOMEM;
    int fd = memfd_create("calltrace-stream", MFD_CLOEXEC);
    if (fd < 0)
        return errno;
    if (ct_proc.cfg.limit && ct_proc.cfg.limit + CT_FILE_HEADER_SIZE < len)
        len = (ct_proc.cfg.limit + CT_FILE_HEADER_SIZE + CT_BLOCK_ALIGN - 1) &
              ~(uint64_t)(CT_BLOCK_ALIGN - 1);
    int err = 0;
    for (; len >= WINDOW_MIN; len /= 2) {
        /* A memfd counts against the file size limit too. */
        struct ct_signal_hold g;
        ct_signal_hold(&g, SIGXFSZ);
        int sized = ftruncate(fd, (off_t)len) == 0;
        err = errno;
        ct_signal_release(&g);
        if (!sized)
            continue;
        void *a = mmap(NULL, len, PROT_READ | PROT_WRITE,
                       MAP_SHARED | MAP_NORESERVE, fd, 0);
        void *b = a == MAP_FAILED ? MAP_FAILED
                                  : mmap(NULL, len, PROT_READ | PROT_WRITE,
                                         MAP_SHARED | MAP_NORESERVE, fd, 0);
        if (b != MAP_FAILED) {
            S.win = a;
            S.view = b;
            S.win_len = len;
            close(fd);
            return 0;
        }
        err = errno;
        if (a != MAP_FAILED)
            munmap(a, len);
    }
    close(fd);
    return err ? err : ENOMEM;
}

/* A forked child drops what it inherited of its parent's stream. */
static void forget_parent(void)
{
    if (S.win)
        munmap(S.win, S.win_len);
    if (S.view)
        munmap(S.view, S.win_len);
    if (S.pend)
        munmap(S.pend, MAX_PENDING * sizeof *S.pend);
    memset(&S, 0, sizeof S);
}

static int start_sender(int sock)
{
    S.pend = mmap(NULL, MAX_PENDING * sizeof *S.pend, PROT_READ | PROT_WRITE,
                  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    void *stack = mmap(NULL, SENDER_STACK, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (S.pend == MAP_FAILED || stack == MAP_FAILED) {
        S.pend = NULL;
        return ENOMEM;
    }
    S.sock = sock;
    S.walk = CT_FILE_HEADER_SIZE;
    S.backlog = ct_proc.cfg.stream_backlog;
    S.timeout_ns = (uint64_t)ct_proc.cfg.stream_timeout_ms * 1000000ull;
    /* Not the program's child, every signal blocked (helper.c). */
    S.helper.fn = sender_main;
    S.helper.arg = NULL;
    S.helper.stack = stack;
    S.helper.stack_size = SENDER_STACK;
    return ct_helper_start(&S.helper);
}

int ct_stream_open(uint32_t ppid)
{
    forget_parent();
    snprintf(ct_proc.path, sizeof ct_proc.path, "%s", ct_proc.cfg.output);
    int err;
    int sock = connect_to(ct_proc.cfg.output, &err);
    if (sock < 0) {
        ct_fail(err == EINVAL ? "expected tcp:HOST:PORT or unix:PATH"
                              : "cannot connect",
                err == EINVAL ? 0 : err);
        return -1;
    }
    err = map_window();
    if (err) {
        close(sock);
        ct_fail("cannot map the stream window", err);
        return -1;
    }
    ct_proc.streaming = 1;
    ct_proc.have_file = 1;
    ct_proc.next_off = 0;
    if (ct_file_map_header(ppid) < 0) {
        close(sock);
        return -1;
    }
    ct_proc.hdr->flags |= CT_FILE_STREAM;
    err = start_sender(sock);
    close(sock);
    if (err) {
        ct_fail("cannot start the sender", err);
        return -1;
    }
    return 0;
}

/* What the sender has to say reaches stderr from the program, at a block
 * switch or at exit: the sender holds no descriptor of the program's. */
static void tell(void)
{
    if (__atomic_load_n(&S.dropped_blocks, __ATOMIC_ACQUIRE) &&
        !__atomic_exchange_n(&S.told_dropped, 1, __ATOMIC_ACQ_REL))
        ct_message("calltrace: the listener at %s is slower than the "
                   "program: whole blocks are dropped and counted as lost "
                   "events (CALLTRACE_STREAM_BACKLOG)", ct_proc.path);
    if (__atomic_load_n(&S.gone, __ATOMIC_ACQUIRE) &&
        !__atomic_exchange_n(&S.told_gone, 1, __ATOMIC_ACQ_REL))
        ct_fail(S.why, 0);
}

void *ct_stream_block(uint64_t off, uint32_t size)
{
    tell();
    if (size == 0 || ct_proc.failed)
        return NULL;
    if (off + size > S.win_len) {
        ct_fail("the stream window is full", 0);
        return NULL;
    }
    return S.win + off;
}
