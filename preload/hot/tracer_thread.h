/*
 * Each thread's state (struct ct_thread), the hooks and their slow path,
 * the tracer's own stack, contexts and jumps, on-CPU records and the
 * record encoders (hot.c, thread.c, block.c, context.c, jump.c,
 * cputime.c, stack.S).
 *
 * One part of tracer.h, the tracer's internal interface: the files of
 * the tracer include tracer.h, which includes every part; a part compiles
 * alone too, with the parts it needs.
 */
#ifndef CT_TRACER_THREAD_H
#define CT_TRACER_THREAD_H

#include <string.h>

#include "preload/tracer_base.h"

#pragma GCC visibility push(hidden)

/* ---------------------------------------------------------------- thread */

/* The shadow stack keeps CT_MAX_DEPTH levels.  The first CT_HOT_DEPTH of
 * them live in the thread's state, where the hooks index them directly;
 * the levels past those live in a mapping of their own (struct
 * ct_deep_frames), made when the thread first goes that deep, so a thread
 * that never does costs 52 KiB less address space (docs/reliability.md,
 * "Address-space limit").  A frame deeper than CT_HOT_DEPTH takes the slow
 * path. */
#define CT_MAX_DEPTH 4096u
#define CT_HOT_DEPTH 960u  /* the state in 16 KiB (thread.c checks) */
/* Bytes kept free at the end of every block for the records written when
 * it is closed: LOST (up to 23), OVERHEAD_START or THREAD_END (12 each). */
#define CT_BLOCK_RESERVE 64u

/* ct_thread.flags */
#define CT_T_NOBLOCK 0x1u  /* the size limit was reached: no more blocks    */
#define CT_T_DEAD    0x2u  /* the thread has ended                          */
/* A context switch whose CONTEXT record the block could not hold: nothing
 * more goes into that block (a reader would put it on the stack of the
 * context left); the next block's mark names the context. */
#define CT_T_CTX_GAP 0x4u

/* ct_thread.seq: set once the exiting thread has taken the number of
 * this thread's last block (ct_threads_end_others): no block may follow
 * it, and the thread records nothing more. */
#define CT_SEQ_ENDED 0x80000000u

/* ct_thread.stop bits: any set sends every event to the slow path. */
#define CT_STOP_REGION 0x1u  /* inside CALLTRACE_OFF() ... CALLTRACE_ON()   */
#define CT_STOP_HIDDEN 0x2u  /* hidden frames are open                      */
#define CT_STOP_DEAD   0x4u
#define CT_STOP_FILTER 0x8u  /* record-time filters in force (filter.c)      */
/* The clock is not the TSC read in the hooks (CLOCK_MONOTONIC, the fenced
 * TSC, the TSC turned off): the TSC hooks hand every event to their twins
 * of the other clock (hot.c), so they need no test of the clock kind. */
#define CT_STOP_CLOCK  0x10u
/* The trace failed with its file still there: every event is counted as
 * lost (file.c, ct_fail). */
#define CT_STOP_FAILED 0x20u
/* A child made by clone(CLONE_VM) without a TLS of its own shares this
 * thread's TLS, so its ct_self too: while such children live every event
 * of both comes to the slow path, which records the owner's (by thread
 * id) and counts the others' lost (wrap_clone.c). */
#define CT_STOP_SHARED 0x40u
/* CALLTRACE_MODE=profile: every call goes to the slow path, which adds it
 * to the thread's call-path table instead of writing a record (profile_mode.c). */
#define CT_STOP_PROFILE 0x80u

/* How one thread's on-CPU time is kept (cputime.c). */
struct ct_cpu {
    void *ring;             /* perf ring: header page + data, or NULL      */
    uint32_t ring_len;
    uint32_t mode;          /* CT_ONCPU_* for this thread                  */
    uint64_t out_ns;        /* switched out at (ns), no switch-in yet; 0   */
    uint32_t out_preempt;   /* that switch-out was a preemption            */
    uint64_t lost;          /* switch records lost, not yet told           */
};

struct ct_fskips;

