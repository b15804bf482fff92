/*
 * The two hooks gcc and clang call from every function built with
 * -finstrument-functions.  Only the fast path lives here: read the clock,
 * check the room left in the block, encode, store.  No lock, no system
 * call, no allocation, errno untouched.  Everything else (first event on a
 * thread, full block, tracing off, hidden frames, re-entry, an exit that
 * is not the top frame's after a longjmp, frames deeper than the shadow
 * stack) goes to the slow path in thread.c.  The enter hook also keeps
 * the caller's stack pointer of each open frame, which is how jump.c knows
 * which frames a longjmp leaves.
 *
 * One test lets an event through: the thread's `gate` (its stop bits and
 * its busy flag, one 64-bit word) is zero and its `expect` is the global
 * word.  Tracing off, a record-time filter, hidden frames, re-entry and
 * the CLOCK_MONOTONIC clock all fail it.  The busy flag is set right
 * after that test and before anything else is read, so an instrumented
 * signal handler that interrupts the hook later sees it and is dropped
 * (and counted) by the slow path instead of writing into a half-written
 * record.  A handler that runs between the test and the flag finds the
 * flag clear, records its own events whole, and the hook then reads the
 * position, depth and previous values the handler left.
 *
 * The hooks are leaf functions: every call out of them (the slow path, the
 * CLOCK_MONOTONIC variant) is a tail call, so the fast path saves no
 * registers and sets up no frame.
 *
 * Under record-time rules that only exclude, the branch for a failed test
 * settles the call without the slow path (filters/filter_skip.h): left
 * out and counted, or kept and written by the same code as the fast
 * path's, out of line (enter_kept, exit_filtered) so that the hooks keep
 * their fast path's registers.  Under other rules it goes straight to
 * the filters' class table.
 *
 * The patchable-entry mode's trampolines have fast paths here too (at the
 * end): the same records, with the push or pop of the patched frame.
 * This file is built with -mgeneral-regs-only, which those need.
 */
#include "preload/tracer.h"
#include "preload/args/plan.h"
#include "preload/filters/filter_skip.h"
#include "preload/patch/patch.h"
#include "preload/patch/patch_objects.h"
#include "preload/patch/patch_stack.h"

__thread struct ct_thread *ct_self __attribute__((tls_model("initial-exec")));

#ifdef CT_BENCH_FAKE_CLOCK
uint64_t ct_bench_ticks;
#endif

/* Which hook a fast path is inlined into: its clock, and where the
 * caller's stack pointer comes from.  Always a constant, so each hook gets
 * only its own branches. */
enum hook_kind {
    HOOK_OTHER,     /* ct_other_ticks (CLOCK_MONOTONIC, or the TSC's
                       stand-in once it is off); the stack pointer is
                       handed in                                        */
    HOOK_FENCED,    /* the fenced TSC (CALLTRACE_CLOCK=tsc-fenced), called
                       by the program: its stack pointer read here      */
    HOOK_FENCED_SP, /* the same reached from the TSC hooks or the
                       tracer's own entry points: the pointer handed in */
    HOOK_TSC,       /* the TSC; the caller's stack pointer read here       */
    HOOK_TSC_SP,    /* the TSC; the stack pointer given (a library call)   */
};

#define FENCED(kind) ((kind) == HOOK_FENCED || (kind) == HOOK_FENCED_SP)
/* The hooks out of the TSC hooks' line, for a thread whose CT_STOP_CLOCK
 * says its clock is another (enter_other, exit_other, ct_fenced_enter). */
#define OUT_OF_LINE(kind) ((kind) == HOOK_OTHER || FENCED(kind))

/*
 * The fenced hooks' fences (docs/analysis.md, "A clock read in order"):
 * one first, so that the work before the hook (the function's body, at
 * an exit; the caller's, at an entry) is done before the hook starts;
 * one last, once the record is written, so that the work after it does
 * not start under the hook's tail.  The hook's own work between them is
 * the same at every call, which the bias subtraction takes off; without
 * them a body of 8 ns ran entirely under the hooks' work and was
 * reported at 1-3 ns.
 */
static inline __attribute__((always_inline)) void hook_fence(enum hook_kind kind)
{
    if (FENCED(kind))
        __asm__ volatile("lfence" ::: "memory");
}

