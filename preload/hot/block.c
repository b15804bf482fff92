/*
 * A thread's blocks: the records that close one and open the next
 * (OVERHEAD_START and END around the switch, STACK, the context mark,
 * LOST), the switch itself on the tracer's own stack, room for a record
 * of any size, and the size of a new block under the limits.  Called by
 * the slow path and the thread's life cycle (thread.c).
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload/base/budget.h"
#include "preload/filters/filter_state.h"
#include "preload/filters/filter.h"
#include "preload/patch/patch.h"
#include "preload/profile/profile_mode.h"
#include "preload/base/rawsys.h"
#include "preload/stream/supply.h"
#include "preload/hot/thread_private.h"
#include "preload/tracer.h"

/* Writes an EXT record at pos; the caller made sure it fits. */
void blk_put_ext(struct ct_thread *t, uint64_t now, uint8_t sub,
                    const void *payload, size_t len)
{
    uint8_t *p = ct_enc_ext_head(t->pos, ct_tick_delta(t, now), sub, len);
    if (len)
        memcpy(p, payload, len);
    t->pos = p + len;
}

static void put_lost_record(struct ct_thread *t, uint64_t now)
{
    uint8_t buf[10];
    size_t n = (size_t)(ct_put_varint(buf, t->lost_unrecorded) - buf);
    blk_put_ext(t, now, CT_EXT_LOST, buf, n);
    t->lost_unrecorded = 0;
}

/* Losses noticed during re-entry go into the block now that it is safe. */
static void fold_pending(struct ct_thread *t)
{
    uint64_t n = t->lost_pending;
    if (!n)
        return;
    t->lost_pending = 0;
    t->lost_unrecorded += n;
    if (t->blk)
        t->blk->lost += n;
}

void blk_count_lost(struct ct_thread *t, uint64_t n)
{
    ct_count_lost_global(n);
    t->lost_unrecorded += n;
    if (t->blk)
        t->blk->lost += n;  /* live: readable even if the process dies */
}

/* Closes the current block (which has CT_BLOCK_RESERVE bytes left for
 * these last records); close_block also unmaps it, or at a block switch
 * hands it to the supplier to unmap (overhead_start). */
void blk_seal(struct ct_thread *t, uint64_t now, uint32_t flags,
                       int overhead_start)
{
    struct ct_block_header *b = t->blk;
    fold_pending(t);
    if (t->lost_unrecorded)
        put_lost_record(t, now);
    if (overhead_start)
        blk_put_ext(t, now, CT_EXT_OVERHEAD_START, NULL, 0);
    if (flags & CT_BLOCK_LAST)
        blk_put_ext(t, now, CT_EXT_THREAD_END, NULL, 0);
    b->used = (uint32_t)(t->pos - (uint8_t *)b - CT_BLOCK_HEADER_SIZE);
    b->last_ticks = t->prev_ticks;
    __atomic_store_n(&b->flags, b->flags | CT_BLOCK_CLOSED | flags,
                     __ATOMIC_RELEASE);
}

void blk_close(struct ct_thread *t, uint64_t now, uint32_t flags,
                        int overhead_start)
{
    struct ct_block_header *b = t->blk;
    if (!b)
        return;
    blk_seal(t, now, flags, overhead_start);
    ct_budget_add(-(int64_t)(t->limit - (uint8_t *)b));
    if (!overhead_start || ct_supply_retire(t, b) < 0)
        munmap(b, (size_t)(t->limit - (uint8_t *)b));
    t->blk = NULL;
    t->pos = t->end = t->limit = NULL;
}

/* Where records must stop so the closing ones fit. */
uint8_t *blk_end(const struct ct_thread *t)
{
    return t->limit - CT_BLOCK_RESERVE;
}

/*
 * The thread's name, when the program gave it one (pthread_setname_np,
 * prctl): a THREAD_NAME record before the thread's end, so that the views
 * and `calltrace info` name it.  A thread that kept the program's name
 * gets none.  Read by raw system call, which leaves errno alone, and only
 * into room the block has (this may run in a crash handler).
 */
