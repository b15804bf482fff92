/*
 * The two hooks gcc and clang call from every function built with
 * -finstrument-functions.  Only the fast path lives here: read the clock,
 * check the room left in the block, encode, store.  No lock, no system
 * call, no allocation, errno untouched.  Everything else (first event on a
 * thread, full block, tracing off, hidden frames, re-entry, an exit that
 * is not the top frame's after a longjmp) goes to the slow path in
 * thread.c.  The enter hook also keeps the caller's stack pointer of each
 * open frame, which is how jump.c knows which frames a longjmp leaves.
 *
 * The busy flag is set before anything is checked, so an instrumented
 * signal handler that interrupts us sees it and is dropped (and counted)
 * by the slow path instead of writing into a half-written record.
 *
 * The hooks are leaf functions: every call out of them (the slow path, the
 * CLOCK_MONOTONIC variant) is a tail call, so the fast path saves no
 * registers and sets up no frame.
 */
#include "tracer.h"

__thread struct ct_thread *ct_self __attribute__((tls_model("initial-exec")));

#ifdef CT_BENCH_FAKE_CLOCK
uint64_t ct_bench_ticks;
#endif

static inline __attribute__((always_inline)) uint64_t hook_clock(int tsc)
{
    return tsc ? ct_read_tsc() : ct_mono_ns();
}

/* The caller's stack pointer at the call: for the TSC hook, which has no
 * frame, read where it is stored so it ties up no register on the way;
 * the monotonic hook has a frame of its own and is handed it. */
#define CALLER_SP(tsc, sp) ((tsc) == 1 ? (uintptr_t)__builtin_dwarf_cfa() : (sp))

static inline __attribute__((always_inline)) void
hook_enter(void *fn, void *site, uintptr_t sp, int tsc)
{
    struct ct_thread *t = ct_self;
    if (ct_unlikely(!t || t->busy))
        goto slow;
    uint64_t w = ct_global_word;
    if (ct_unlikely(w & 1)) {
        /* Paused, nothing open: only counted, which costs next to
         * nothing.  No busy flag: a handler that interrupts the count
         * adds and takes back its own frames, whose net is zero. */
        if (t->depth == 0 && !t->stop && !t->last_on) {
            t->blind++;
            return;
        }
        goto slow;
    }
    t->busy = 1;
    ct_signal_fence();
    uint8_t *p = t->pos;
    uint32_t d = t->depth;
    /* A callee's stack pointer is never above its caller's: when it is,
     * the top frame is gone (unwound by an exception's cleanup, or left by
     * a jump no wrapper saw), and the slow path ends it.  Stored inverted,
     * so the empty stack's slot (zero) never compares above. */
    uintptr_t top_not = t->sp_not[d < CT_MAX_DEPTH ? d : CT_MAX_DEPTH];
    if (ct_unlikely((t->stop | (t->expect ^ w)) != 0 ||
                    p + CT_REC_MAX_HOT > t->end ||
                    top_not > ~CALLER_SP(tsc, sp))) {
        t->busy = 0;
        goto slow;
    }
    uint64_t now = hook_clock(tsc);
    uint64_t prev = t->prev_ticks;
    if (ct_unlikely(now < prev))  /* TSC of another core lagging a little */
        now = prev;
    p = ct_enc_entry(p, now - prev, (uintptr_t)fn, t->prev_fn,
                     (uintptr_t)site, t->prev_site);
    /* Read again rather than kept in a register through the encoding,
     * which would cost the hook a saved register. */
    d = *(volatile uint32_t *)&t->depth;
    if (ct_likely(d < CT_MAX_DEPTH)) {
        t->stack[d] = (uintptr_t)fn;
        t->sp_not[d + 1] = ~CALLER_SP(tsc, sp);
    }
    t->depth = d + 1;
    t->prev_ticks = now;
    t->prev_fn = (uintptr_t)fn;
    t->prev_site = (uintptr_t)site;
    t->pos = p;
    ct_signal_fence();
    t->busy = 0;
    return;
slow:
    ct_enter_slow((uintptr_t)fn, (uintptr_t)site, CALLER_SP(tsc, sp));
}

static inline __attribute__((always_inline)) void
hook_exit(void *fn, void *site, int tsc)
{
    struct ct_thread *t = ct_self;
    if (ct_unlikely(!t || t->busy))
        goto slow;
    uint64_t w = ct_global_word;
    if (ct_unlikely(w & 1)) {
        if (t->depth == 0 && t->blind && !t->stop) {
            t->blind--;  /* the return of a frame only counted */
            return;
        }
        goto slow;
    }
    t->busy = 1;
    ct_signal_fence();
    uint8_t *p = t->pos;
    uint32_t d = t->depth;
    /* An exit that is not the top frame's (longjmp skipped frames) is
     * sorted out by the slow path. */
    if (ct_unlikely((t->stop | (t->expect ^ w)) != 0 ||
                    p + CT_REC_MAX_HOT > t->end || d == 0 ||
                    (d <= CT_MAX_DEPTH && t->stack[d - 1] != (uintptr_t)fn))) {
        t->busy = 0;
        goto slow;
    }
    uint64_t now = hook_clock(tsc);
    uint64_t prev = t->prev_ticks;
    if (ct_unlikely(now < prev))
        now = prev;
    t->pos = ct_enc_exit(p, now - prev);
    t->depth = d - 1;
    t->prev_ticks = now;
    ct_signal_fence();
    t->busy = 0;
    return;
slow:
    ct_exit_slow((uintptr_t)fn, (uintptr_t)site);
}

/* The same hooks reading CLOCK_MONOTONIC: not leaves (clock_gettime is a
 * call), kept out of the TSC hooks so those need no frame. */
static CT_COLD void enter_monotonic(void *fn, void *site, uintptr_t sp)
{
    hook_enter(fn, site, sp, 0);
}

static CT_COLD void exit_monotonic(void *fn, void *site)
{
    hook_exit(fn, site, 0);
}

/* The caller's stack pointer at the call goes on the shadow stack beside
 * the function, so a longjmp or a caught exception can tell which frames
 * it leaves (jump.c). */
CT_API void __cyg_profile_func_enter(void *fn, void *site)
{
    if (ct_unlikely(!ct_clock_is_tsc)) {
        enter_monotonic(fn, site, (uintptr_t)__builtin_dwarf_cfa());
        return;
    }
    hook_enter(fn, site, 0, 1);
}

CT_API void __cyg_profile_func_exit(void *fn, void *site)
{
    if (ct_unlikely(!ct_clock_is_tsc)) {
        exit_monotonic(fn, site);
        return;
    }
    hook_exit(fn, site, 1);
}

/* A library call's entry (plt.c): its caller's stack pointer is the PLT
 * call's, given, not that of the stub recording it (tsc == 2: the TSC
 * clock with the given stack pointer). */
void ct_enter_at(void *fn, void *site, uintptr_t sp)
{
    if (ct_unlikely(!ct_clock_is_tsc)) {
        enter_monotonic(fn, site, sp);
        return;
    }
    hook_enter(fn, site, sp, 2);
}