static inline __attribute__((always_inline)) uint64_t
hook_clock(enum hook_kind kind)
{
    if (FENCED(kind))  /* after hook_fence; as ct_other_ticks once off */
        return ct_likely(!__atomic_load_n(&ct_tsc_off, __ATOMIC_RELAXED))
                   ? ct_read_tsc()
                   : ct_tsc_gone_ticks();
    return !OUT_OF_LINE(kind) ? ct_read_tsc() : ct_other_ticks();
}

/* The caller's stack pointer at the call: for the hooks the program
 * calls, read where it is stored so it ties up no register on the way;
 * the others are handed it. */
#define CALLER_SP(kind, sp)                                                 \
    ((kind) == HOOK_TSC || (kind) == HOOK_FENCED                            \
         ? (uintptr_t)__builtin_dwarf_cfa()                                 \
         : (sp))

/* Stop bits the hook of a clock lets through. */
#define IGNORED_STOP(kind) (!OUT_OF_LINE(kind) ? 0u : CT_STOP_CLOCK)

/* Clears the busy flag at the end of the fast path.  The TSC hooks store
 * the whole gate, whose stop bits they found zero: the next hook's 64-bit
 * load of the gate can then take its value from this store, which a
 * 32-bit store of busy alone cannot forward to (the load would wait for
 * the store to reach the cache).  Nothing else writes the stop bits while
 * busy is set (ct_thread_region, the one slow path a handler may run
 * without looking at busy, leaves them alone). */
static inline __attribute__((always_inline)) void
hook_done(struct ct_thread *t, enum hook_kind kind, uint32_t stop)
{
    ct_signal_fence();
    if (!OUT_OF_LINE(kind))
        t->gate = stop;
    else
        t->busy = 0;
    hook_fence(kind);
}

static void enter_other(void *fn, void *site, uintptr_t sp);
static void exit_other(void *fn, void *site);
static void enter_kept(struct ct_thread *t, void *fn, void *site,
                       uintptr_t sp);
static void exit_filtered(struct ct_thread *t, void *fn, void *site,
                          int how, uint64_t w);

/* A record encoded beforehand, rec[0 .. n), copied to p (ct_copy_words).
 * Its callers' records are never shorter than 4 bytes (a head, a kind, a
 * length and one value): said here, the copy needs no byte loop, whose
 * registers the entry points below would save. */
static inline __attribute__((always_inline)) uint8_t *
copy_record(uint8_t *p, const uint8_t *rec, size_t n)
{
    if (n < 4)
        __builtin_unreachable();
    return ct_copy_words(p, rec, n);
}

/* The ENTRY record and the frame, once the gate let the event through
 * (busy not yet set); the thread's stop bits were `stop` and stay so.
 * 0, or -1 (busy clear again) for what only the slow path does.  With
 * `more` (a constant: 0 in the hooks) the thread stays busy, for a record
 * of up to `more` bytes that follows in the same pass (ct_enter_with). */
static inline __attribute__((always_inline)) int
enter_record(struct ct_thread *t, void *fn, void *site, uintptr_t sp,
             enum hook_kind kind, uint32_t stop, size_t more)
{
    t->busy = 1;
    ct_signal_fence();
    uint8_t *p = t->pos;
    uint32_t d = t->depth;
    /* A callee's stack pointer is never above its caller's: when it is,
     * the top frame is gone (unwound by an exception's cleanup, or left by
     * a jump no wrapper saw), and the slow path ends it.  Stored inverted,
     * so the empty stack's slot (zero) never compares above. */
    if (ct_unlikely(p >= t->end || d >= CT_HOT_DEPTH ||
                    t->sp_not[d] > ~CALLER_SP(kind, sp) ||
                    (more && (size_t)(ct_room_end(t->end) - p) <
                                 CT_REC_MAX_HOT + more))) {
        t->busy = 0;
        return -1;
    }
    uint64_t now = hook_clock(kind);
    uint64_t prev = t->prev_ticks;
    if (ct_unlikely(now < prev))  /* TSC of another core lagging a little */
        now = prev;
    p = ct_enc_entry(p, now - prev, (uintptr_t)fn, t->prev_fn,
                     (uintptr_t)site, t->prev_site);
    /* Read again rather than kept in a register through the encoding,
     * which would cost the hook two saved registers. */
    d = *(volatile uint32_t *)&t->depth;
    t->stack[d] = (uintptr_t)fn;
    t->sp_not[d + 1] = ~CALLER_SP(kind, sp);
    t->depth = d + 1;
    t->prev_ticks = now;
    t->prev_fn = (uintptr_t)fn;
    t->prev_site = (uintptr_t)site;
    t->pos = p;
    if (!more)
        hook_done(t, kind, stop);
    return 0;
}