struct ct_thread {
    /* Hot path fields: one cache line. */
    uint8_t *pos;           /* next record goes here                        */
    uint8_t *end;           /* a hot record may start below end: set with
                               ct_hot_end(limit of records), so the hook
                               compares without adding CT_REC_MAX_HOT     */
    uint64_t prev_ticks;
    uintptr_t prev_fn;
    uintptr_t prev_site;
    uint32_t depth;         /* frames open, hidden ones included            */
    uint32_t region;        /* CALLTRACE_OFF nesting                        */
    uint64_t expect;        /* ct_global_word when this thread last synced
                               and tracing was on; ~0 otherwise             */
    /* The hot path tests both words with one load of `gate`. */
    union {
        struct {
            uint32_t stop;          /* CT_STOP_*                            */
            volatile uint32_t busy; /* recursion guard                      */
        };
        uint64_t gate;
    };
    /* The skip table (filters/filter_skip.h) whose calls this thread
     * counts in skip_counts, a count per slot; NULL: none. */
    const struct ct_fskips *skip_tab;
    uint64_t *skip_counts;
    uint8_t *skip_state;    /* the filters' frame states (filter.c)        */

    /* Slow path fields. */
    struct ct_block_header *blk;  /* current block, mapped, or NULL         */
    uint8_t *limit;               /* end of the current block               */
    uint32_t tid;
    uint32_t seq;                 /* number of the next block               */
    uint32_t flags;               /* CT_T_*                                 */
    uint32_t hidden_count;
    /* Frames entered while tracing was off and nothing was open: not on
     * the shadow stack at all, only counted, so a paused call costs next
     * to nothing (hot.c; once the thread's trace shows it paused,
     * last_on == 0); their exits come at depth 0 and are dropped. */
    uint64_t blind;
    uint64_t retry_at;    /* no block to be had until this tick (file.c)    */
    uint64_t seen_word;           /* ct_global_word last synced to          */
    int last_on;                  /* tracing state the trace last showed    */
    uint64_t lost_unrecorded;     /* lost, not yet in a LOST record         */
    uint64_t lost_pending;        /* lost during re-entry, not yet in blk   */
    struct ct_thread *next, *prev; /* registry of live threads              */
    struct ct_cpu cpu;            /* on-CPU records (cputime.c)             */
    void *filter;                 /* record-time filter state (filter.c)    */
    int32_t supply_slot;          /* supply.c: slot + 1, 0 none yet, -1 never */
    uint8_t *tstack_lo;           /* its tracer stack; NULL for a scratch one */
    uint32_t context;             /* the context (stack) the thread runs, 0
                                     its own; the shadow stack is its frames */
    void *contexts;               /* other contexts' frames (context.c)     */
    /* The last block the exiting thread wrote for this thread at a clean
     * close (thread.c, end_other), still mapped so the thread can move its
     * start past a record of its own written later. */
    struct ct_block_header *exit_blk;
    uint32_t sharers;     /* live CLONE_VM children sharing the TLS (atomic) */
    uint32_t vforked;     /* a vfork child may be running on this state     */

    /* The levels of the shadow stack past CT_HOT_DEPTH; NULL until the
     * thread first goes that deep, or while no memory could be had.  Set
     * only while no level past CT_HOT_DEPTH is open (ct_frames_deepen), so
     * every such level is kept, or none is. */
    struct ct_deep_frames *deep;
    /* deep holds another context's frames: a context whose levels past
     * CT_HOT_DEPTH were not kept came back (context.c).  Its levels there
     * are not kept till it is back at CT_HOT_DEPTH. */
    uint32_t deep_stale;

    uintptr_t stack[CT_HOT_DEPTH];         /* shadow stack of entered fns   */
    /* ~(caller stack pointer) at each frame's enter hook, one slot up:
     * sp_not[d + 1] is level d's, and the zero in sp_not[0] lets the
     * hook compare with the top without a test for depth 0 (jump.c). */
    uintptr_t sp_not[CT_HOT_DEPTH + 1];
    uint64_t hidden[CT_MAX_DEPTH / 64];    /* bit set: frame is hidden      */
    /* Last, so the fields the hooks read keep their offsets. */
    void *profile;        /* CALLTRACE_MODE=profile: its table (profile_mode.c) */
} __attribute__((aligned(64)));

/* The `end` of a thread whose records must stay below lim: a record of
 * up to CT_REC_MAX_HOT bytes starting below it fits. */
