/*
 * The flight recorder (CALLTRACE_FLIGHT=64M): the newest N bytes of a
 * process's trace, as a ring of fixed slots right after the file header.
 *
 *   [header][slot 0][slot 1]...[slot n-1][MAPS blocks...]
 *
 * Each EVENTS block takes one slot; when the ring is full the oldest slot
 * is taken again.  The file on disk is the ring itself, written through
 * the same shared mappings as ever, so a crash or SIGKILL keeps it.  MAPS
 * blocks go after the ring and are never overwritten: every surviving
 * address still has a name.
 *
 * A slot whose block a live thread still writes is never handed out: the
 * ring skips it (a thread that sits on one block for long keeps its
 * slot).  So the ring needs more slots than threads; docs/tracer.md asks
 * for at least 2 x threads x CALLTRACE_BUFSIZE.  A taken slot is emptied
 * header first, so a reader (which walks the ring slot by slot) never
 * sees a header over stale records.
 *
 * Snapshots (CALLTRACE_FLIGHT_SIGNAL, `calltrace control PID snapshot`)
 * copy the file as it is to <trace>.snapN while the program runs on.
 * During the copy no slot is taken again: a thread that needs a new block
 * then loses its events, counted as ever.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tracer.h"

uint32_t ct_flight_slots;
static uint32_t slot_size;
static uint8_t *ring;          /* the whole ring, mapped shared            */
static uint64_t *claims;       /* per slot: ticket + 1 of its last taker   */
static uint64_t next_ticket;
static int copying;            /* a snapshot is being written              */
static unsigned snapshots;

static void release_ring(void)
{
    if (ring)
        munmap(ring, (size_t)ct_flight_slots * slot_size);
    if (claims)
        munmap(claims, (size_t)ct_flight_slots * sizeof *claims);
    ring = NULL;
    claims = NULL;
    ct_flight_slots = 0;
}

/* Disk space for the whole ring now: a mapped page past a full disk would
 * raise SIGBUS later. */
static int allocate(int fd, uint64_t off, uint64_t len)
{
    if (fallocate(fd, 0, (off_t)off, (off_t)len) == 0)
        return 0;
    if (errno != EOPNOTSUPP && errno != ENOSYS)
        return errno;
    if (ftruncate(fd, (off_t)(off + len)) != 0)
        return errno;
    ct_proc.no_fallocate = 1;
    ct_proc.file_len = off + len;
    return 0;
}

void ct_flight_setup(struct ct_file_header *h)
{
    release_ring();  /* a forked child starts a ring of its own */
    next_ticket = 0;
    copying = 0;
    snapshots = 0;
    uint64_t want = ct_proc.cfg.flight;
    if (!want)
        return;
    uint32_t size = ct_proc.cfg.bufsize;
    if (size < CT_FLIGHT_MIN_SLOT)
        size = CT_FLIGHT_MIN_SLOT;
    uint64_t n = want / size;
    if (n < CT_FLIGHT_MIN_SLOTS)
        n = CT_FLIGHT_MIN_SLOTS;
    if (n > UINT32_MAX / 2)
        n = UINT32_MAX / 2;
    uint64_t bytes = n * size;
    int fd = ct_file_reopen();
    if (fd < 0)
        return;
    struct ct_signal_hold g;
    ct_signal_hold(&g, SIGXFSZ);
    int err = allocate(fd, h->header_size, bytes);
    ct_signal_release(&g);
    void *p = MAP_FAILED;
    if (!err) {
        p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
                 h->header_size);
        if (p == MAP_FAILED)
            err = errno;
    }
    close(fd);
    void *c = err ? MAP_FAILED
                  : mmap(NULL, n * sizeof *claims, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (c == MAP_FAILED) {
        if (p != MAP_FAILED)
            munmap(p, bytes);
        ct_fail("cannot lay out the flight recorder ring", err ? err : errno);
        return;
    }
    ring = p;
    claims = c;
    slot_size = size;
    h->flight_slot_size = size;
    h->flight_slots = (uint32_t)n;
    __atomic_fetch_or(&h->flags, CT_FILE_FLIGHT, __ATOMIC_RELAXED);
    /* MAPS blocks go after the ring. */
    ct_proc.next_off = h->header_size + bytes;
    __atomic_store_n(&ct_flight_slots, (uint32_t)n, __ATOMIC_RELEASE);
}