static inline __attribute__((always_inline)) void
hook_enter(void *fn, void *site, uintptr_t sp, enum hook_kind kind)
{
    hook_fence(kind);
    struct ct_thread *t = ct_self;
    if (ct_unlikely(!t))
        goto slow;
    uint64_t w = __atomic_load_n(&ct_global_word, __ATOMIC_RELAXED);
    /* Tracing off makes `expect` ~0, so this fails then too. */
    if (ct_unlikely(((t->gate & ~(uint64_t)IGNORED_STOP(kind)) |
                     (t->expect ^ w)) != 0)) {
        /* Under rules that only exclude (filter_skip.h): a call left out
         * is counted, and one kept is written as below.  First, as the
         * one of these a run may make at every call. */
        int how = ct_fskip_enter(t, (uintptr_t)fn, w, IGNORED_STOP(kind));
        if (ct_likely(how == CT_FSKIP_DONE))
            return;
        if (how == CT_FSKIP_KEEP && !OUT_OF_LINE(kind)) {
            enter_kept(t, fn, site, CALLER_SP(kind, sp));
            return;
        }
        /* Paused, nothing open: only counted, which costs next to
         * nothing.  No busy flag: a handler that interrupts the count
         * adds and takes back its own frames, whose net is zero. */
        if ((w & 1) && t->depth == 0 && !t->last_on &&
            (t->gate & ~(uint64_t)IGNORED_STOP(kind)) == 0) {
            t->blind++;
            return;
        }
        /* Other rules: the filters' class table, straight away. */
        if (!OUT_OF_LINE(kind) && ct_ffast_hook_gate(t, w)) {
            ct_filter_fast_enter_gated(t, (uintptr_t)fn, (uintptr_t)site,
                                       CALLER_SP(kind, sp));
            return;
        }
        goto other;
    }
    if (ct_likely(enter_record(t, fn, site, sp, kind, 0, 0) == 0))
        return;
    goto slow;
other:
    if (!OUT_OF_LINE(kind)) {
        enter_other(fn, site, CALLER_SP(kind, sp));
        return;
    }
slow:
    ct_enter_slow((uintptr_t)fn, (uintptr_t)site, CALLER_SP(kind, sp));
}

/* The EXIT record, as enter_record; with `more` (a constant: 0 in the
 * hooks) the more bytes of a record encoded beforehand in rec go first
 * (ct_exit_with). */
static inline __attribute__((always_inline)) int
exit_record(struct ct_thread *t, void *fn, enum hook_kind kind, uint32_t stop,
            const uint8_t *rec, size_t more)
{
    t->busy = 1;
    ct_signal_fence();
    uint8_t *p = t->pos;
    uint32_t d = t->depth;
    /* An exit that is not the top frame's (longjmp skipped frames), at
     * depth 0 (d wraps) or deeper than the shadow stack is sorted out by
     * the slow path. */
    if (ct_unlikely(p >= t->end || d - 1 >= CT_HOT_DEPTH ||
                    t->stack[(uintptr_t)d - 1] != (uintptr_t)fn ||
                    (more && (size_t)(ct_room_end(t->end) - p) <
                                 CT_REC_MAX_HOT + more))) {
        t->busy = 0;
        return -1;
    }
    if (more)
        p = copy_record(p, rec, more);
    uint64_t now = hook_clock(kind);
    uint64_t prev = t->prev_ticks;
    if (ct_unlikely(now < prev))
        now = prev;
    t->pos = ct_enc_exit(p, now - prev);
    t->depth = d - 1;
    t->prev_ticks = now;
    hook_done(t, kind, stop);
    return 0;
}