void blk_put_name(struct ct_thread *t)
{
    char name[16] = {0};
    if (!t->blk || ct_rsys(SYS_prctl, PR_GET_NAME, (long)name, 0, 0, 0, 0))
        return;
    size_t len = strnlen(name, sizeof name - 1);
    if (!len || strncmp(name, program_invocation_short_name, len + 1) == 0 ||
        t->pos + len + 16 > blk_end(t))
        return;
    blk_put_ext(t, ct_now(), CT_EXT_THREAD_NAME, name, len);
}

/* The `end` the hot path checks: the block's, or the next checkpoint at
 * which the slow path drains the switch ring. */
static uint8_t *check_end(const struct ct_thread *t)
{
    uint8_t *e = blk_end(t);
    if (!t->cpu.ring || e - t->pos <= (ptrdiff_t)CT_CPU_CHECK_BYTES)
        return e;
    return t->pos + CT_CPU_CHECK_BYTES;
}

/* A record listing the thread's open frames, outermost first: STACK
 * (sub, at block start, delta 0) or CONTEXT (its id first, dt since the
 * previous record).  Frames deeper than the shadow stack are written as 0. */
uint32_t blk_put_frames(struct ct_thread *t, uint8_t sub,
                                  uint64_t dt, const uint8_t *id, size_t idlen)
{
    size_t room = (size_t)(ct_room_end(t->end) - t->pos) - 24 - idlen;
    uint8_t *p = t->pos;
    uint8_t *start;
    /* Head and subtype, then a length that needs at most 5 bytes. */
    p = ct_put_varint(p, ct_head(dt, CT_REC_EXT));
    *p++ = sub;
    uint8_t *len_at = p;
    p += 5;
    start = p;
    if (idlen)
        memcpy(p, id, idlen);
    p += idlen;
    uint32_t written = 0;
    uint8_t *count_at = p;
    p += 5;
    uint8_t *lim = t->pos + room;
    for (uint32_t d = 0; d < t->depth && p + 10 <= lim; d++) {
        if (is_hidden(t, d))
            continue;
        p = ct_put_varint(p, d < ct_frames_kept(t) ? ct_frame_fn(t, d) : 0);
        written++;
    }
    /* Fixed-width (5 byte) varints for count and length, so they can be
     * filled in after the frames. */
    ct_put_varint5(count_at, written);
    ct_put_varint5(len_at, (uint32_t)(p - start));
    t->pos = p;
    return written;
}

/* The STACK record: frames open at block start so a reader can begin
 * here. */
uint32_t blk_put_stack(struct ct_thread *t)
{
    return blk_put_frames(t, CT_EXT_STACK, 0, NULL, 0);
}

/* In a coroutine (context.c): the block's STACK frames are that
 * context's, which a reader starting at this block must know. */
void blk_put_context_mark(struct ct_thread *t)
{
    if (!t->context)
        return;
    uint8_t id[10];
    size_t n = (size_t)(ct_put_varint(id, t->context) - id);
    blk_put_ext(t, t->prev_ticks, CT_EXT_CONTEXT, id, n);
}

/* Faults every page of a new block in now, inside the OVERHEAD bracket,
 * not on the hot path.  One madvise does it without a trap per page
 * (about a sixth less time in the switch); kernels before 5.14 refuse it
 * and get the pages touched one by one. */
static void prefault(uint8_t *nb, uint32_t size)
{
#ifdef MADV_POPULATE_WRITE
    int saved = errno;
    int rc = madvise(nb, size, MADV_POPULATE_WRITE);
    errno = saved;
    if (rc == 0)
        return;
#endif
    for (uint32_t off = 0; off < size; off += CT_BLOCK_ALIGN)
        ((volatile uint8_t *)nb)[off] = 0;
}

/* A thread's first block is small, so a short-lived thread or process
 * neither waits for a whole CALLTRACE_BUFSIZE block to be faulted in nor
 * keeps one.  It still holds the deepest STACK record (CT_MAX_DEPTH
 * frames of at most 10 bytes) and a quarter of itself for the record that
 * asked for it. */
#define CT_FIRST_BLOCK (64u << 10)

/* The size of the thread's next block, and in *least the smallest that
 * holds the STACK record, the record asked for and the closing ones. */
