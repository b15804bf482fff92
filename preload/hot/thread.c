/*
 * Per-thread state and the slow path of the hooks: creating a thread's
 * state, its registry, tracing off (hidden frames), re-entry, lost
 * events, TOGGLE and other EXT records, a thread's end and the others'
 * at exit.  Its blocks are block.c's: every piece of work done on the
 * application's thread that takes real time (mapping a block) is
 * bracketed there by OVERHEAD_START / OVERHEAD_END records so the analyzer
 * can take it out of the program's figures.
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

uint64_t ct_global_word = 1;  /* off until the tracer has started */
int ct_enabled = 1;

static struct ct_thread *registry;
static int registry_lock;
/* States that hold only the fields before the shadow stack: their depth
 * is 0, so nothing reads their frames, and a whole state took 66 KiB of
 * every traced process's address space.  Set up with the key (make_key),
 * before any thread can end. */
union head_storage {
    uint8_t bytes[offsetof(struct ct_thread, stack)];
    uint64_t align;
} __attribute__((aligned(64)));
static union head_storage dead_storage, lost_storage;

/* The compiler is not to check the state's fields against the storage's
 * size: only those before the stack are ever touched. */
static struct ct_thread *head_state(union head_storage *storage)
{
    void *p = storage;
    __asm__("" : "+r"(p));
    return p;
}
/* Where ct_self points once a thread has ended, so late events are
 * dropped (and counted) instead of touching freed memory. */
#define dead_thread (*head_state(&dead_storage))
/* The state of an execution context that cannot have one of its own (a
 * CLONE_VM child with a TLS the tracer did not lay out): its events are
 * counted lost. */
#define lost_thread (*head_state(&lost_storage))

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

static uint32_t stop_bits(const struct ct_thread *t)
{
    return (t->region ? CT_STOP_REGION : 0) |
           (t->hidden_count ? CT_STOP_HIDDEN : 0) |
           (t->flags & CT_T_DEAD ? CT_STOP_DEAD : 0) | ct_filter_stop |
           ct_profile_stop |
           (ct_clock_is_tsc ? 0 : CT_STOP_CLOCK) |
           (ct_proc.count_after_failure ? CT_STOP_FAILED : 0) |
           (__atomic_load_n(&t->sharers, __ATOMIC_RELAXED) ||
                    __atomic_load_n(&t->vforked, __ATOMIC_RELAXED)
                ? CT_STOP_SHARED
                : 0);
}

int ct_thread_foreign_slow(const struct ct_thread *t)
{
    /* Raw: libc's syscall() is the tracer's wrapper (wrap_prctl.c), and
     * a context that shares this TLS must take no lock of libc's, whose
     * owner is the tid that TLS holds. */
    uint32_t tid = (uint32_t)ct_rsys(SYS_gettid, 0, 0, 0, 0, 0, 0);
    return tid != t->tid;
}

void ct_thread_share_begin(struct ct_thread *t)
{
    __atomic_add_fetch(&t->sharers, 1, __ATOMIC_ACQ_REL);
    /* The owner, outside the hooks: a handler's slow path that runs now
     * stores the bit again from the count. */
    __atomic_or_fetch(&t->stop, CT_STOP_SHARED, __ATOMIC_ACQ_REL);
}

/* The caller of vfork runs again only once the child has called exec or
 * _exit: its next slow path (slow_begin) ends the mode. */
void ct_thread_vfork_begin(struct ct_thread *t)
{
    __atomic_store_n(&t->vforked, 1, __ATOMIC_RELEASE);
    __atomic_or_fetch(&t->stop, CT_STOP_SHARED, __ATOMIC_ACQ_REL);
}

/* The owner's next slow path clears the bit once the count is 0. */
void ct_thread_share_end(struct ct_thread *t)
{
    __atomic_sub_fetch(&t->sharers, 1, __ATOMIC_ACQ_REL);
}

void ct_thread_set_lost(void)
{
    ct_self = &lost_thread;
}