static inline __attribute__((always_inline)) void
hook_exit(void *fn, void *site, enum hook_kind kind)
{
    hook_fence(kind);
    struct ct_thread *t = ct_self;
    if (ct_unlikely(!t))
        goto slow;
    uint64_t w = __atomic_load_n(&ct_global_word, __ATOMIC_RELAXED);
    if (ct_unlikely(((t->gate & ~(uint64_t)IGNORED_STOP(kind)) |
                     (t->expect ^ w)) != 0)) {
        if ((w & 1) && t->depth == 0 && t->blind &&
            (t->gate & ~(uint64_t)IGNORED_STOP(kind)) == 0) {
            t->blind--;  /* the return of a frame only counted */
            return;
        }
        /* The return of a call the skip table left out: nothing to
         * undo (filter_skip.h).  Anything else, out of line.  The fenced
         * exit hook asks the table as the TSC one does: its call may
         * have been left out by the TSC enter hook (an object whose enter
         * hook the argument rules point at their trampoline). */
        if (!OUT_OF_LINE(kind) || kind == HOOK_FENCED) {
            int how = ct_fskip_exit(t, (uintptr_t)fn, w, 0);
            if (how == CT_FSKIP_DONE)
                return;
            if (kind == HOOK_FENCED)
                goto slow;
            exit_filtered(t, fn, site, how, w);
            return;
        }
        goto other;
    }
    if (ct_likely(exit_record(t, fn, kind, 0, NULL, 0) == 0))
        return;
    goto slow;
other:
    if (!OUT_OF_LINE(kind)) {
        exit_other(fn, site);
        return;
    }
slow:
    ct_exit_slow((uintptr_t)fn, (uintptr_t)site);
}

/* A call the skip table's rules keep (filter_skip.h), written as the fast
 * path writes it with the rules' stop bit kept.  Out of the hooks, which
 * would otherwise need a saved register on their own fast path. */
static __attribute__((noinline)) void
enter_kept(struct ct_thread *t, void *fn, void *site, uintptr_t sp)
{
    if (enter_record(t, fn, site, sp, HOOK_TSC_SP, CT_STOP_FILTER, 0) != 0)
        ct_enter_slow((uintptr_t)fn, (uintptr_t)site, sp);
}

/* The TSC hooks' exit when their test failed under global word w and the
 * skip table did not settle it (`how`, ct_fskip_exit's answer): the
 * return of a call it kept is written as the fast path writes it, with
 * the rules' stop bit kept; under other rules the class table's way, with
 * the hook's thread.  Out of the hook, whose fast path would otherwise
 * need more registers; not cold, as under an include every return comes
 * here. */
static __attribute__((noinline)) void
exit_filtered(struct ct_thread *t, void *fn, void *site, int how, uint64_t w)
{
    if (how == CT_FSKIP_KEEP &&
        exit_record(t, fn, HOOK_TSC, CT_STOP_FILTER, NULL, 0) == 0)
        return;
    if (ct_ffast_hook_gate(t, w)) {
        ct_filter_fast_exit_gated(t, (uintptr_t)fn, (uintptr_t)site);
        return;
    }
    exit_other(fn, site);
}

/* The same hooks on the other clocks, kept out of the TSC hooks so those
 * need no test of the clock.  The TSC hooks come here when the thread's
 * stop word carries CT_STOP_CLOCK: the fenced TSC (CALLTRACE_CLOCK=
 * tsc-fenced), whose hooks are leaves as the TSC hooks are and read the
 * TSC's stand-in themselves once it is turned off (hook_clock), or
 * ct_other_ticks (CLOCK_MONOTONIC, a call; the TSC turned off). */
static __attribute__((noinline)) void
enter_fenced(void *fn, void *site, uintptr_t sp)
{
    hook_enter(fn, site, sp, HOOK_FENCED_SP);
}

static __attribute__((noinline)) void exit_fenced(void *fn, void *site)
{
    hook_exit(fn, site, HOOK_FENCED_SP);
}

static CT_COLD void enter_mono(void *fn, void *site, uintptr_t sp)
{
    hook_enter(fn, site, sp, HOOK_OTHER);
}

static CT_COLD void exit_mono(void *fn, void *site)
{
    hook_exit(fn, site, HOOK_OTHER);
}