static uint32_t block_size(const struct ct_thread *t, size_t need,
                           size_t *least)
{
    uint32_t size = ct_proc.cfg.bufsize;
    if (__atomic_load_n(&t->seq, __ATOMIC_RELAXED) == 0 &&
        size > CT_FIRST_BLOCK && need <= CT_FIRST_BLOCK / 4)
        size = CT_FIRST_BLOCK;
    uint32_t depth = t->depth < CT_MAX_DEPTH ? t->depth : CT_MAX_DEPTH;
    *least = CT_BLOCK_HEADER_SIZE + 64 + 10 * (size_t)depth + need +
             2 * CT_BLOCK_RESERVE;
    if (*least > size)
        *least = size;
    return size;
}

/*
 * Maps the thread's next block, its size in *size.  Under an address-space
 * limit it shrinks to what the tracer's share leaves (budget.h), and a
 * block that cannot be mapped for now (no memory) is tried again at half
 * the size, down to the least that holds its records; what still cannot
 * be had is a gap (*limit_hit CT_BLOCK_RETRY).  The flight ring's slots
 * and the stream window have sizes and caps of their own.
 */
static uint8_t *new_block(struct ct_thread *t, size_t need, uint32_t *size,
                          int *limit_hit, int *populated)
{
    size_t least;
    *size = block_size(t, need, &least);
    int own = !ct_flight_slots && !ct_proc.streaming;
    uint8_t *nb = ct_supply_take(t, *size, populated);
    if (nb)
        return nb;
    for (uint32_t failed = 0;; failed = *size) {
        if (own && !(*size = (uint32_t)ct_budget_block(*size, least))) {
            *limit_hit = CT_BLOCK_RETRY;
            ct_budget_refused();
            return NULL;
        }
        if (failed && *size >= failed)
            return NULL;  /* no smaller size to try: *limit_hit is set */
        if ((nb = ct_file_new_block(*size, limit_hit))) {
            ct_supply_own_block(t);
            if (own)
                ct_budget_block_result(*size, 1);
            return nb;
        }
        if (!own || *limit_hit != CT_BLOCK_RETRY || !ct_budget_limited())
            return NULL;
        ct_budget_block_result(*size, 0);
    }
}

/* Whether the exiting thread has ended t (ct_threads_end_others). */
int blk_thread_ended(const struct ct_thread *t)
{
    return __atomic_load_n(&t->seq, __ATOMIC_ACQUIRE) & CT_SEQ_ENDED;
}

/* The number of a new block of t, or -1 once t has been ended: the block
 * the exiting thread wrote for it must stay its last, in number and in
 * time.  One exchange decides between the thread and the exiting one. */
static int64_t take_seq(struct ct_thread *t)
{
    uint32_t cur = __atomic_load_n(&t->seq, __ATOMIC_RELAXED);
    do {
        if (cur & CT_SEQ_ENDED)
            return -1;
    } while (!__atomic_compare_exchange_n(&t->seq, &cur, cur + 1, 1,
                                          __ATOMIC_ACQ_REL, __ATOMIC_RELAXED));
    return cur;
}

/* How long a thread waits before it tries again for a block that could
 * not be had for now (CT_BLOCK_RETRY). */
#define RETRY_NS 10000000u  /* 10 ms */

/*
 * Moves the thread to a fresh block: OVERHEAD_START closes the old one,
 * the new one starts with STACK and then OVERHEAD_END, so the time spent
 * here is accounted as the tracer's.  Returns -1 when no block can be had
 * (size limit, failure, or none for now); the old block then stays
 * current.
 */
static int switch_block_here(struct ct_thread *t, size_t need);

struct switch_args {
    struct ct_thread *t;
    size_t need;
    int rc;
};

static void switch_call(void *p)
{
    struct switch_args *a = p;
    a->rc = switch_block_here(a->t, a->need);
}

/* On the tracer's stack: a block switch opens, extends and maps the file,
 * and may speak; the program's stack may be a small signal stack. */
int blk_switch(struct ct_thread *t, size_t need)
{
    struct switch_args a = {t, need, -1};
    ct_deep_call(t, switch_call, &a, 1);
    return a.rc;
}