#define tick_delta ct_tick_delta

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
    dead_thread.stop = CT_STOP_DEAD;
    dead_thread.expect = ~0ull;
    dead_thread.flags = CT_T_DEAD;
    lost_thread.stop = CT_STOP_DEAD;
    lost_thread.expect = ~0ull;
    lost_thread.flags = CT_T_DEAD;
    thread_key_ok = pthread_key_create(&thread_key, ct_thread_key_dtor) == 0;
}

/*
 * A thread's state is wiped in a child process the fork handlers did not
 * see being made (syscall(SYS_clone), clone3 without CLONE_VM): the child
 * finds a zeroed state, whose tid of 0 sends its first event to
 * unseen_child, instead of writing into its parent's blocks.  Around a
 * fork that the handlers see, the states are kept (fork_keep).  Kernels
 * before 4.14 refuse the advice, and such a child is not told apart.
 */
static void wipe_on_fork(struct ct_thread *t, int wipe)
{
    int saved = errno;
    (void)madvise(t, sizeof *t, wipe ? MADV_WIPEONFORK : MADV_KEEPONFORK);
    errno = saved;
}

/* fork handlers, with the registry locked: keep (1) the states in the
 * child, or go back to wiping them (0). */
void ct_threads_fork_keep(int keep)
{
    for (struct ct_thread *t = registry; t; t = t->next)
        wipe_on_fork(t, !keep);
}

/* The state, a guard page, the tracer's stack (tracer.h). */
#define STATE_SIZE ((sizeof(struct ct_thread) + 4095) & ~(size_t)4095)
#define MAP_SIZE (STATE_SIZE + 4096 + (size_t)ct_tracer_stack)
/* A thread's share of the address space: 64 KiB besides its block
 * (docs/reliability.md), of which the state takes 16. */
_Static_assert(STATE_SIZE <= (16u << 10), "the thread state outgrew 16 KiB");

uint32_t ct_tracer_stack = CT_TRACER_STACK_SAMPLING;

void ct_tracer_stack_choose(int sampling)
{
    ct_tracer_stack = sampling ? CT_TRACER_STACK_SAMPLING : CT_TRACER_STACK;
}

static int on_stack_of(const struct ct_thread *t, uintptr_t sp)
{
    uintptr_t lo = (uintptr_t)t->tstack_lo;
    return sp >= lo && sp <= lo + ct_tracer_stack;
}

/* The signals a deep call blocks: all but the faults, which go on to the
 * handler they have (blocked, the kernel would kill the process instead).
 * Kernel sigsets (8 bytes, raw system call): libc's are 128 bytes each,
 * too many for a small stack. */
#define FAULTS ((1ull << (SIGSEGV - 1)) | (1ull << (SIGBUS - 1)) |        \
                (1ull << (SIGFPE - 1)) | (1ull << (SIGILL - 1)) |         \
                (1ull << (SIGTRAP - 1)) | (1ull << (SIGSYS - 1)))

void ct_deep_call(struct ct_thread *t, void (*fn)(void *), void *arg,
                  int block)
{
    uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
    if (!t || !t->tstack_lo || on_stack_of(t, sp)) {
        fn(arg);
        return;
    }
    uint64_t async = ~FAULTS, old = 0;
    if (block)
        ct_rsys(SYS_rt_sigprocmask, SIG_BLOCK, (long)&async, (long)&old, 8, 0, 0);
    ct_stack_call(fn, arg, t->tstack_lo + ct_tracer_stack);
    if (block)
        ct_rsys(SYS_rt_sigprocmask, SIG_SETMASK, (long)&old, 0, 8, 0, 0);
}

static void thread_init(void *p)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    struct ct_thread *t = p;
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
}