static __attribute__((noinline)) void
enter_other(void *fn, void *site, uintptr_t sp)
{
    if (ct_clock_is_tsc)
        ct_enter_slow((uintptr_t)fn, (uintptr_t)site, sp);
    else if (ct_clock_fenced)
        enter_fenced(fn, site, sp);
    else
        enter_mono(fn, site, sp);
}

static __attribute__((noinline)) void exit_other(void *fn, void *site)
{
    if (ct_clock_is_tsc)
        ct_exit_slow((uintptr_t)fn, (uintptr_t)site);
    else if (ct_clock_fenced)
        exit_fenced(fn, site);
    else
        exit_mono(fn, site);
}

/* The fenced clock's own hooks, which each object's calls of the hooks
 * are pointed at (hot/clock_hooks.c): their first fence comes before
 * anything else, where the TSC hooks' failing test would otherwise run
 * under the body's last instructions. */
void ct_fenced_enter(void *fn, void *site)
{
    hook_enter(fn, site, 0, HOOK_FENCED);
}

void ct_fenced_exit(void *fn, void *site)
{
    hook_exit(fn, site, HOOK_FENCED);
}

/* The caller's stack pointer at the call goes on the shadow stack beside
 * the function, so a longjmp or a caught exception can tell which frames
 * it leaves (jump.c). */
CT_API void __cyg_profile_func_enter(void *fn, void *site)
{
    hook_enter(fn, site, 0, HOOK_TSC);
}

CT_API void __cyg_profile_func_exit(void *fn, void *site)
{
    hook_exit(fn, site, HOOK_TSC);
}

/* The exit hook for the tracer's own trampolines (patch.c): the same,
 * called without the PLT an exported symbol's call takes. */
void ct_exit_at(void *fn, void *site)
{
    hook_exit(fn, site, HOOK_TSC);
}

/* A library call's entry (plt.c): its caller's stack pointer is the PLT
 * call's, given, not that of the stub recording it (HOOK_TSC_SP). */
void ct_enter_at(void *fn, void *site, uintptr_t sp)
{
    hook_enter(fn, site, sp, HOOK_TSC_SP);
}

/* The calling thread when the hooks' fast path is open to it (no stop
 * bit, not busy, its `expect` the global word), else NULL: the one test
 * of the gate of the entry points below. */
static inline __attribute__((always_inline)) struct ct_thread *
open_thread(void)
{
    struct ct_thread *t = ct_self;
    if (ct_unlikely(!t))
        return NULL;
    uint64_t w = __atomic_load_n(&ct_global_word, __ATOMIC_RELAXED);
    return ct_likely((t->gate | (t->expect ^ w)) == 0) ? t : NULL;
}

/* The calling thread with its ENTRY and frame written as the enter hook's
 * fast path writes them, kept busy for a record of up to `more` bytes
 * after them when `more` is not 0; NULL, with nothing written, wherever
 * the fast path is shut. */
static inline __attribute__((always_inline)) struct ct_thread *
open_enter(void *fn, void *site, uintptr_t sp, size_t more)
{
    struct ct_thread *t = open_thread();
    if (ct_unlikely(!t || enter_record(t, fn, site, sp, HOOK_TSC_SP, 0,
                                       more) != 0))
        return NULL;
    return t;
}

/* The calling thread when the fast path is open to it and its top frame
 * is the one opened at depth (its caller's), else NULL. */
static inline __attribute__((always_inline)) struct ct_thread *
open_top(uint32_t depth)
{
    struct ct_thread *t = open_thread();
    return ct_likely(t && t->depth == depth + 1) ? t : NULL;
}

/* A call of the program's and its ARGS record (args/plan.c), encoded
 * beforehand in rec[0 .. n): the ENTRY and the frame as the enter hook's
 * fast path writes them, then those n bytes, under one test of the gate
 * and one look-up of the thread.  0, or -1 with nothing written wherever
 * the fast path is shut.  n is at least 4 (a record's head, its kind,
 * its length and one value) and at most CT_ENTER_WITH_MAX. */
int ct_enter_with(void *fn, void *site, uintptr_t sp, const uint8_t *rec,
                  size_t n)
{
    struct ct_thread *t = open_enter(fn, site, sp, CT_ENTER_WITH_MAX);
    if (ct_unlikely(!t))
        return -1;
    t->pos = copy_record(t->pos, rec, n);
    hook_done(t, HOOK_TSC_SP, 0);
    return 0;
}