static int switch_block_here(struct ct_thread *t, size_t need)
{
    uint64_t now = ct_now();
    if ((t->flags & CT_T_NOBLOCK) || blk_thread_ended(t))
        return -1;
    /* A block that could not be had a moment ago (file.c), or none after
     * a failure: the events till the next try are counted lost by the
     * caller, without two system calls each to get here. */
    if (ct_unlikely(t->retry_at) && now < t->retry_at)
        return -1;
    uint32_t size;
    int limit_hit = 0, populated = 0;
    uint8_t *nb = new_block(t, need, &size, &limit_hit, &populated);
    if (!nb && limit_hit == CT_BLOCK_RING_FULL && t->blk) {
        /* Every slot of the flight ring is a live thread's block (more
         * threads than the ring was sized for): the thread closes its own,
         * which frees that slot, and takes one again.  It keeps its newest
         * events at the cost of its older ones, as the ring should; had it
         * kept its block, every event after it would be lost, each one
         * trying the whole ring again. */
        blk_close(t, now, 0, 1);
        nb = new_block(t, need, &size, &limit_hit, &populated);
    }
    int64_t seq = nb ? take_seq(t) : -1;
    if (nb && seq < 0) {
        /* ended meanwhile: the block stays empty, which readers skip */
        munmap(nb, size);
        ct_budget_add(-(int64_t)size);
        nb = NULL;
    }
    if (!nb) {
        if (limit_hit == CT_BLOCK_LIMIT)
            t->flags |= CT_T_NOBLOCK;
        else if (limit_hit == CT_BLOCK_RETRY ||
                 limit_hit == CT_BLOCK_RING_FULL || ct_proc.failed)
            t->retry_at = now + ct_ns_to_ticks(RETRY_NS);
        /* every later event comes back here */
        t->end = t->pos ? ct_hot_end(t->pos) : NULL;
        return -1;
    }
    t->retry_at = 0;
    ct_budget_add(size);
    blk_close(t, now, 0, 1);
    if (!populated)
        prefault(nb, size);
    ct_clock_checkpoint();
    struct ct_block_header *b = (struct ct_block_header *)nb;
    ct_block_begin(b, CT_BLOCK_EVENTS, size, t->tid, (uint32_t)seq, now);
    t->blk = b;
    t->limit = nb + size;
    t->end = ct_hot_end(blk_end(t));
    t->pos = nb + CT_BLOCK_HEADER_SIZE;
    t->prev_ticks = now;
    t->prev_fn = t->prev_site = 0;
    b->open_depth = blk_put_stack(t);
    fold_pending(t);
    if (t->lost_unrecorded) {
        b->lost += t->lost_unrecorded;
        put_lost_record(t, now);
    }
    /* Before E: waking the supplier can be a system call, the tracer's
     * time, which after E would land in the calling function's. */
    ct_supply_kick();
    blk_put_ext(t, ct_now(), CT_EXT_OVERHEAD_END, NULL, 0);
    /* After E: a block's second record stays OVERHEAD_END (readers rely
     * on it), and the drain reads memory only. */
    ct_cpu_record(t, ct_room_end(t->end), 1);
    blk_put_context_mark(t);
    t->flags &= ~CT_T_CTX_GAP;
    t->end = ct_hot_end(check_end(t));
    return 0;
}

int ct_thread_room(struct ct_thread *t, size_t need)
{
    return blk_ensure_room(t, need);
}

size_t ct_thread_room_left(const struct ct_thread *t)
{
    return t->blk && t->pos < blk_end(t) ? (size_t)(blk_end(t) - t->pos)
                                           : 0;
}

void ct_thread_count_lost(struct ct_thread *t, uint64_t n)
{
    blk_count_lost(t, n);
}

/* Makes room for need bytes below end; 0 when there is room.  An `end`
 * short of the block's is a checkpoint for the switch ring (cputime.c). */
int blk_ensure_room(struct ct_thread *t, size_t need)
{
    int gap = t->flags & CT_T_CTX_GAP;
    if (t->blk && !gap && t->pos + need <= ct_room_end(t->end))
        return 0;
    if (t->blk && !gap && t->cpu.ring && ct_room_end(t->end) < blk_end(t) &&
        !(t->flags & CT_T_NOBLOCK) && !ct_proc.failed) {
        if (ct_cpu_pending(t))
            ct_cpu_record(t, blk_end(t), 0);
        t->end = ct_hot_end(check_end(t));
        if (t->pos + need <= ct_room_end(t->end))
            return 0;
    }
    return blk_switch(t, need);
}