static inline uint8_t *ct_hot_end(uint8_t *lim)
{
    return lim - (CT_REC_MAX_HOT - 1);
}

/* Where records must stop, from a thread's `end` (its inverse). */
static inline uint8_t *ct_room_end(const uint8_t *end)
{
    return (uint8_t *)end + (CT_REC_MAX_HOT - 1);
}

/* The shadow stack's levels past CT_HOT_DEPTH (ct_thread.deep). */
struct ct_deep_frames {
    uintptr_t fn[CT_MAX_DEPTH - CT_HOT_DEPTH];
    uintptr_t sp_not[CT_MAX_DEPTH - CT_HOT_DEPTH];  /* level's own slot */
};

/* How many levels of t's shadow stack are kept: deeper frames are
 * recorded, but their function and stack pointer are not known. */
static inline uint32_t ct_frames_kept(const struct ct_thread *t)
{
    return t->deep && !t->deep_stale ? CT_MAX_DEPTH : CT_HOT_DEPTH;
}

/* The function of a kept level d. */
static inline uintptr_t ct_frame_fn(const struct ct_thread *t, uint32_t d)
{
    return d < CT_HOT_DEPTH ? t->stack[d] : t->deep->fn[d - CT_HOT_DEPTH];
}

/* The caller stack pointer of level d's enter hook; levels deeper than
 * the shadow stack give the deepest kept one's. */
static inline uintptr_t ct_frame_sp(const struct ct_thread *t, uint32_t d)
{
    uint32_t kept = ct_frames_kept(t);
    if (d >= kept)
        d = kept - 1;
    return d < CT_HOT_DEPTH ? ~t->sp_not[d + 1]
                            : ~t->deep->sp_not[d - CT_HOT_DEPTH];
}

/* Keeps t's levels past CT_HOT_DEPTH from now, mapping them when it has
 * none; only while none is open.  False when they cannot be had, or
 * when one is open and they are not kept (thread.c). */
int ct_frames_deepen(struct ct_thread *t);

/* Keeps fn and its caller stack pointer sp at level d, when the level is
 * kept: the slow paths' push (the hooks' own is in hot.c).  The first
 * push past CT_HOT_DEPTH maps the deeper levels. */
static inline void ct_frame_put(struct ct_thread *t, uint32_t d, uintptr_t fn,
                                uintptr_t sp)
{
    if (d < CT_HOT_DEPTH) {
        t->stack[d] = fn;
        t->sp_not[d + 1] = ~sp;
    } else if (d < CT_MAX_DEPTH &&
               (ct_frames_kept(t) == CT_MAX_DEPTH ||
                (d == CT_HOT_DEPTH && ct_frames_deepen(t)))) {
        t->deep->fn[d - CT_HOT_DEPTH] = fn;
        t->deep->sp_not[d - CT_HOT_DEPTH] = ~sp;
    }
}

extern __thread struct ct_thread *ct_self
    __attribute__((tls_model("initial-exec")));

/*
 * Global switch read by the hot path: (generation << 1) | off.  Every
 * change bumps the generation, so a thread that compares its `expect` with
 * it notices any change (and then writes a TOGGLE record from its slow
 * path).  off is set while tracing is disabled, not yet started, or
 * stopped after a failure.
 */
extern uint64_t ct_global_word;

CT_API void __cyg_profile_func_enter(void *fn, void *site);
CT_API void __cyg_profile_func_exit(void *fn, void *site);
/* The enter hook for a frame whose caller's stack pointer is sp (a library
 * call recorded by plt.c). */
void ct_enter_at(void *fn, void *site, uintptr_t sp);
/* The same with the n bytes of a record encoded in rec written after the
 * ENTRY in the same pass (4 <= n <= CT_ENTER_WITH_MAX); -1 with nothing
 * written where the fast path is shut. */
#define CT_ENTER_WITH_MAX 96
int ct_enter_with(void *fn, void *site, uintptr_t sp, const uint8_t *rec,
                  size_t n);
/* A return with the n bytes of its RETVAL record, encoded
 * in rec, written before its EXIT in one pass: the thread's top frame,
 * of fn, opened at depth; -1 with nothing written otherwise or where the
 * fast path is shut. */
