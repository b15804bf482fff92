/*
 * Per-thread state and the slow path of the hooks: creating a thread's
 * state, switching blocks, tracing off (hidden frames), re-entry, lost
 * events, TOGGLE and other EXT records.  Every piece of work done here on
 * the application's thread that takes real time (mapping a block) is
 * bracketed by OVERHEAD_START / OVERHEAD_END records so the analyzer can
 * take it out of the program's figures.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "filter.h"
#include "supply.h"
#include "tracer.h"

uint64_t ct_global_word = 1;  /* off until the tracer has started */
int ct_enabled = 1;

static struct ct_thread *registry;
static int registry_lock;
/* Where ct_self points once a thread has ended, so late events are
 * dropped (and counted) instead of touching freed memory. */
static struct ct_thread dead_thread = {.stop = CT_STOP_DEAD,
                                       .expect = ~0ull,
                                       .flags = CT_T_DEAD};

void ct_global_update(void)
{
    int off = !ct_enabled ||
              (ct_proc.failed && !ct_proc.count_after_failure) ||
              ct_proc.started != 2 || ct_proc.calls_off;
    uint64_t cur = __atomic_load_n(&ct_global_word, __ATOMIC_RELAXED);
    uint64_t next;
    do {
        if ((int)(cur & 1) == off)
            return;
        next = ((cur >> 1) + 1) << 1 | (uint64_t)off;
    } while (!__atomic_compare_exchange_n(&ct_global_word, &cur, next, 1,
                                          __ATOMIC_RELEASE, __ATOMIC_RELAXED));
}

void ct_threads_lock(void)
{
    while (__atomic_exchange_n(&registry_lock, 1, __ATOMIC_ACQUIRE))
        __builtin_ia32_pause();
}

void ct_threads_unlock(void)
{
    __atomic_store_n(&registry_lock, 0, __ATOMIC_RELEASE);
}

static int is_hidden(const struct ct_thread *t, uint32_t d)
{
    return d < CT_MAX_DEPTH && (t->hidden[d / 64] >> (d % 64) & 1);
}

static uint32_t stop_bits(const struct ct_thread *t)
{
    return (t->region ? CT_STOP_REGION : 0) |
           (t->hidden_count ? CT_STOP_HIDDEN : 0) |
           (t->flags & CT_T_DEAD ? CT_STOP_DEAD : 0) | ct_filter_stop |
           (ct_clock_is_tsc ? 0 : CT_STOP_MONO) |
           (ct_proc.count_after_failure ? CT_STOP_FAILED : 0);
}

#define tick_delta ct_tick_delta

/* Writes an EXT record at pos; the caller made sure it fits. */
static void put_ext(struct ct_thread *t, uint64_t now, uint8_t sub,
                    const void *payload, size_t len)
{
    uint8_t *p = ct_enc_ext_head(t->pos, tick_delta(t, now), sub, len);
    if (len)
        memcpy(p, payload, len);
    t->pos = p + len;
}