/* A return whose value a rule keeps (args/plan.c; a library call's, or a
 * taken return's at its trampoline): its RETVAL record, encoded
 * beforehand in rec[0 .. n) and stamped with the thread's latest time,
 * then its EXIT, as the exit hook's fast path writes it, under one test
 * of the gate.  Only for the thread's top frame, of fn, opened at depth
 * (its caller's); 0, or -1 with nothing written.  4 <= n <=
 * CT_ENTER_WITH_MAX. */
int ct_exit_with(void *fn, uint32_t depth, const uint8_t *rec, size_t n)
{
    struct ct_thread *t = open_top(depth);
    if (ct_unlikely(!t))
        return -1;
    return exit_record(t, fn, HOOK_TSC, 0, rec, n);
}

/*
 * The library-call stub's fast paths (libcalls/plt.c, ct_plt_enter_fast
 * and ct_plt_exit_fast): a library call's ENTRY, with its caller's stack
 * pointer sp, and the EXIT of the thread's top frame, of fn, opened at
 * depth, as the hooks' fast paths write them.  0, or -1 with nothing
 * written wherever the fast path is shut (the stub then takes its full
 * way, whose hooks take the slow path).  Like the rest of this file they
 * use no vector register.
 */
int ct_enter_try(void *fn, void *site, uintptr_t sp)
{
    return open_enter(fn, site, sp, 0) ? 0 : -1;
}

int ct_exit_try(void *fn, uint32_t depth)
{
    struct ct_thread *t = open_top(depth);
    if (ct_unlikely(!t))
        return -1;
    return exit_record(t, fn, HOOK_TSC, 0, NULL, 0);
}

/* The same for a record the caller writes itself, of n bytes at the
 * position returned (args/plan.c's with a string's text), ended by
 * ct_hot_close; NULL, with nothing written, wherever the fast path is
 * shut. */
uint8_t *ct_enter_open(void *fn, void *site, uintptr_t sp, size_t n)
{
    struct ct_thread *t = open_enter(fn, site, sp, n ? n : 1);
    return t ? t->pos : NULL;
}

/* The end of a record written in place while the thread's gate was held
 * (ct_enter_open, or args.c's in-place records after the ENTRY): the
 * position moved past it and the whole gate cleared, its stop bits
 * having been zero, as the hooks end their fast path. */
void ct_hot_close(uint8_t *end)
{
    struct ct_thread *t = ct_self;
    t->pos = end;
    hook_done(t, HOOK_TSC_SP, 0);
}

/*
 * The patchable-entry trampolines' fast paths (patch/patch_tramp.S): a
 * patched call's ENTRY and its frame on the thread's stack of patched
 * frames, or its EXIT and the frame's pop, in one function each.  They
 * touch no vector register (this file is built with -mgeneral-regs-only),
 * so the trampoline around them saves only the general registers the ABI
 * lets them clobber that it must keep: at an entry the arguments, at a
 * return %rax and %rdx.  Anything but the plain case (no stack yet, the
 * gate shut, frames left by a jump or a tail call below, a handler inside
 * a push, the hot path's own checks) returns 0 with nothing written, and
 * the trampoline takes the full way: patch.c's ct_patch_enter and
 * ct_patch_leave, then the hooks' own entry points.
 *
 * Under the sanitizers, whose calls would clobber vector registers the
 * trampoline does not save, they always say 0.
 */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define CT_UNSANITIZED __attribute__((no_sanitize("address", "thread")))
CT_UNSANITIZED uintptr_t
ct_patch_enter_fast(const struct ct_sled *s, uintptr_t *slot)
{
    (void)s, (void)slot;
    return 0;
}

CT_UNSANITIZED uintptr_t ct_patch_leave_fast(uintptr_t sp)
{
    (void)sp;
    return 0;
}

CT_UNSANITIZED uintptr_t ct_patch_leave_args_fast(uintptr_t sp, uint64_t rax)
{
    (void)sp, (void)rax;
    return 0;
}

CT_UNSANITIZED uintptr_t
ct_patch_enter_args_fast(const struct ct_sled *s, uintptr_t *slot,
                         const uintptr_t *saved)
{
    (void)s, (void)slot, (void)saved;
    return 0;
}