int ct_exit_with(void *fn, uint32_t depth, const uint8_t *rec, size_t n);
/* A library call's ENTRY (caller's stack pointer sp), and the EXIT of the
 * top frame, of fn, opened at depth, by the fast path alone: 0, or -1
 * with nothing written (the library-call stub's fast way, plt.c). */
int ct_enter_try(void *fn, void *site, uintptr_t sp);
int ct_exit_try(void *fn, uint32_t depth);
/* The same with a record of n bytes the caller writes at the position
 * returned (NULL: nothing written, the fast path is shut) and ends with
 * ct_hot_close(its end). */
uint8_t *ct_enter_open(void *fn, void *site, uintptr_t sp, size_t n);
/* Ends a record written in place while the thread's gate was held. */
void ct_hot_close(uint8_t *end);
/* The hooks of CALLTRACE_CLOCK=tsc-fenced, which each object's imports
 * of the two above are pointed at (clock_hooks.c). */
void ct_fenced_enter(void *fn, void *site);
void ct_fenced_exit(void *fn, void *site);
/* The exit hook, called from inside the tracer without the PLT (the
 * patchable-entry trampoline, patch.c). */
void ct_exit_at(void *fn, void *site);
/* A library call of a function that returns twice (getcontext,
 * swapcontext, the setjmp family), retp the address of its return
 * address: when it was made through a PLT entry of an object whose calls
 * are recorded (plt.c, ct_plt_wrapped_call), it is written as a call that
 * returns at once (context.c); else nothing. */
void ct_write_leaf_call(uintptr_t *retp);

/* Slow paths of the hooks. */
void ct_enter_slow(uintptr_t fn, uintptr_t site, uintptr_t sp) CT_COLD;
void ct_exit_slow(uintptr_t fn, uintptr_t site) CT_COLD;

/* The calling thread's state, created on first use; NULL when it cannot
 * be created or the thread has ended. */
struct ct_thread *ct_thread_get(void);
/* The calling thread records nothing more, and makes no system call for
 * it (its events are counted lost, in memory): seccomp strict mode. */
void ct_thread_retire_current(void);

/* The tracer's own stack of each thread, in the mapping of its state:
 * [struct ct_thread][guard page][ct_tracer_stack bytes].  The deep work
 * (block switch, a thread's first event, a sample's stack walk) runs
 * there, so the program's stack, or its small signal stack, only holds
 * the hooks' small frames (docs/reliability.md, "The program's stack").
 * The deepest use measured is 1.4 KiB without sampling and 5.2 KiB for
 * the SIGPROF timer's walk with libunwind, whose worst case is not known:
 * CT_TRACER_STACK (16 KiB) unless sampling is asked for, then
 * CT_TRACER_STACK_SAMPLING.  Chosen once at start (ct_tracer_stack_choose),
 * before the first state is made. */
#define CT_TRACER_STACK (16u << 10)
#define CT_TRACER_STACK_SAMPLING (64u << 10)
extern uint32_t ct_tracer_stack;
void ct_tracer_stack_choose(int sampling);
/* Calls fn(arg) with the stack pointer at top (stack.S). */
void ct_stack_call(void (*fn)(void *), void *arg, void *top);
/* Calls fn(arg) on t's tracer stack, or where it is when already on it.
 * block: the signals that may come at any time are blocked meanwhile, so
 * that no handler of the program runs on the tracer's stack (faults stay
 * deliverable). */
void ct_deep_call(struct ct_thread *t, void (*fn)(void *), void *arg,
                  int block);

/*
 * Appends one EXT record to the calling thread's current block, opening a
 * block if needed.  Safe to call from a signal handler running on that
 * thread (e.g. a SIGPROF sampler writing CT_EXT_SAMPLE): when the handler
 * interrupted the tracer itself the recursion guard drops the record and
 * counts it as lost.  Returns 0 when written, -1 when dropped.
 */
int ct_tracer_append_ext(unsigned subtype, const void *payload, size_t len);

/* Ends now the calling thread's open frames, innermost first, as long as
 * left(frame's stack pointer at its enter hook, arg) holds (jump.c). */
void ct_leave_frames(int (*left)(uintptr_t sp, const void *arg),
                     const void *arg);

/* The calling thread goes over to context id (context.c): under the
 * slow path's guard, swap(t, id, arg) exchanges the shadow stack for
 * that context's, then a CONTEXT record lists its frames. */
