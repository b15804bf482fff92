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

#include "preload/file/keeper.h"
#include "preload/tracer.h"

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

void ct_flight_setup(struct ct_file_header *h)
{
    release_ring();  /* a forked child starts a ring of its own */
    next_ticket = 0;
    copying = 0;
    snapshots = 0;
    uint64_t want = ct_proc.cfg.flight;
    if (!want)
        return;
    uint32_t size;
    uint64_t n = ct_flight_geometry(want, ct_proc.cfg.bufsize, &size);
    uint64_t bytes = n * size;
    /* The keeper makes the disk space for the whole ring now: a mapped
     * page past a full disk would raise SIGBUS later. */
    void *p = MAP_FAILED;
    int err = ct_keeper_map(h->header_size, bytes, &p);
    if (err)
        p = MAP_FAILED;
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
    return -2;
}

/* The header as the copy should have it: a view of a running process.
 * Static: snapshots are one at a time (copying) and a signal stack is
 * small. */
static uint8_t snap_header[CT_FILE_HEADER_SIZE];

static void fill_snap_header(void)
{
    struct ct_file_header *c = (struct ct_file_header *)snap_header;
    memcpy(snap_header, ct_proc.hdr, sizeof snap_header);
    c->flags = __atomic_load_n(&ct_proc.hdr->flags, __ATOMIC_RELAXED) |
               CT_FILE_SNAPSHOT;
    c->threads = __atomic_load_n(&ct_proc.threads, __ATOMIC_RELAXED);
    c->lost = __atomic_load_n(&ct_proc.lost, __ATOMIC_RELAXED);
}

/* The copy is made by the file keeper, from its own descriptor to a file
 * it creates: no descriptor number of the program's is used for either. */
static int copy_to_snapshot(char *name, size_t cap)
{
    for (int tries = 0; tries < 10000; tries++) {
        unsigned k = __atomic_add_fetch(&snapshots, 1, __ATOMIC_RELAXED);
        int w = snprintf(name, cap, "%s.snap%u", ct_proc.reopen, k);
        if (w < 0 || (size_t)w >= cap)
            return ENAMETOOLONG;
        int err = ct_keeper_copy(name, snap_header, 0, sizeof snap_header);
        if (err != EEXIST)
            return err;
    }
    return EEXIST;
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
    fill_snap_header();
    int err = copy_to_snapshot(name, cap);
    __atomic_store_n(&copying, 0, __ATOMIC_RELEASE);
    errno = err ? err : saved;
    return err ? -1 : 0;
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