static struct ct_thread *thread_create(void)
{
    /* Refused, the thread runs without a state: its events are counted
     * lost (slow_begin) and it asks again now and then. */
    if (!ct_budget_retry_ok() || !ct_budget_fit(MAP_SIZE, MAP_SIZE)) {
        ct_budget_retry_later();
        ct_budget_refused();
        return NULL;
    }
    void *m = mmap(NULL, MAP_SIZE, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) {
        ct_budget_retry_later();
        return NULL;
    }
    ct_budget_add(MAP_SIZE);
    wipe_on_fork(m, 1);
    /* A tracer stack that overflows faults instead of writing over the
     * state. */
    mprotect((uint8_t *)m + STATE_SIZE, 4096, PROT_NONE);
    struct ct_thread *t = m;
    t->tstack_lo = (uint8_t *)m + STATE_SIZE + 4096;
    /* The rest (perf_event_open, the key, the registry) on the tracer's
     * stack: a thread's first event may come on a small stack. */
    ct_deep_call(t, thread_init, t, 1);
    return t;
}

/* A thread's levels past CT_HOT_DEPTH, mapped when it first goes that
 * deep.  Only while no such level is open, so that each of them is kept
 * or none is: a frame pushed past the state's levels while they could
 * not be had stays unkept till it is gone.  Refused (the tracer's share
 * of an address-space limit, no memory), those frames are recorded but
 * not kept, as frames past CT_MAX_DEPTH are, and the thread asks again
 * when it comes back to this depth, not sooner than the budget's retry. */