/* The slot's block is done with, or the slot was never taken. */
static int slot_free(uint32_t s, uint64_t claim)
{
    if (!claim)
        return 1;
    const struct ct_block_header *b =
        (const struct ct_block_header *)(ring + (size_t)s * slot_size);
    return (__atomic_load_n(&b->flags, __ATOMIC_ACQUIRE) & CT_BLOCK_CLOSED) &&
           __atomic_load_n(&b->magic, __ATOMIC_RELAXED) == CT_BLOCK_MAGIC;
}

int ct_flight_reserve(uint32_t size, uint64_t *off)
{
    uint32_t n = ct_flight_slots;
    if (size > slot_size || __atomic_load_n(&copying, __ATOMIC_ACQUIRE))
        return -1;
    for (uint32_t tries = 0; tries < n; tries++) {
        uint64_t t = __atomic_fetch_add(&next_ticket, 1, __ATOMIC_RELAXED);
        uint32_t s = (uint32_t)(t % n);
        uint64_t c = __atomic_load_n(&claims[s], __ATOMIC_ACQUIRE);
        if (!slot_free(s, c))
            continue;  /* a live thread's block: kept */
        if (!__atomic_compare_exchange_n(&claims[s], &c, t + 1, 0,
                                         __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
            continue;
        uint8_t *b = ring + (size_t)s * slot_size;
        if (c) {
            __atomic_fetch_add(&ct_proc.hdr->flight_overwritten, 1,
                               __ATOMIC_RELAXED);
            /* Header first: until the new one is written, a reader skips
             * the slot instead of reading old records under a new head. */
            memset(b, 0, CT_BLOCK_HEADER_SIZE);
            __atomic_signal_fence(__ATOMIC_SEQ_CST);
            memset(b + CT_BLOCK_HEADER_SIZE, 0, size - CT_BLOCK_HEADER_SIZE);
        }
        *off = (uint64_t)ct_proc.hdr->header_size + (uint64_t)s * slot_size;
        return 0;
    }
    return -1;
}

/* Whole-file copy with the kernel's help where it can; a plain loop
 * through a mapped buffer otherwise (no stack: a signal stack is small). */
static int copy_file(int in, int out, uint64_t len)
{
    loff_t ioff = 0, ooff = 0;
    while ((uint64_t)ioff < len) {
        ssize_t n = copy_file_range(in, &ioff, out, &ooff,
                                    (size_t)(len - (uint64_t)ioff), 0);
        if (n > 0)
            continue;
        if (n == 0)
            return 0;
        if (errno == EINTR)
            continue;
        break;
    }
    if ((uint64_t)ioff >= len)
        return 0;
    enum { BUF = 1 << 20 };
    uint8_t *buf = mmap(NULL, BUF, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (buf == MAP_FAILED)
        return -1;
    int rc = 0;
    while ((uint64_t)ioff < len && rc == 0) {
        ssize_t n = pread(in, buf, BUF, ioff);
        if (n <= 0) {
            if (n < 0 && errno == EINTR)
                continue;
            break;
        }
        for (ssize_t w = 0; w < n;) {
            ssize_t k = pwrite(out, buf + w, (size_t)(n - w), ooff);
            if (k < 0 && errno == EINTR)
                continue;
            if (k <= 0) {
                rc = -1;
                break;
            }
            w += k;
            ooff += k;
        }
        ioff += n;
    }
    munmap(buf, BUF);
    return rc;
}

static int open_snapshot(char *name, size_t cap)
{
    for (int tries = 0; tries < 10000; tries++) {
        unsigned k = __atomic_add_fetch(&snapshots, 1, __ATOMIC_RELAXED);
        int w = snprintf(name, cap, "%s.snap%u", ct_proc.reopen, k);
        if (w < 0 || (size_t)w >= cap) {
            errno = ENAMETOOLONG;
            return -1;
        }
        int fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC |
                      O_NOFOLLOW | O_NOCTTY, 0644);
        if (fd >= 0 || errno != EEXIST)
            return fd;
    }
    errno = EEXIST;
    return -1;
}

int ct_flight_snapshot(char *name, size_t cap)
{
    int saved = errno;
    if (!ct_proc.have_file || !ct_proc.hdr || ct_proc.failed) {
        errno = ENOENT;
        return -1;
    }
    if (__atomic_exchange_n(&copying, 1, __ATOMIC_ACQ_REL)) {
        errno = EBUSY;
        return -1;
    }
    int rc = -1, err = 0;
    /* A snapshot past ulimit -f fails, with EFBIG. */
    struct ct_signal_hold g;
    ct_signal_hold(&g, SIGXFSZ);
    int in = ct_file_reopen();
    int out = in < 0 ? -1 : open_snapshot(name, cap);
    struct stat st;
    if (in < 0 || out < 0 || fstat(in, &st) != 0) {
        err = errno;
    } else if (copy_file(in, out, (uint64_t)st.st_size) != 0) {
        err = errno;
        unlink(name);
    } else {
        /* The copy says what it is: a view of a running process. */
        uint32_t flags = __atomic_load_n(&ct_proc.hdr->flags,
                                         __ATOMIC_RELAXED) | CT_FILE_SNAPSHOT;
        uint32_t threads = __atomic_load_n(&ct_proc.threads,
                                           __ATOMIC_RELAXED);
        uint64_t lost = __atomic_load_n(&ct_proc.lost, __ATOMIC_RELAXED);
        if (pwrite(out, &flags, sizeof flags,
                   offsetof(struct ct_file_header, flags)) != sizeof flags ||
            pwrite(out, &threads, sizeof threads,
                   offsetof(struct ct_file_header, threads)) !=
                sizeof threads ||
            pwrite(out, &lost, sizeof lost,
                   offsetof(struct ct_file_header, lost)) != sizeof lost)
            err = errno;
        else
            rc = 0;
    }
    if (out >= 0)
        close(out);
    if (in >= 0)
        close(in);
    ct_signal_release(&g);
    __atomic_store_n(&copying, 0, __ATOMIC_RELEASE);
    errno = rc ? (err ? err : EIO) : saved;
    return rc;
}

static void snapshot_handler(int sig)
{
    (void)sig;
    int saved = errno;
    char name[CT_PATH_MAX + 4096 + 64];
    ct_flight_snapshot(name, sizeof name);
    errno = saved;
}

static void snapshot_yield(int sig)
{
    ct_message("calltrace: the program installed its own handler for "
               "SIG%s (CALLTRACE_FLIGHT_SIGNAL): its handler wins; the "
               "signal no longer takes a snapshot", sigabbrev_np(sig));
}

/* Only a signal the program leaves alone; the program's first handler for
 * it replaces ours (signals.c). */
void ct_flight_start(void)
{
    int sig = ct_proc.cfg.flight_signal;
    if (!sig)
        return;
    struct sigaction cur;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = snapshot_handler;
    sa.sa_flags = SA_RESTART | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    if (ct_sig_real(sig, NULL, &cur) != 0 || (cur.sa_flags & SA_SIGINFO) ||
        (cur.sa_handler != SIG_DFL && cur.sa_handler != SIG_IGN) ||
        ct_sig_take(sig, &sa, CT_SIG_YIELD, snapshot_yield) != 0)
        ct_message("calltrace: the program already handles SIG%s "
                   "(CALLTRACE_FLIGHT_SIGNAL): its handler wins; the signal "
                   "takes no snapshot", sigabbrev_np(sig));
}
