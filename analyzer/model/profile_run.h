/*
 * A run: one thread's calls and returns applied to the profile with the
 * thread's state in locals.  Shared by the profile's batch loop
 * (profile_stack.c) and the calltrace decoder's fused loop
 * (calltrace_decode.c), so that an event decoded straight into the
 * profile and one handed over in a batch go through the same code.
 * Private to the profile model and its readers.
 */
#ifndef CT_PROFILE_RUN_H
#define CT_PROFILE_RUN_H

#include "analyzer/model/profile_private.h"

/*
 * The compiler cannot keep the thread's clock and depth and the profile's
 * arrays in registers through stores to frames and counters, which might
 * alias them: hence the copies.  ct_prof_run_open and ct_prof_run_close
 * bracket each use.
 */
struct ct_prof_run {
    struct ct_profile *p;
    struct ct_profile_state *s;
    struct ct_pthread *th;
    struct ct_frame *stack;
    struct ct_fstats *funcs;
    struct ct_owner *owner;
    struct ct_callees *callees;
    uint32_t me;                  /* thread index + 1, as owner holds it */
    uint32_t nfuncs;              /* functions the arrays have room for  */
    size_t depth, cap;
    uint64_t clock;               /* the thread's cpu clock              */
    uint64_t clock0;              /* ... at open: the run's cpu time is
                                     what it gained                      */
    uint64_t offclock;            /* its off-CPU part                    */
    uint64_t cur;                 /* the thread's latest event time      */
    uint64_t hi;                  /* end of the --time-range window      */
    uint64_t overhead, unmetered; /* added to the totals at close        */
    uint64_t calls, returns;      /* added to the counts at close        */
    unsigned close;               /* CT_CLOSE_*: why frames are closed   */
};

static inline __attribute__((always_inline)) struct ct_prof_run
ct_prof_run_open(struct ct_profile *p, struct ct_pthread *th)
{
    struct ct_profile_state *s = p->state;
    return (struct ct_prof_run){
        .p = p, .s = s, .th = th, .stack = th->stack, .funcs = p->funcs,
        .owner = s->owner, .callees = s->callees,
        .me = (uint32_t)(th - s->threads) + 1, .nfuncs = p->nfuncs,
        .depth = th->depth, .cap = th->cap, .clock = th->clock,
        .clock0 = th->clock, .offclock = th->offclock, .cur = th->cur,
        .hi = p->opts.have_range ? s->rto : UINT64_MAX,
    };
}

static inline __attribute__((always_inline)) void
ct_prof_run_close(const struct ct_prof_run *x)
{
    struct ct_profile *p = x->p;
    x->th->depth = x->depth;
    x->th->clock = x->clock;
    x->th->cur = x->cur;
    p->totals.cpu += x->clock - x->clock0;
    p->totals.overhead += x->overhead;
    p->totals.unmetered += x->unmetered;
    p->counts.calls += x->calls;
    p->counts.returns += x->returns;
    p->counts.events += x->calls + x->returns;
}

/* Opens a run on thread when its next calls and returns may take the
 * run's steps: the thread has begun, is outside the tracer's overhead and
 * on the CPU, and inside the --time-range window if any (clipping needs
 * the general path only at the window's edges).  False otherwise: the
 * events go to ct_prof_event.  Inline, so that the run stays in
 * registers. */
static inline __attribute__((always_inline)) bool
ct_prof_run_begin(struct ct_profile *p, uint32_t thread,
                  struct ct_prof_run *x)
{
    struct ct_profile_state *s = p->state;
    if (thread >= s->nthreads)
        return false;
    uint64_t lo = p->opts.have_range ? s->rfrom : 0;
    struct ct_pthread *th = &s->threads[thread];
    if (!th->seen || th->in_overhead || th->off || th->cur < lo ||
        s->no_runs)
        return false;
    *x = ct_prof_run_open(p, th);
    return true;
}

/* The arc from the top frame (or from nowhere) to func. */
static inline __attribute__((always_inline)) uint32_t
ct_prof_run_arc(struct ct_prof_run *x, uint32_t func)
{
    if (!x->depth)
        return ct_prof_arc_inline(x->s, x->p, CT_FUNC_NONE, func);
    uint32_t caller = x->stack[x->depth - 1].func;
    struct ct_callees *c = &x->callees[caller];
    uint32_t way = func & (CT_CALLEE_WAYS - 1);
    if (c->callee[way] != func) {
        c->callee[way] = func;
        c->arc[way] = ct_prof_arc_inline(x->s, x->p, caller, func);
    }
    return c->arc[way];
}

/*
 * Opens a frame of func on top (the caller made room and knows func) and
 * returns the arc that entered it.
 */
static inline __attribute__((always_inline)) uint32_t
ct_prof_run_enter(struct ct_prof_run *x, uint32_t func, bool called)
{
    uint32_t arc = ct_prof_run_arc(x, func);
    uint32_t outer_pos;
    bool shared = false;
    struct ct_owner *o = &x->owner[func];
    if (o->thread == x->me) {
        o->count++;
        outer_pos = o->outer;
    } else if (o->thread == 0 &&
               (!x->th->act_used || !ct_prof_act_open(x->th, func))) {
        o->thread = x->me;
        o->count = 1;
        outer_pos = o->outer = (uint32_t)x->depth;
    } else {
        shared = true;
        outer_pos = ct_prof_act_enter(x->th, func, x->depth);
    }
    struct ct_frame *fr = &x->stack[x->depth++];
    fr->func = func;
    fr->arc = arc;
    fr->entry_clock = x->clock;
    fr->entry_off = x->offclock;
    fr->self = 0;
    fr->inner_self = 0;
    fr->off_self = 0;
    fr->inner_off_self = 0;
    fr->outer_pos = outer_pos;
    fr->called = called;
    fr->counted = called;
    fr->inherited = false;
    fr->shared = shared;
    return arc;
}