int ct_frames_deepen(struct ct_thread *t)
{
    if (t->depth > CT_HOT_DEPTH)
        return ct_frames_kept(t) == CT_MAX_DEPTH;
    if (t->deep) {
        t->deep_stale = 0;  /* the other context's levels are all gone */
        return 1;
    }
    if (!ct_budget_retry_ok())
        return 0;
    size_t len = sizeof(struct ct_deep_frames);
    if (!ct_budget_fit(len, len)) {
        ct_budget_retry_later();
        ct_budget_refused();
        return 0;
    }
    int saved = errno;
    void *m = mmap(NULL, len, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    errno = saved;
    if (m == MAP_FAILED) {
        ct_budget_retry_later();
        return 0;
    }
    ct_budget_add((int64_t)len);
    t->deep = m;
    return 1;
}

/* The state's mapping and its deeper levels' go. */
static void state_unmap(struct ct_thread *t)
{
    if (t->deep) {
        munmap(t->deep, sizeof(struct ct_deep_frames));
        ct_budget_add(-(int64_t)sizeof(struct ct_deep_frames));
    }
    munmap(t, MAP_SIZE);
    ct_budget_add(-(int64_t)MAP_SIZE);
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
        return (t->flags & CT_T_DEAD) || ct_thread_foreign(t) ? NULL : t;
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
    /* A handler that ran between the test of ct_self above and `making`
     * made the state itself: that one is the thread's. */
    t = ct_self;
    if (!t)
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
    ct_filter_sync_skips(t);  /* before its hooks decide by the word */
    if (on == t->last_on || ct_proc.failed)
        return;
    /* A thread with nothing written yet has nothing to mark as paused. */
    if (!on && !t->blk) {
        t->last_on = on;
        return;
    }
    uint8_t v = (uint8_t)on;
    if (blk_ensure_room(t, 16) == 0) {
        blk_put_ext(t, ct_now(), CT_EXT_TOGGLE, &v, 1);
        t->last_on = on;
    }
}

/*
 * An event of a thread the exiting thread has ended: counted lost in the
 * thread's own block, which the reader reads whole.  The event that was
 * under way in the hook when the exit began may have been written after
 * the time the exiting thread gave the last block: that block moves to
 * the thread's last record, so the thread's blocks stay in time order.
 * The thread comes back here for every event: its `expect` is left stale.
 */
static void event_after_end(struct ct_thread *t)
{
    if (t->busy) {
        t->lost_pending++;
        ct_count_lost_global(1);
        return;
    }
    blk_count_lost(t, 1);
    struct ct_block_header *b =
        __atomic_load_n(&t->exit_blk, __ATOMIC_ACQUIRE);
    if (b && !ct_proc.streaming && b->first_ticks < t->prev_ticks)
        b->first_ticks = b->last_ticks = t->prev_ticks;
}

/* The first event of a child process made where the fork handlers did
 * not see it (its state wiped, wipe_on_fork): the child work of fork, so
 * it writes a trace of its own. */
static void CT_COLD unseen_child(void)
{
    ct_clone_child();
}

/* Common entry of both slow paths: NULL when the event is to be ignored. */
static struct ct_thread *slow_begin(void)
{
    struct ct_thread *t = ct_self;
    if (t && ct_unlikely(ct_thread_foreign(t))) {
        ct_count_lost_global(1);  /* a CLONE_VM child sharing the state */
        return NULL;
    }
    if (t && ct_unlikely(t->vforked))
        __atomic_store_n(&t->vforked, 0, __ATOMIC_RELEASE);  /* the owner */
    if (t && ct_unlikely(blk_thread_ended(t))) {
        event_after_end(t);
        return NULL;
    }
    if (t && ct_unlikely(t->tid == 0) && t != &dead_thread &&
        t != &lost_thread)
        unseen_child();
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
            /* A handler that interrupted the making, or a thread with no
             * state (no memory for it) while tracing is on. */
            if (making || (ct_proc.started == 2 && !ct_self &&
                           !(__atomic_load_n(&ct_global_word,
                                             __ATOMIC_RELAXED) & 1)))
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
    return !(__atomic_load_n(&ct_global_word, __ATOMIC_RELAXED) & 1) &&
           t->region == 0;
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

/* While rules in force let the filters decide calls by themselves, every
 * event goes to their fast path first (filter_fast.c), which comes back
 * to the _full variants for what it does not settle. */
void ct_enter_slow(uintptr_t fn, uintptr_t site, uintptr_t sp)
{
    if (__atomic_load_n(&ct_ffast, __ATOMIC_RELAXED))
        ct_filter_fast_enter(ct_self, fn, site, sp);
    else
        ct_enter_slow_full(fn, site, sp);
}

void ct_enter_slow_full(uintptr_t fn, uintptr_t site, uintptr_t sp)
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
    /* The levels past the state's are mapped before the filters look at
     * the frame, which they keep only on a kept level. */
    if (d == CT_HOT_DEPTH && ct_frames_kept(t) < CT_MAX_DEPTH)
        ct_frames_deepen(t);
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
    } else if (ct_profile_stop) {
        ct_profile_enter(t, fn);
    } else if (blk_ensure_room(t, CT_REC_MAX_HOT) == 0) {
        uint64_t now = ct_now();
        uint64_t dt = tick_delta(t, now);
        t->pos = ct_enc_entry(t->pos, dt, fn, t->prev_fn, site, t->prev_site);
        t->prev_fn = fn;
        t->prev_site = site;
    } else if (!ct_proc.failed || ct_proc.count_after_failure) {
        blk_count_lost(t, 1);
    }
    ct_frame_put(t, d, fn, sp);
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
    } else if (ct_profile_stop) {
        ct_profile_exit(t);
    } else if (blk_ensure_room(t, CT_REC_MAX_HOT) == 0) {
        t->pos = ct_enc_exit(t->pos, tick_delta(t, ct_now()));
    } else if (!ct_proc.failed || ct_proc.count_after_failure) {
        blk_count_lost(t, 1);
    }
    t->depth = d;
}

/* The level of fn on the shadow stack at or below the top, or -1. */
static int64_t find_frame(const struct ct_thread *t, uintptr_t fn)
{
    uint32_t kept = ct_frames_kept(t);
    uint32_t d = t->depth < kept ? t->depth : kept;
    while (d > 0)
        if (ct_frame_fn(t, --d) == fn)
            return d;
    return -1;
}