void ct_thread_switch_context(uint32_t id,
                              void (*swap)(struct ct_thread *t, uint32_t id,
                                           void *arg),
                              void *arg);
/* t has just taken up the frames of context t->context, under the slow
 * path's guard: the profile mode's stack follows, and a CONTEXT record
 * names it (with no room for it, later events are counted lost until a
 * block names the context). */
void ct_thread_enter_context(struct ct_thread *t);
/* The thread ends, under the slow path's guard: the frames of its
 * suspended contexts that wait on their duration go into the trace (or
 * are counted) in their own context, as the running context's do
 * (ct_filter_thread_close), which then runs again. */
void ct_context_close_filters(struct ct_thread *t);
/* A thread's state is going away: its saved contexts with it. */
void ct_context_thread_release(struct ct_thread *t);

/* Whether a C++ runtime (libstdc++, libc++) is loaded: what the tracer
 * would look up in one is not looked up otherwise, since a dlsym that fails
 * mallocs its error message (jump.c). */
int ct_cxx_runtime_loaded(void);

/* 0 when one of the two stack pointers is on the thread's alternate
 * signal stack and the other is not. */
int ct_same_stack(uintptr_t a, uintptr_t b);

/* Marks the file as holding stack samples taken every interval_ns
 * (sample.c, CALLTRACE_MODE=sample or both). */
void ct_tracer_set_sampled(uint64_t interval_ns);

/* Time since the thread's previous record, clamped so it never goes
 * back; advances prev_ticks. */
static inline uint64_t ct_tick_delta(struct ct_thread *t, uint64_t now)
{
    if (now < t->prev_ticks)
        now = t->prev_ticks;
    uint64_t d = now - t->prev_ticks;
    t->prev_ticks = now;
    return d;
}

/*
 * On-CPU records (cputime.c).  A thread gets a perf_event_open ring of its
 * context switches (CALLTRACE_CPUTIME=switch, the default) or, where that
 * is refused or CALLTRACE_CPUTIME=clock, reads its CPU-time clock at block
 * boundaries.  The records are written by the slow path only: at each
 * block's start, every CT_CPU_CHECK_BYTES of records (the hot path's
 * `end` is set that far ahead, so it comes to the slow path by itself),
 * and at the thread's end.
 */
#define CT_CPU_CHECK_BYTES (1u << 10)
void ct_cpu_thread_start(struct ct_thread *t);
/* Writes the thread's SWITCH or CPUTIME record at pos, using no more than
 * up to lim; force writes a SWITCH record even with nothing new. */
void ct_cpu_record(struct ct_thread *t, uint8_t *lim, int force);
/* The profile mode (profile_mode.c): the ring drained, the off-CPU
 * intervals that ended since the last drain summed (ns). */
uint64_t ct_cpu_drain_off_ns(struct ct_thread *t);
/* Whether the ring has records not yet drained. */
int ct_cpu_pending(const struct ct_thread *t);
/* The thread ends (or a forked child drops its parent's ring). */
void ct_cpu_thread_release(struct ct_thread *t, int forked_child);
/* A forked child's new file header learns what its thread could open. */
void ct_cpu_header_after_fork(void);

/* For filter.c, inside a slow path: room for need bytes (0, or -1 when
 * no block can be had), the bytes left before the block's reserve, and
 * events lost. */
int ct_thread_room(struct ct_thread *t, size_t need);
size_t ct_thread_room_left(const struct ct_thread *t);
void ct_thread_count_lost(struct ct_thread *t, uint64_t n);

/* Region toggle (CALLTRACE_OFF/ON) for the calling thread. */
void ct_thread_region(int on);

/* Closes the calling thread's block (when the thread is not inside the
 * tracer), flushing lost counts; last marks the thread's end. */
void ct_thread_close_current(int last);
/* At a clean close: every other live thread gets a last block whose
 * THREAD_END, at the time of the exit, ends its open frames. */
void ct_threads_end_others(void);
/* After a failed exec: the threads ended for it record again. */
void ct_threads_resume_others(void);
/* pthread key destructor: the thread is ending. */
void ct_thread_key_dtor(void *arg);
/* In a forked child: forget the parent's blocks and other threads, keep
 * this thread's shadow stack. */