/*
 * Takes up to bias ticks off a frame's self time (never below zero): they
 * move from the thread's cpu clock to its overhead.  The bias is on-CPU
 * work: what stays is no more off-CPU than it was.
 */
static inline void ct_prof_run_unbias(struct ct_prof_run *x,
                                      struct ct_frame *fr, uint64_t bias)
{
    uint64_t b = fr->self < bias ? fr->self : bias;
    fr->self -= b;
    x->clock -= b;
    x->overhead += b;
    if (fr->off_self > fr->self)
        fr->off_self = fr->self;
}

/*
 * Closes the top frame: charges its self time to the function, and its
 * span to the arc that entered it unless an outer frame of the same
 * function is still open (recursion is counted once, by the outermost
 * frame).  The bias, when subtracted, moves from cpu to overhead.
 */
static inline __attribute__((always_inline)) void
ct_prof_run_leave(struct ct_prof_run *x)
{
    struct ct_frame *fr = &x->stack[--x->depth];
    struct ct_fstats *f = &x->funcs[fr->func];
    const struct ct_view_bias *vb = &x->s->bias;
    bool unbias = __builtin_expect((vb->self | vb->child) != 0, 0) &&
                  fr->called;
    struct ct_call_bias cb = {0, 0};
    if (unbias) {
        cb = ct_call_bias(vb, x->p->info->funcs, fr->func);
        ct_prof_run_unbias(x, fr, cb.self);
    }
    if (__builtin_expect(x->s->dist != NULL, 0)) {
        uint64_t span = x->clock - fr->entry_clock;
        if (x->s->dist_simple && x->close == CT_CLOSE_RETURN &&
            fr->counted && !fr->inherited && fr->arc < x->s->dist_narcs)
            ct_prof_dist_add(&x->s->dist_arcs[fr->arc], span, fr->self);
        else
            ct_prof_dist_leave(x->p, x->th, x->me - 1, fr, span, x->close);
    }
    f->self_ticks += fr->self;
    /* Off-CPU time inside the frame is rare (a context switch): without
     * it every off-CPU part below is zero, so skip their arithmetic. */
    bool was_off = x->offclock != fr->entry_off;
    if (was_off)
        f->off_self_ticks += fr->off_self;
    if (fr->shared) {
        ct_prof_act_leave(x->th, fr->func);
    } else {
        struct ct_owner *o = &x->owner[fr->func];
        if (--o->count == 0)
            o->thread = 0;
    }
    if (fr->outer_pos == x->depth) {
        uint64_t span = x->clock - fr->entry_clock;
        uint64_t self = fr->self + fr->inner_self;
        struct ct_arc *arc = &x->p->arcs[fr->arc];
        arc->self_ticks += self;
        arc->child_ticks += span - self;
        f->child_ticks += span - self;
        if (was_off) {
            uint64_t off_span = x->offclock - fr->entry_off;
            uint64_t off_self = fr->off_self + fr->inner_off_self;
            uint64_t off_child =
                off_span > off_self ? off_span - off_self : 0;
            arc->off_self_ticks += off_self;
            arc->off_child_ticks += off_child;
            f->off_child_ticks += off_child;
        }
    } else {
        x->stack[fr->outer_pos].inner_self += fr->self;
        if (was_off)
            x->stack[fr->outer_pos].inner_off_self += fr->off_self;
    }
    /* The hooks' part outside this call's interval is its caller's: taken
     * off once this call's span is counted, which it is no part of. */
    if (unbias && x->depth)
        ct_prof_run_unbias(x, &x->stack[x->depth - 1], cb.child);
}

/*
 * A return from the top frame d ticks after the thread's previous event,
 * in a run.  The caller checked the time (not before the previous event,
 * inside the window), keeps x->cur and counts the event.  False, having
 * changed nothing, when no frame is open (the general path's case).
 */
static inline __attribute__((always_inline)) bool
ct_prof_run_return(struct ct_prof_run *x, uint64_t d)
{
    if (!x->depth)
        return false;
    x->stack[x->depth - 1].self += d;
    x->clock += d;
    ct_prof_run_leave(x);
    return true;
}

/*
 * A call of func d ticks after the thread's previous event, in a run, as
 * for ct_prof_run_return.  False, having changed nothing, for a function
 * the arrays have no room for yet or a full stack.
 */
static inline __attribute__((always_inline)) bool
ct_prof_run_call(struct ct_prof_run *x, uint32_t func, uint64_t d)
{
    /* Two predicted branches: joined, the compiler computes and keeps
     * the condition without one. */
    if (__builtin_expect(func >= x->nfuncs, 0))
        return false;
    if (__builtin_expect(x->depth >= x->cap, 0))
        return false;
    uint32_t caller = CT_FUNC_NONE;
    if (x->depth) {
        caller = x->stack[x->depth - 1].func;
        x->stack[x->depth - 1].self += d;
        x->clock += d;
    } else {
        x->unmetered += d;
        x->th->pending_unmetered += d;
    }
    uint32_t arc = ct_prof_run_enter(x, func, true);
    x->p->arcs[arc].count++;
    if (caller == func)
        x->funcs[func].self_calls++;
    else
        x->funcs[func].calls++;
    return true;
}

#endif /* CT_PROFILE_RUN_H */