void ct_exit_slow(uintptr_t fn, uintptr_t site)
{
    if (__atomic_load_n(&ct_ffast, __ATOMIC_RELAXED))
        ct_filter_fast_exit(ct_self, fn, site);
    else
        ct_exit_slow_full(fn, site);
}

void ct_exit_slow_full(uintptr_t fn, uintptr_t site)
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
            blk_count_lost(t, 1);
        slow_end(t);
        goto out;
    }
    if (t->depth <= ct_frames_kept(t) && ct_frame_fn(t, t->depth - 1) != fn) {
        /* longjmp (or anything else that leaves frames without running
         * their exit hooks) shows as the exit of a function further down:
         * the frames above it end here, so the trace stays nested.  An
         * exit of a function not on the stack at all was entered before
         * the tracer saw it: dropped, and counted. */
        int64_t level = find_frame(t, fn);
        if (level < 0) {
            blk_count_lost(t, 1);
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

/*
 * The thread goes over to another context (a coroutine's stack): the
 * shadow stack is swapped even when nothing can be recorded, so the hooks
 * keep matching the frames of the stack they run on.  The CONTEXT record
 * lists the new context's frames: a reader that has not seen them (it
 * began at a later block) takes them from there.
 */
void ct_thread_switch_context(uint32_t id,
                              void (*swap)(struct ct_thread *t, uint32_t id,
                                           void *arg),
                              void *arg)
{
    int saved = errno;
    struct ct_thread *t = slow_begin();
    if (!t)
        goto out;
    swap(t, id, arg);
    t->context = id;
    ct_thread_enter_context(t);
    slow_end(t);
out:
    errno = saved;
}

void ct_thread_enter_context(struct ct_thread *t)
{
    uint32_t id = t->context;
    ct_profile_switch(t);
    if (t->blk && !ct_proc.failed) {
        uint8_t b[10];
        size_t n = (size_t)(ct_put_varint(b, id) - b);
        size_t need = 48 + 10 * (size_t)(t->depth < CT_MAX_DEPTH
                                             ? t->depth : CT_MAX_DEPTH);
        size_t cap = ct_proc.cfg.bufsize - CT_BLOCK_HEADER_SIZE -
                     CT_BLOCK_RESERVE;
        if (need <= cap / 2 && blk_ensure_room(t, need) == 0) {
            blk_put_frames(t, CT_EXT_CONTEXT,
                              tick_delta(t, ct_now()), b, n);
        } else {
            /* Every later event must wait for a block whose mark names
             * this context; till then they are counted lost. */
            blk_count_lost(t, 1);
            t->flags |= CT_T_CTX_GAP;
            t->end = t->pos ? ct_hot_end(t->pos) : NULL;
        }
    }
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
    if (need <= cap / 2 && blk_ensure_room(t, need) == 0) {
        blk_put_ext(t, ct_now(), (uint8_t)subtype, payload, len);
        rc = 0;
    } else {
        blk_count_lost(t, 1);
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
    if (!t || t->busy || (t->flags & CT_T_DEAD) || blk_thread_ended(t))
        return;
    t->busy = 1;
    ct_signal_fence();
    /* Only into the room left: this may run in a crash handler. */
    if (t->filter) {
        ct_context_close_filters(t);
        ct_filter_thread_close(t);
    }
    if (t->blk)
        ct_cpu_record(t, blk_end(t), 1);
    ct_profile_close(t);
    blk_put_name(t);
    blk_close(t, ct_now(), last ? CT_BLOCK_LAST : 0, 0);
    slow_end(t);
}

void ct_thread_retire_current(void)
{
    struct ct_thread *t = ct_self;
    if (!t || (t->flags & CT_T_DEAD))
        return;
    t->flags |= CT_T_DEAD;
    ct_signal_fence();
    __atomic_store_n(&t->stop, t->stop | CT_STOP_DEAD, __ATOMIC_RELAXED);
}

void ct_thread_key_dtor(void *arg)
{
    struct ct_thread *t = arg;
    if (!t || t != ct_self || t->busy)
        return;
    t->busy = 1;
    ct_signal_fence();
    if (blk_thread_ended(t)) {
        /* the exiting thread wrote this thread's end already */
        if (t->blk)
            munmap(t->blk, (size_t)(t->limit - (uint8_t *)t->blk));
        t->blk = NULL;
    }
    if (!t->blk && !ct_proc.failed && __atomic_load_n(&t->seq, __ATOMIC_RELAXED) &&
        !(t->flags & CT_T_NOBLOCK))
        blk_switch(t, 0);  /* the end of a thread deserves a record */
    if (t->filter) {
        ct_context_close_filters(t);
        ct_filter_thread_close(t);
    }
    if (t->blk && t->cpu.mode && blk_ensure_room(t, 128) == 0)
        ct_cpu_record(t, blk_end(t), 1);
    if (t->blk && blk_ensure_room(t, 32) == 0)
        blk_put_name(t);
    blk_close(t, ct_now(), CT_BLOCK_LAST, 0);
    ct_supply_thread_end(t);
    ct_cpu_thread_release(t, 0);
    ct_filter_thread_release(t);
    ct_profile_thread_end(t);
    ct_context_thread_release(t);
    ct_patch_thread_release();
    ct_self = &dead_thread;
    unregister_thread(t);
    /* a CLONE_VM child still running may look at it */
    if (!__atomic_load_n(&t->sharers, __ATOMIC_ACQUIRE))
        state_unmap(t);
}

/*
 * One last block for a thread that is still running when the process
 * closes its trace cleanly: its open frames (a STACK record read from its
 * shadow stack) end with THREAD_END at the time of the exit, so a main
 * blocked in pthread_join while another thread calls exit() is charged up
 * to the exit and its frames show as never returned.  The thread's own
 * block is never written by another thread (it may be writing it right
 * now); the block is new, with the number ct_threads_end_others took for
 * it, and stays mapped for the thread (event_after_end).  scratch is
 * working space for the encoders.
 */
static void end_other(struct ct_thread *t, struct ct_thread *scratch)
{
    if (ct_profile_stop)
        return;  /* its table stays; the reader closes its frames at exit */
    uint32_t seq = (__atomic_load_n(&t->seq, __ATOMIC_ACQUIRE) &
                    ~CT_SEQ_ENDED) - 1;
    uint32_t depth = __atomic_load_n(&t->depth, __ATOMIC_RELAXED);
    uint32_t kept = depth < CT_HOT_DEPTH ? depth : CT_HOT_DEPTH;
    size_t need = CT_BLOCK_HEADER_SIZE + 32 + 10 * (size_t)depth +
                  CT_BLOCK_RESERVE + ct_filter_drops_size(t);
    uint32_t size = (uint32_t)((need + CT_BLOCK_ALIGN - 1) &
                               ~(size_t)(CT_BLOCK_ALIGN - 1));
    int limit_hit;
    uint8_t *nb = ct_file_new_block(size, &limit_hit);
    if (!nb)
        return;
    ct_budget_add(size);
    /* Taken after the thread's number: later than its blocks so far */
    uint64_t now = ct_now();
    struct ct_block_header *b = (struct ct_block_header *)nb;
    ct_block_begin(b, CT_BLOCK_EVENTS, size, t->tid, seq, now);
    scratch->depth = depth;
    memcpy(scratch->stack, t->stack, kept * sizeof *t->stack);
    scratch->deep = t->deep;  /* only read, before t's state goes */
    scratch->deep_stale = t->deep_stale;
    memcpy(scratch->hidden, t->hidden, sizeof t->hidden);
    scratch->blk = b;
    scratch->limit = nb + size;
    scratch->end = ct_hot_end(scratch->limit - CT_BLOCK_RESERVE);
    scratch->pos = nb + CT_BLOCK_HEADER_SIZE;
    scratch->prev_ticks = now;
    scratch->prev_fn = scratch->prev_site = 0;
    scratch->lost_unrecorded = scratch->lost_pending = 0;
    b->open_depth = blk_put_stack(scratch);
    scratch->context = __atomic_load_n(&t->context, __ATOMIC_RELAXED);
    blk_put_context_mark(scratch);
    ct_filter_drops_into(t, scratch);
    blk_seal(scratch, now, CT_BLOCK_LAST, 0);
    __atomic_store_n(&t->exit_blk, b, __ATOMIC_RELEASE);
}

/* Bounded: exit() from a signal handler that interrupted this very thread
 * inside the registry lock must not hang.  1 when locked. */
static int threads_trylock_bounded(void)
{
    for (long spin = 0; spin < (1L << 22); spin++) {
        if (!__atomic_exchange_n(&registry_lock, 1, __ATOMIC_ACQUIRE))
            return 1;
        __builtin_ia32_pause();
    }
    return 0;
}

/* A new generation of ct_global_word, on or off as it was: every thread's
 * next event comes to the slow path once. */
static void global_bump(void)
{
    __atomic_fetch_add(&ct_global_word, 2, __ATOMIC_ACQ_REL);
}

/* Takes the number of t's last block, unless t wrote no block yet or was
 * ended already: 1 when taken. */
static int end_seq(struct ct_thread *t)
{
    uint32_t cur = __atomic_load_n(&t->seq, __ATOMIC_RELAXED);
    do {
        if (cur == 0 || (cur & CT_SEQ_ENDED))
            return 0;
    } while (!__atomic_compare_exchange_n(&t->seq, &cur,
                                          (cur + 1) | CT_SEQ_ENDED, 1,
                                          __ATOMIC_ACQ_REL, __ATOMIC_RELAXED));
    return 1;
}

/*
 * Every other thread that has written a block is ended first: the number
 * of its last block is taken (so no block switch of its own comes after),
 * and the bump of the global word sends its next event to the slow path,
 * which records nothing more for it (event_after_end).  Then each gets
 * its last block.
 */
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
    if (threads_trylock_bounded()) {
        for (struct ct_thread *t = registry; t; t = t->next)
            if (t != self)
                end_seq(t);
        global_bump();
        for (struct ct_thread *t = registry; t; t = t->next)
            if (t != self && blk_thread_ended(t))
                end_other(t, scratch);
        ct_threads_unlock();
    }
    munmap(scratch, sizeof *scratch);
}

/* After a failed exec: the threads ended for it record again, after the
 * last blocks written for them (a reader sees those threads end there and
 * go on, as before the exec).  Those blocks stay mapped. */
void ct_threads_resume_others(void)
{
    if (!threads_trylock_bounded())
        return;
    for (struct ct_thread *t = registry; t; t = t->next)
        __atomic_fetch_and(&t->seq, ~CT_SEQ_ENDED, __ATOMIC_ACQ_REL);
    global_bump();
    ct_threads_unlock();
}

void ct_thread_after_fork_child(void)
{
    struct ct_thread *self = ct_self;
    registry_lock = 0;
    for (struct ct_thread *t = registry, *next; t; t = next) {
        next = t->next;
        if (t->blk) {
            munmap(t->blk, (size_t)(t->limit - (uint8_t *)t->blk));
            ct_budget_add(-(int64_t)(t->limit - (uint8_t *)t->blk));
        }
        ct_profile_after_fork(t, t == self);
        if (t != self)
            state_unmap(t);
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
    wipe_on_fork(self, 1);
    register_thread(self);
    ct_proc.threads = 1;
}

/* A child of clone() without CLONE_VM runs its function on a new stack:
 * none of the frames open in the parent are its. */
void ct_thread_clone_fresh(void)
{
    struct ct_thread *t = ct_self;
    if (!t || (t->flags & CT_T_DEAD))
        return;
    t->depth = 0;
    t->blind = 0;
    t->hidden_count = 0;
    memset(t->hidden, 0, sizeof t->hidden);
    t->sharers = 0;
    t->stop = stop_bits(t);
}