static void put_lost_record(struct ct_thread *t, uint64_t now)
{
    uint8_t buf[10];
    size_t n = (size_t)(ct_put_varint(buf, t->lost_unrecorded) - buf);
    put_ext(t, now, CT_EXT_LOST, buf, n);
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

static void count_lost(struct ct_thread *t, uint64_t n)
{
    ct_count_lost_global(n);
    t->lost_unrecorded += n;
    if (t->blk)
        t->blk->lost += n;  /* live: readable even if the process dies */
}

/* Closes the current block (which has CT_BLOCK_RESERVE bytes left for
 * these last records) and unmaps it, or at a block switch hands it to the
 * supplier to unmap (overhead_start). */
static void close_block(struct ct_thread *t, uint64_t now, uint32_t flags,
                        int overhead_start)
{
    struct ct_block_header *b = t->blk;
    if (!b)
        return;
    fold_pending(t);
    if (t->lost_unrecorded)
        put_lost_record(t, now);
    if (overhead_start)
        put_ext(t, now, CT_EXT_OVERHEAD_START, NULL, 0);
    if (flags & CT_BLOCK_LAST)
        put_ext(t, now, CT_EXT_THREAD_END, NULL, 0);
    b->used = (uint32_t)(t->pos - (uint8_t *)b - CT_BLOCK_HEADER_SIZE);
    b->last_ticks = t->prev_ticks;
    __atomic_store_n(&b->flags, b->flags | CT_BLOCK_CLOSED | flags,
                     __ATOMIC_RELEASE);
    if (!overhead_start || ct_supply_retire(t, b) < 0)
        munmap(b, (size_t)(t->limit - (uint8_t *)b));
    t->blk = NULL;
    t->pos = t->end = t->limit = NULL;
}

/* Where records must stop so the closing ones fit. */
static uint8_t *block_end(const struct ct_thread *t)
{
    return t->limit - CT_BLOCK_RESERVE;
}

/* The `end` the hot path checks: the block's, or the next checkpoint at
 * which the slow path drains the switch ring. */
static uint8_t *check_end(const struct ct_thread *t)
{
    uint8_t *e = block_end(t);
    if (!t->cpu.ring || e - t->pos <= (ptrdiff_t)CT_CPU_CHECK_BYTES)
        return e;
    return t->pos + CT_CPU_CHECK_BYTES;
}

/* The STACK record: frames open at block start so a reader can begin
 * here.  Frames deeper than the shadow stack are written as 0. */
static uint32_t put_stack_record(struct ct_thread *t)
{
    size_t room = (size_t)(ct_room_end(t->end) - t->pos) - 24;
    uint8_t *p = t->pos;
    uint8_t *start;
    /* Head and subtype, then a length that needs at most 5 bytes. */
    p = ct_put_varint(p, ct_head(0, CT_REC_EXT));
    *p++ = CT_EXT_STACK;
    uint8_t *len_at = p;
    p += 5;
    start = p;
    uint32_t written = 0;
    uint8_t *count_at = p;
    p += 5;
    uint8_t *lim = t->pos + room;
    for (uint32_t d = 0; d < t->depth && p + 10 <= lim; d++) {
        if (is_hidden(t, d))
            continue;
        p = ct_put_varint(p, d < CT_MAX_DEPTH ? t->stack[d] : 0);
        written++;
    }
    /* Fixed-width (5 byte) varints for count and length, so they can be
     * filled in after the frames. */
    for (int i = 0; i < 5; i++)
        count_at[i] = (uint8_t)((written >> (7 * i)) & 0x7f) | (i < 4 ? 0x80 : 0);
    uint32_t len = (uint32_t)(p - start);
    for (int i = 0; i < 5; i++)
        len_at[i] = (uint8_t)((len >> (7 * i)) & 0x7f) | (i < 4 ? 0x80 : 0);
    t->pos = p;
    return written;
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

static uint32_t block_size(const struct ct_thread *t, size_t need)
{
    uint32_t size = ct_proc.cfg.bufsize;
    if (t->seq == 0 && size > CT_FIRST_BLOCK && need <= CT_FIRST_BLOCK / 4)
        return CT_FIRST_BLOCK;
    return size;
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
static int switch_block(struct ct_thread *t, size_t need)
{
    uint64_t now = ct_now();
    if (t->flags & CT_T_NOBLOCK)
        return -1;
    /* A block that could not be had a moment ago (file.c): the events till
     * the next try are counted lost by the caller. */
    if (ct_unlikely(t->retry_at) && now < t->retry_at)
        return -1;
    uint32_t size = block_size(t, need);
    int limit_hit = 0, populated;
    uint8_t *nb = ct_supply_take(t, size, &populated);
    if (!nb && (nb = ct_file_new_block(size, &limit_hit)))
        ct_supply_own_block(t);
    if (!nb) {
        if (limit_hit == CT_BLOCK_LIMIT)
            t->flags |= CT_T_NOBLOCK;
        else if (limit_hit == CT_BLOCK_RETRY)
            t->retry_at = now + ct_ns_to_ticks(RETRY_NS);
        /* every later event comes back here */
        t->end = t->pos ? ct_hot_end(t->pos) : NULL;
        return -1;
    }
    t->retry_at = 0;
    close_block(t, now, 0, 1);
    if (!populated)
        prefault(nb, size);
    ct_clock_checkpoint();
    struct ct_block_header *b = (struct ct_block_header *)nb;
    b->magic = CT_BLOCK_MAGIC;
    b->kind = CT_BLOCK_EVENTS;
    b->header_size = CT_BLOCK_HEADER_SIZE;
    b->size = size;
    b->tid = t->tid;
    /* Atomic: the exiting thread may take a number for this thread's
     * last block at the same time (ct_threads_end_others). */
    b->seq = __atomic_fetch_add(&t->seq, 1, __ATOMIC_RELAXED);
    b->first_ticks = now;
    t->blk = b;
    t->limit = nb + size;
    t->end = ct_hot_end(block_end(t));
    t->pos = nb + CT_BLOCK_HEADER_SIZE;
    t->prev_ticks = now;
    t->prev_fn = t->prev_site = 0;
    b->open_depth = put_stack_record(t);
    fold_pending(t);
    if (t->lost_unrecorded) {
        b->lost += t->lost_unrecorded;
        put_lost_record(t, now);
    }
    put_ext(t, ct_now(), CT_EXT_OVERHEAD_END, NULL, 0);
    /* After E: a block's second record stays OVERHEAD_END (readers rely
     * on it), and the drain reads memory only. */
    ct_cpu_record(t, ct_room_end(t->end), 1);
    t->end = ct_hot_end(check_end(t));
    ct_supply_kick();
    return 0;
}

static int ensure_room(struct ct_thread *t, size_t need);

int ct_thread_room(struct ct_thread *t, size_t need)
{
    return ensure_room(t, need);
}

size_t ct_thread_room_left(const struct ct_thread *t)
{
    return t->blk && t->pos < block_end(t) ? (size_t)(block_end(t) - t->pos)
                                           : 0;
}

void ct_thread_count_lost(struct ct_thread *t, uint64_t n)
{
    count_lost(t, n);
}

/* Makes room for need bytes below end; 0 when there is room.  An `end`
 * short of the block's is a checkpoint for the switch ring (cputime.c). */
static int ensure_room(struct ct_thread *t, size_t need)
{
    if (t->blk && t->pos + need <= ct_room_end(t->end))
        return 0;
    if (t->blk && t->cpu.ring && ct_room_end(t->end) < block_end(t) &&
        !(t->flags & CT_T_NOBLOCK) && !ct_proc.failed) {
        if (ct_cpu_pending(t))
            ct_cpu_record(t, block_end(t), 0);
        t->end = ct_hot_end(check_end(t));
        if (t->pos + need <= ct_room_end(t->end))
            return 0;
    }
    return switch_block(t, need);
}

static void register_thread(struct ct_thread *t)
{
    ct_threads_lock();
    t->next = registry;
    t->prev = NULL;
    if (registry)
        registry->prev = t;
    registry = t;
    ct_threads_unlock();
}

static void unregister_thread(struct ct_thread *t)
{
    ct_threads_lock();
    if (t->prev)
        t->prev->next = t->next;
    else if (registry == t)
        registry = t->next;
    if (t->next)
        t->next->prev = t->prev;
    ct_threads_unlock();
}

static pthread_key_t thread_key;
static int thread_key_ok;

static void make_key(void)
{
    thread_key_ok = pthread_key_create(&thread_key, ct_thread_key_dtor) == 0;
}

static struct ct_thread *thread_create(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    void *m = mmap(NULL, sizeof(struct ct_thread), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return NULL;
    struct ct_thread *t = m;
    t->tid = (uint32_t)syscall(SYS_gettid);
    t->expect = ~0ull;
    t->seen_word = ~0ull;
    t->last_on = 1;
    ct_cpu_thread_start(t);
    pthread_once(&once, make_key);
    if (thread_key_ok)
        pthread_setspecific(thread_key, t);
    register_thread(t);
    __atomic_fetch_add(&ct_proc.threads, 1, __ATOMIC_RELAXED);
    ct_self = t;
    return t;
}

/* Set while the calling thread's state is being made: an instrumented
 * signal handler that interrupts the making (perf_event_open, mmap and the
 * registry take a while) finds ct_self still NULL, and must not make a
 * second state for the same thread, which would never be ended. */
static __thread int making __attribute__((tls_model("initial-exec")));

struct ct_thread *ct_thread_get(void)
{
    struct ct_thread *t = ct_self;
    if (t)
        return t->flags & CT_T_DEAD ? NULL : t;
    if (making)
        return NULL;
    if (ct_proc.started != 2) {
        if (!&ct_autostart || ct_proc.started != 0)
            return NULL;
        ct_process_start();
        if (ct_proc.started != 2)
            return NULL;
        if (ct_self)
            return ct_self;
    }
    making = 1;
    ct_signal_fence();
    t = thread_create();
    ct_signal_fence();
    making = 0;
    return t;
}

/* Catches up with ct_global_word: TOGGLE record, hot-path expectation. */
static void sync_global(struct ct_thread *t)
{
    uint64_t w = __atomic_load_n(&ct_global_word, __ATOMIC_ACQUIRE);
    if (w == t->seen_word)
        return;
    t->seen_word = w;
    int on = !(w & 1);
    t->expect = on ? w : ~0ull;
    if (on == t->last_on || ct_proc.failed)
        return;
    /* A thread with nothing written yet has nothing to mark as paused. */
    if (!on && !t->blk) {
        t->last_on = on;
        return;
    }
    uint8_t v = (uint8_t)on;
    if (ensure_room(t, 16) == 0) {
        put_ext(t, ct_now(), CT_EXT_TOGGLE, &v, 1);
        t->last_on = on;
    }
}

/* Common entry of both slow paths: NULL when the event is to be ignored. */
static struct ct_thread *slow_begin(void)
{
    struct ct_thread *t = ct_self;
    if (t && t->busy) {
        /* Re-entry from a signal handler that interrupted the tracer. */
        t->lost_pending++;
        ct_count_lost_global(1);
        return NULL;
    }
    if (t && (t->flags & CT_T_DEAD)) {
        ct_count_lost_global(1);
        return NULL;
    }
    if (!t) {
        t = ct_thread_get();
        if (!t) {
            if (making)  /* a handler that interrupted the making */
                ct_count_lost_global(1);
            return NULL;
        }
    }
    t->busy = 1;
    ct_signal_fence();
    sync_global(t);
    return t;
}

/* Stop bits and busy flag in one store: the next hook reads them as one
 * 64-bit word, which a pair of 32-bit stores could not forward to. */
static void slow_end(struct ct_thread *t)
{
    uint64_t gate = stop_bits(t);
    ct_signal_fence();
    t->gate = gate;
}

static int recording(const struct ct_thread *t)
{
    return !(ct_global_word & 1) && t->region == 0;
}

static void pop_frame(struct ct_thread *t);

/* After a failure with the file still there (ct_fail): every call and
 * return made while tracing is on is counted lost, nothing recorded. */
static int counted_after_failure(struct ct_thread *t)
{
    if (ct_likely(!ct_proc.count_after_failure))
        return 0;
    if (recording(t))
        ct_count_lost_global(1);
    slow_end(t);
    return 1;
}

void ct_count_unseen_exit(void)
{
    struct ct_thread *t = ct_self;
    if (ct_proc.count_after_failure && t && recording(t))
        ct_count_lost_global(1);
}

/* A function entered with its caller's stack pointer above the top
 * frame's cannot be its callee: the frames below that stack pointer are
 * gone (an exception's cleanup is running in a frame further up, or a
 * jump went past the wrappers) and end here.  Unless the new frame runs
 * on another stack: a signal handler on an alternate stack. */
static void leave_frames_below(struct ct_thread *t, uintptr_t sp)
{
    if (t->depth == 0 || ct_frame_sp(t, t->depth - 1) >= sp ||
        !ct_same_stack(ct_frame_sp(t, t->depth - 1), sp))
        return;
    while (t->depth > 0 && ct_frame_sp(t, t->depth - 1) < sp)
        pop_frame(t);
}

void ct_enter_slow(uintptr_t fn, uintptr_t site, uintptr_t sp)
{
    int saved = errno;
    struct ct_thread *t = slow_begin();
    if (!t || counted_after_failure(t))
        goto out;
    leave_frames_below(t, sp);
    /* Every thread's first call comes here: enough to tell, at exit, a
     * program that was not built for tracing (lifecycle.c). */
    if (!__atomic_load_n(&ct_proc.calls_ran, __ATOMIC_RELAXED)) {
        __atomic_store_n(&ct_proc.calls_ran, 1, __ATOMIC_RELAXED);
        /* Instrumented code runs: the trace exists from here, even when
         * paused (file.c makes it at the first event). */
        ct_file_make();
    }
    uint32_t d = t->depth;
    int hide = !recording(t);
    if (t->filter || ct_filter_stop) {
        hide = ct_filter_enter(t, fn, site, d, hide);
    } else if (hide && d == 0) {
        /* as hot.c does: hidden without a frame (filters see every call,
         * so a trigger can turn tracing on) */
        t->blind++;
        slow_end(t);
        goto out;
    }
    if (hide && d < CT_MAX_DEPTH) {
        t->hidden[d / 64] |= 1ull << (d % 64);
        t->hidden_count++;
    } else if (ensure_room(t, CT_REC_MAX_HOT) == 0) {
        uint64_t now = ct_now();
        uint64_t dt = tick_delta(t, now);
        t->pos = ct_enc_entry(t->pos, dt, fn, t->prev_fn, site, t->prev_site);
        t->prev_fn = fn;
        t->prev_site = site;
    } else if (!ct_proc.failed || ct_proc.count_after_failure) {
        count_lost(t, 1);
    }
    if (d < CT_MAX_DEPTH) {
        t->stack[d] = fn;
        t->sp_not[d + 1] = ~sp;
    }
    t->depth = d + 1;
    slow_end(t);
out:
    errno = saved;
}

/* Closes the innermost frame: an EXIT record, or nothing for a hidden one. */
static void pop_frame(struct ct_thread *t)
{
    uint32_t d = t->depth - 1;
    if (t->filter && ct_filter_pop(t, d)) {
        /* a pending frame (min=DURATION), written or counted */
    } else if (is_hidden(t, d)) {
        t->hidden[d / 64] &= ~(1ull << (d % 64));
        t->hidden_count--;
    } else if (ensure_room(t, CT_REC_MAX_HOT) == 0) {
        t->pos = ct_enc_exit(t->pos, tick_delta(t, ct_now()));
    } else if (!ct_proc.failed || ct_proc.count_after_failure) {
        count_lost(t, 1);
    }
    t->depth = d;
}

/* The level of fn on the shadow stack at or below the top, or -1. */
static int64_t find_frame(const struct ct_thread *t, uintptr_t fn)
{
    uint32_t d = t->depth < CT_MAX_DEPTH ? t->depth : CT_MAX_DEPTH;
    while (d > 0)
        if (t->stack[--d] == fn)
            return d;
    return -1;
}

void ct_exit_slow(uintptr_t fn, uintptr_t site)
{
    (void)site;
    int saved = errno;
    struct ct_thread *t = slow_begin();
    if (!t || counted_after_failure(t))
        goto out;
    if (t->depth == 0) {
        /* An exit whose entry the tracer never saw: showing it would
         * break the nesting.  A blind frame's was hidden on purpose. */
        if (t->blind)
            t->blind--;
        else
            count_lost(t, 1);
        slow_end(t);
        goto out;
    }
    if (t->depth <= CT_MAX_DEPTH && t->stack[t->depth - 1] != fn) {
        /* longjmp (or anything else that leaves frames without running
         * their exit hooks) shows as the exit of a function further down:
         * the frames above it end here, so the trace stays nested.  An
         * exit of a function not on the stack at all was entered before
         * the tracer saw it: dropped, and counted. */
        int64_t level = find_frame(t, fn);
        if (level < 0) {
            count_lost(t, 1);
            slow_end(t);
            goto out;
        }
        while (t->depth > (uint32_t)level + 1)
            pop_frame(t);
    }
    pop_frame(t);
    slow_end(t);
out:
    errno = saved;
}

/*
 * A jump (longjmp, a caught exception) is leaving the frames for which
 * left(sp) holds: they end now, innermost first.  A frame deeper than the
 * shadow stack has no stack pointer kept and goes with the deepest kept
 * one.  Called on the jumping thread, before the jump.
 */
void ct_leave_frames(int (*left)(uintptr_t sp, const void *arg),
                     const void *arg)
{
    struct ct_thread *t = ct_self;
    if (!t || t->busy || (t->flags & CT_T_DEAD) || t->depth == 0)
        return;
    int saved = errno;
    t = slow_begin();
    if (!t)
        goto out;
    while (t->depth > 0) {
        uint32_t d = t->depth - 1;
        if (!left(ct_frame_sp(t, d), arg))
            break;
        pop_frame(t);
    }
    slow_end(t);
out:
    errno = saved;
}

int ct_tracer_append_ext(unsigned subtype, const void *payload, size_t len)
{
    int saved = errno;
    int rc = -1;
    struct ct_thread *t = slow_begin();
    if (!t)
        goto out;
    if (ct_proc.failed) {
        slow_end(t);
        goto out;
    }
    size_t need = len + 24;
    size_t cap = ct_proc.cfg.bufsize - CT_BLOCK_HEADER_SIZE - CT_BLOCK_RESERVE;
    if (need <= cap / 2 && ensure_room(t, need) == 0) {
        put_ext(t, ct_now(), (uint8_t)subtype, payload, len);
        rc = 0;
    } else {
        count_lost(t, 1);
    }
    slow_end(t);
out:
    errno = saved;
    return rc;
}

void ct_thread_region(int on)
{
    struct ct_thread *t = ct_thread_get();
    if (!t)
        return;
    if (t->busy) {
        /* A signal handler that interrupted the tracer: its flag and stop
         * bits stay as they are (the hook clears them by storing its whole
         * gate), and the thread's next event takes the slow path, which
         * sets the stop bits from the new nesting. */
        if (!on)
            t->region++;
        else if (t->region)
            t->region--;
        t->seen_word = t->expect = ~0ull;
        return;
    }
    t->busy = 1;
    ct_signal_fence();
    if (!on)
        t->region++;
    else if (t->region)
        t->region--;
    slow_end(t);
}

void ct_thread_close_current(int last)
{
    struct ct_thread *t = ct_self;
    if (!t || t->busy || (t->flags & CT_T_DEAD))
        return;
    t->busy = 1;
    ct_signal_fence();
    /* Only into the room left: this may run in a crash handler. */
    if (t->filter)
        ct_filter_thread_close(t);
    if (t->blk)
        ct_cpu_record(t, block_end(t), 1);
    close_block(t, ct_now(), last ? CT_BLOCK_LAST : 0, 0);
    slow_end(t);
}

void ct_thread_key_dtor(void *arg)
{
    struct ct_thread *t = arg;
    if (!t || t != ct_self || t->busy)
        return;
    t->busy = 1;
    ct_signal_fence();
    if (!t->blk && !ct_proc.failed && t->seq > 0 && !(t->flags & CT_T_NOBLOCK))
        switch_block(t, 0);  /* the end of a thread deserves a record */
    if (t->filter)
        ct_filter_thread_close(t);
    if (t->blk && t->cpu.mode && ensure_room(t, 128) == 0)
        ct_cpu_record(t, block_end(t), 1);
    close_block(t, ct_now(), CT_BLOCK_LAST, 0);
    ct_supply_thread_end(t);
    ct_cpu_thread_release(t, 0);
    ct_filter_thread_release(t);
    ct_self = &dead_thread;
    unregister_thread(t);
    munmap(t, sizeof *t);
}

/*
 * One last block for a thread that is still running when the process
 * closes its trace cleanly: its open frames (a STACK record read from its
 * shadow stack) end with THREAD_END at the time of the exit, so a main
 * blocked in pthread_join while another thread calls exit() is charged up
 * to the exit and its frames show as never returned.  The thread's own
 * block is never touched (it may be writing it right now); the block is
 * new, with the next seq of the thread.  scratch is working space for
 * the encoders.
 */
static void end_other(struct ct_thread *t, struct ct_thread *scratch,
                      uint64_t now)
{
    uint32_t depth = __atomic_load_n(&t->depth, __ATOMIC_RELAXED);
    uint32_t kept = depth < CT_MAX_DEPTH ? depth : CT_MAX_DEPTH;
    size_t need = CT_BLOCK_HEADER_SIZE + 32 + 10 * (size_t)depth +
                  CT_BLOCK_RESERVE + ct_filter_drops_size(t);
    uint32_t size = (uint32_t)((need + CT_BLOCK_ALIGN - 1) &
                               ~(size_t)(CT_BLOCK_ALIGN - 1));
    int limit_hit;
    uint8_t *nb = ct_file_new_block(size, &limit_hit);
    if (!nb)
        return;
    struct ct_block_header *b = (struct ct_block_header *)nb;
    b->magic = CT_BLOCK_MAGIC;
    b->kind = CT_BLOCK_EVENTS;
    b->header_size = CT_BLOCK_HEADER_SIZE;
    b->size = size;
    b->tid = t->tid;
    b->seq = __atomic_fetch_add(&t->seq, 1, __ATOMIC_RELAXED);
    b->first_ticks = now;
    scratch->depth = depth;
    memcpy(scratch->stack, t->stack, kept * sizeof *t->stack);
    memcpy(scratch->hidden, t->hidden, sizeof t->hidden);
    scratch->blk = b;
    scratch->limit = nb + size;
    scratch->end = ct_hot_end(scratch->limit - CT_BLOCK_RESERVE);
    scratch->pos = nb + CT_BLOCK_HEADER_SIZE;
    scratch->prev_ticks = now;
    scratch->prev_fn = scratch->prev_site = 0;
    scratch->lost_unrecorded = scratch->lost_pending = 0;
    b->open_depth = put_stack_record(scratch);
    ct_filter_drops_into(t, scratch);
    close_block(scratch, now, CT_BLOCK_LAST, 0);
}

void ct_threads_end_others(void)
{
    struct ct_thread *self = ct_self;
    /* A thread switching blocks meanwhile must not take a block the
     * supplier reserved before these: its blocks stay in file order. */
    ct_supply_stop();
    struct ct_thread *scratch = mmap(NULL, sizeof *scratch,
                                     PROT_READ | PROT_WRITE,
                                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (scratch == MAP_FAILED)
        return;
    /* Bounded: exit() from a signal handler that interrupted this very
     * thread inside the registry lock must not hang. */
    int locked = 0;
    for (long spin = 0; spin < (1L << 22) && !locked; spin++) {
        locked = !__atomic_exchange_n(&registry_lock, 1, __ATOMIC_ACQUIRE);
        if (!locked)
            __builtin_ia32_pause();
    }
    if (locked) {
        uint64_t now = ct_now();
        for (struct ct_thread *t = registry; t; t = t->next)
            if (t != self && !(t->flags & CT_T_DEAD) && t->seq > 0)
                end_other(t, scratch, now);
        ct_threads_unlock();
    }
    munmap(scratch, sizeof *scratch);
}

void ct_thread_after_fork_child(void)
{
    struct ct_thread *self = ct_self;
    registry_lock = 0;
    for (struct ct_thread *t = registry, *next; t; t = next) {
        next = t->next;
        if (t->blk)
            munmap(t->blk, (size_t)(t->limit - (uint8_t *)t->blk));
        if (t != self)
            munmap(t, sizeof *t);
    }
    registry = NULL;
    ct_supply_after_fork_child();
    ct_filter_after_fork(self && !(self->flags & CT_T_DEAD) ? self : NULL);
    if (!self || (self->flags & CT_T_DEAD))
        return;
    self->blk = NULL;
    self->pos = self->end = self->limit = NULL;
    self->seq = 0;
    self->flags = 0;
    self->supply_slot = 0;
    self->tid = (uint32_t)syscall(SYS_gettid);
    self->lost_pending = self->lost_unrecorded = 0;
    ct_cpu_thread_release(self, 1);
    self->seen_word = self->expect = ~0ull;
    register_thread(self);
    ct_proc.threads = 1;
}