void ct_thread_after_fork_child(void);
/* In the fork handlers, registry locked: thread states kept in the child
 * (1) or wiped there, as they are otherwise (0). */
void ct_threads_fork_keep(int keep);
/* Execution contexts made by clone() (wrap_clone.c).  A CLONE_VM child
 * that shares the calling thread's TLS starts (begin) and ends (end); the
 * state of a child with memory of its own starts with no frame open
 * (fresh); a context the tracer cannot give a state of its own gets one
 * that counts its events lost (lost). */
void ct_thread_share_begin(struct ct_thread *t);
/* The same for a vfork child: over once the caller runs again. */
void ct_thread_vfork_begin(struct ct_thread *t);
void ct_thread_share_end(struct ct_thread *t);
void ct_thread_clone_fresh(void);
void ct_thread_set_lost(void);
/* Whether the calling context is another one sharing t (CT_STOP_SHARED):
 * a test of the stop word, a system call only while t is shared. */
int ct_thread_foreign_slow(const struct ct_thread *t);
static inline int ct_thread_foreign(const struct ct_thread *t)
{
    if (ct_likely(!(__atomic_load_n(&t->stop, __ATOMIC_RELAXED) &
                    CT_STOP_SHARED)))
        return 0;
    return ct_thread_foreign_slow(t);
}
void ct_threads_lock(void);
void ct_threads_unlock(void);

/* Re-reads ct_global_word after ct_enabled / ct_failed / ct_started moved. */
void ct_global_update(void);
extern int ct_enabled;   /* calltrace_enable/disable, CALLTRACE_SIGNAL      */

/*
 * Encoders shared by the hot path, the slow path and the tests.  The plain
 * varint loop is kept on purpose: its branches are predicted (deltas keep
 * their length), so the next store's address goes ahead without waiting
 * for the rdtsc result.  A branch-free two-byte encoder made every store
 * wait for the clock and cost 1.4 ns more per call; an unrolled one- and
 * two-byte version was no faster (bench/RESULTS-tracer.md).
 */
static inline __attribute__((always_inline)) uint8_t *
ct_enc_entry(uint8_t *p, uint64_t dt, uintptr_t fn, uintptr_t prev_fn,
             uintptr_t site, uintptr_t prev_site)
{
    p = ct_put_varint(p, ct_head(dt, CT_REC_ENTRY));
    p = ct_put_varint(p, ct_zigzag((int64_t)(fn - prev_fn)));
    return ct_put_varint(p, ct_zigzag((int64_t)(site - prev_site)));
}

static inline __attribute__((always_inline)) uint8_t *
ct_enc_exit(uint8_t *p, uint64_t dt)
{
    return ct_put_varint(p, ct_head(dt, CT_REC_EXIT));
}

/* n bytes of a record encoded beforehand, from s to d, in words, the last
 * one ending at the end (over the one before), so that no byte past it
 * is written; where the next record goes.  No call into the C library,
 * whose copies may use (and clear the upper halves of) the vector
 * registers a library call's arguments are still in. */
static inline __attribute__((always_inline)) uint8_t *
ct_copy_words(uint8_t *d, const uint8_t *s, size_t n)
{
    uint64_t w;
    uint32_t x;
    if (n < 8) {
        if (ct_likely(n >= 4)) {
            memcpy(&x, s, 4), memcpy(d, &x, 4);
            memcpy(&x, s + n - 4, 4), memcpy(d + n - 4, &x, 4);
        } else {
            for (size_t i = 0; i < n; i++)
                d[i] = s[i];
        }
    } else {
        for (size_t i = 0; i + 8 < n; i += 8)
            memcpy(&w, s + i, 8), memcpy(d + i, &w, 8);
        memcpy(&w, s + n - 8, 8), memcpy(d + n - 8, &w, 8);
    }
    return d + n;
}

static inline uint8_t *ct_enc_ext_head(uint8_t *p, uint64_t dt, uint8_t sub,
                                       size_t len)
{
    p = ct_put_varint(p, ct_head(dt, CT_REC_EXT));
    *p++ = sub;
    return ct_put_varint(p, len);
}

#pragma GCC visibility pop

#endif /* CT_TRACER_THREAD_H */