CT_UNSANITIZED uintptr_t
ct_patch_enter_args_fast_vec(const struct ct_sled *s, uintptr_t *slot,
                             const uintptr_t *saved)
{
    (void)s, (void)slot, (void)saved;
    return 0;
}
#else
/* The call of entry s, whose return address is at slot, recorded and its
 * frame kept: the body's address (past the entry's five bytes).  With
 * `saved` (a function whose rule keeps its arguments), the ENTRY and its
 * ARGS are written by the rule's plan from the general registers there.
 * With `ruled` (a function with a rule, whose return goes through the
 * args trampoline) the stack keeps the frame's rule; a plain frame's is never
 * read. */
static inline __attribute__((always_inline)) uintptr_t
patch_enter(const struct ct_sled *s, uintptr_t *slot, const uintptr_t *saved,
            const uint8_t *xmm, bool ruled)
{
    struct ct_thread *t = ct_self;
    struct ct_pstack *ps = ct_pstk;
    if (ct_unlikely(!t || !ps))
        return 0;
    uint32_t n = ps->n;
    /* Frames at or below this slot are patch.c's to sort out (left by a
     * longjmp; this slot's own: a tail call). */
    if (ct_unlikely(ps->busy || n >= CT_PATCH_FRAMES ||
                    (n && ps->f[n - 1].slot <= (uintptr_t)slot)))
        return 0;
    uintptr_t ret = *slot, fn = s->fn;
    /* As patch.c's keep: the slot taken before it is filled, so that a
     * handler that interrupts here pushes above it; taken back if the
     * hot path declines the ENTRY. */
    ps->n = n + 1;
    ct_signal_fence();
    ps->f[n].slot = (uintptr_t)slot;
    ps->f[n].ret = ret;
    ps->f[n].fn = fn;
    if (ruled)
        ps->rule[n] = s->args;
    uint64_t w = __atomic_load_n(&ct_global_word, __ATOMIC_RELAXED);
    /* (each test unlikely on its own: the plain case, saved a constant
     * NULL, compiles to the hooks' branch layout) */
    if (saved && !xmm &&
        __atomic_load_n(&ct_args_plan_int_only[s->args], __ATOMIC_ACQUIRE)) {
        /* Integers alone: their ARGS encoded first, then the ENTRY in
         * line, as below, the thread kept busy for the copy of the ARGS
         * after it in the same pass. */
        uint8_t rec[CT_ARGS_PLAN_INTS_MAX];
        size_t n = ct_args_plan_put_ints(s->args, rec, saved, 1);
        if (ct_unlikely(((t->gate | (t->expect ^ w)) != 0) ||
                        enter_record(t, (void *)fn, (void *)ret,
                                     (uintptr_t)slot, HOOK_TSC_SP, 0,
                                     CT_ARGS_PLAN_INTS_MAX) != 0))
            goto declined;
        t->pos = copy_record(t->pos, rec, n);
        hook_done(t, HOOK_TSC_SP, 0);
    } else if (saved) {
        if (ct_unlikely(ct_args_plan_write_general(s->args, (void *)fn,
                                                   (void *)ret,
                                                   (uintptr_t)slot, saved, 1,
                                                   xmm) != 0))
            goto declined;
    } else if (ct_unlikely(((t->gate | (t->expect ^ w)) != 0) ||
                           enter_record(t, (void *)fn, (void *)ret,
                                        (uintptr_t)slot, HOOK_TSC_SP, 0,
                                        0) != 0)) {
        goto declined;
    }
    return s->at + CT_PATCH_SLED;
declined:
    ct_signal_fence();
    ps->n = n;
    return 0;
}

uintptr_t ct_patch_enter_fast(const struct ct_sled *s, uintptr_t *slot)
{
    return patch_enter(s, slot, NULL, NULL, false);
}

/* A function with a rule: its values by the plan, or (a rule of its
 * return value alone, which the return trampoline keeps) the ENTRY as
 * above; anything the plan cannot write takes the full way.  1 for a
 * plan that reads the vector registers: the trampoline stores their low
 * halves and calls the _vec twin. */
uintptr_t ct_patch_enter_args_fast(const struct ct_sled *s, uintptr_t *slot,
                                   const uintptr_t *saved)
{
    if (ct_unlikely(s->args_fast == CT_SLED_FAST_NONE ||
                    s->args_fast == CT_SLED_FAST_VEC))
        return s->args_fast == CT_SLED_FAST_VEC;
    return patch_enter(s, slot,
                       s->args_fast == CT_SLED_FAST_ARGS ? saved : NULL, NULL,
                       true);
}

uintptr_t ct_patch_enter_args_fast_vec(const struct ct_sled *s,
                                       uintptr_t *slot, const uintptr_t *saved)
{
    return patch_enter(s, slot, saved, (const uint8_t *)(saved + 10), true);
}

/* The newest patched frame when the return whose stack pointer is sp
 * (just past its slot) is its plain one and the fast path is open, its
 * index in *n_out, else NULL. */
static inline __attribute__((always_inline)) struct ct_pframe *
leave_top(struct ct_thread *t, struct ct_pstack *ps, uintptr_t sp,
          uint32_t *n_out)
{
    if (ct_unlikely(!t || !ps))
        return NULL;
    uint64_t w = __atomic_load_n(&ct_global_word, __ATOMIC_RELAXED);
    uint32_t n = ps->n;
    if (ct_unlikely(((t->gate | (t->expect ^ w)) != 0) || n == 0 ||
                    ps->f[n - 1].slot != sp - 8))
        return NULL;
    *n_out = n - 1;
    return &ps->f[n - 1];
}

/* The return of the newest patched frame, the stack pointer sp just past
 * its slot, recorded and the frame popped: its real return address. */
uintptr_t ct_patch_leave_fast(uintptr_t sp)
{
    struct ct_thread *t = ct_self;
    struct ct_pstack *ps = ct_pstk;
    uint32_t n;
    struct ct_pframe *f = leave_top(t, ps, sp, &n);
    if (ct_unlikely(!f))
        return 0;
    uintptr_t ret = f->ret;
    if (ct_unlikely(exit_record(t, (void *)f->fn, HOOK_TSC_SP, 0, NULL,
                                0) != 0))
        return 0;
    ct_signal_fence();
    ps->n = n;
    return ret;
}

/* The RETVAL of rule's plan for the integer return value rax, encoded
 * first, then copied before fn's EXIT, written in line: 0, or -1 with
 * nothing written.  Out of ct_patch_leave_args_fast, whose return of a
 * rule that keeps no value it would otherwise give its frame and saved
 * registers (3.5 ns a call there). */
static __attribute__((noinline)) int
leave_retval(struct ct_thread *t, uint32_t rule, void *fn, uint64_t rax)
{
    uint8_t rec[CT_ARGS_PLAN_RET_MAX];
    size_t k = ct_args_plan_put_return(rule, rax, rec);
    if (ct_unlikely(!k))
        return -1;
    return exit_record(t, fn, HOOK_TSC_SP, 0, rec, k);
}

/* The same for a function whose rule keeps its return value (the return
 * trampoline of patch_tramp.S's args pair): its RETVAL from %rax, rax,
 * and its EXIT written by the rule's plan (args/plan.c).  A value the
 * plan cannot write from %rax (a floating-point one, a string), or a
 * frame whose rule is not known here, takes the full way. */
uintptr_t ct_patch_leave_args_fast(uintptr_t sp, uint64_t rax)
{
    struct ct_thread *t = ct_self;
    struct ct_pstack *ps = ct_pstk;
    uint32_t n;
    struct ct_pframe *f = leave_top(t, ps, sp, &n);
    if (ct_unlikely(!f || !ps->rule[n] || !t->depth))
        return 0;
    uintptr_t ret = f->ret;
    uint32_t rule = ps->rule[n];
    if (__atomic_load_n(&ct_args_plan_no_return[rule], __ATOMIC_ACQUIRE)) {
        /* its arguments alone kept: the plain return's EXIT, in line */
        if (ct_unlikely(exit_record(t, (void *)f->fn, HOOK_TSC_SP, 0, NULL,
                                    0) != 0))
            return 0;
    } else if (leave_retval(t, rule, (void *)f->fn, rax) != 0) {
        return 0;
    }
    ct_signal_fence();
    ps->n = n;
    return ret;
}
#endif
