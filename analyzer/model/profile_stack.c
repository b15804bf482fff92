/*
 * Rebuilding each thread's call stack from its events and charging every
 * tick between two events of a thread to exactly one of cpu (the function
 * on top), overhead, unmetered or unknown.  docs/analysis.md has the rules.
 */
#include <stdlib.h>
#include <string.h>

#include "profile_private.h"
#include "util.h"

static struct ct_pthread *get_thread(struct ct_profile *p, uint32_t idx)
{
    struct ct_profile_state *s = p->state;
    ct_grow_zeroed(&s->threads, &s->nthreads, idx, sizeof *s->threads);
    return &s->threads[idx];
}

/* ---- open frames per function (to find the outermost activation) ---- */

static struct ct_active *act_slot(struct ct_pthread *th, uint32_t func)
{
    uint32_t mask = th->act_cap - 1;
    uint32_t h = (uint32_t)(func * 0x9e3779b1u);
    for (;; h++) {
        struct ct_active *a = &th->act[h & mask];
        if (a->func == func || a->func == CT_FUNC_NONE)
            return a;
    }
}

static void act_grow(struct ct_pthread *th)
{
    struct ct_active *old = th->act;
    uint32_t oldcap = th->act_cap;
    th->act_cap = oldcap ? oldcap * 2 : 16;
    th->act = ct_xmalloc(th->act_cap * sizeof *th->act);
    for (uint32_t i = 0; i < th->act_cap; i++)
        th->act[i].func = CT_FUNC_NONE;
    for (uint32_t i = 0; i < oldcap; i++)
        if (old[i].func != CT_FUNC_NONE)
            *act_slot(th, old[i].func) = old[i];
    free(old);
}

/* Backward-shift deletion keeps probe chains intact without tombstones. */
static void act_remove(struct ct_pthread *th, struct ct_active *a)
{
    uint32_t mask = th->act_cap - 1;
    uint32_t i = (uint32_t)(a - th->act);
    uint32_t j = i;
    for (;;) {
        j = (j + 1) & mask;
        if (th->act[j].func == CT_FUNC_NONE)
            break;
        uint32_t home = (uint32_t)(th->act[j].func * 0x9e3779b1u) & mask;
        /* move j into the hole i unless its home lies in (i, j] */
        bool stays = i <= j ? (home > i && home <= j)
                            : (home > i || home <= j);
        if (!stays) {
            th->act[i] = th->act[j];
            i = j;
        }
    }
    th->act[i].func = CT_FUNC_NONE;
    th->act_used--;
}

/* ---- charging time ---- */

static inline uint64_t clip(const struct ct_profile_state *s, uint64_t t)
{
    return t < s->rfrom ? s->rfrom : t > s->rto ? s->rto : t;
}

static inline bool in_range(const struct ct_profile *p, uint64_t t)
{
    const struct ct_profile_state *s = p->state;
    return !p->opts.have_range || (t >= s->rfrom && t <= s->rto);
}

/* Ticks of this thread from its previous event to t (inside the range). */
static inline __attribute__((always_inline)) uint64_t
advance(struct ct_profile *p, struct ct_pthread *th,
                        uint64_t t)
{
    if (!th->seen) {
        th->seen = true;
        th->first = th->cur = t;
        return 0;
    }
    if (t <= th->cur)
        return 0; /* readers keep each thread in order; never go back */
    uint64_t a = th->cur;
    th->cur = t;
    if (p->opts.have_range)
        return clip(p->state, t) - clip(p->state, a);
    return t - a;
}

static inline __attribute__((always_inline)) void
charge(struct ct_profile *p, struct ct_pthread *th, uint64_t t)
{
    uint64_t d = advance(p, th, t);
    if (!d)
        return;
    if (th->off) {
        th->tt.off += d;
        if (th->off_preempted)
            th->tt.preempted += d;
    }
    if (th->in_overhead) {
        p->totals.overhead += d;
    } else if (th->depth == 0) {
        p->totals.unmetered += d;
        th->pending_unmetered += d;
    } else {
        /* the function's self_ticks take the frame's self at its pop */
        th->stack[th->depth - 1].self += d;
        th->clock += d;
        p->totals.cpu += d;
        if (th->off) {
            /* wall time all the same, but not on the CPU */
            th->stack[th->depth - 1].off_self += d;
            th->offclock += d;
            p->totals.offcpu += d;
            th->tt.off_cpu += d;
        }
    }
}

/* The interval up to t cannot be told apart (a frame's return is missing),
 * so it is unknown rather than anyone's self time. */
static void charge_unknown(struct ct_profile *p, struct ct_pthread *th,
                           uint64_t t)
{
    uint64_t d = advance(p, th, t);
    if (th->off)
        th->tt.off += d;
    if (th->in_overhead)
        p->totals.overhead += d;
    else
        p->totals.unknown += d;
}

/* A return with no call: the function returning was open since before the
 * thread's data began, so the unmetered time since then was in it. */
static void pending_to_unknown(struct ct_profile *p, struct ct_pthread *th)
{
    p->totals.unmetered -= th->pending_unmetered;
    p->totals.unknown += th->pending_unmetered;
    th->pending_unmetered = 0;
    th->pending_flushes++;
}

/* ---- the stack ---- */

/* A frame of func joins th's own count of them: the rare case of a
 * function open on two threads at once. */
static uint32_t act_enter(struct ct_pthread *th, uint32_t func, size_t depth)
{
    if ((th->act_used + 1) * 2 > th->act_cap)
        act_grow(th);
    struct ct_active *a = act_slot(th, func);
    if (a->func == CT_FUNC_NONE) {
        a->func = func;
        a->count = 0;
        a->outer_pos = (uint32_t)depth;
        th->act_used++;
    }
    a->count++;
    return a->outer_pos;
}

static void act_leave(struct ct_pthread *th, uint32_t func)
{
    struct ct_active *a = act_slot(th, func);
    if (--a->count == 0)
        act_remove(th, a);
}

/*
 * A thread's stack while events are applied to it: the thread's clock and
 * depth, and the profile's arrays, in locals (the compiler cannot keep
 * them in registers through stores to frames and counters, which might
 * alias them).  open_run and close_run bracket each use.
 */
struct run {
    struct ct_profile *p;
    struct ct_profile_state *s;
    struct ct_pthread *th;
    struct ct_frame *stack;
    struct ct_fstats *funcs;
    struct ct_owner *owner;
    struct ct_callees *callees;
    uint32_t me;                  /* thread index + 1, as owner holds it */
    size_t depth;
    uint64_t clock;               /* the thread's cpu clock              */
    uint64_t offclock;            /* its off-CPU part                    */
    uint64_t cpu, overhead;       /* added to the totals by close_run    */
};

static inline __attribute__((always_inline)) struct run
open_run(struct ct_profile *p, struct ct_pthread *th)
{
    struct ct_profile_state *s = p->state;
    return (struct run){
        .p = p, .s = s, .th = th, .stack = th->stack, .funcs = p->funcs,
        .owner = s->owner, .callees = s->callees, .me = (uint32_t)(th - s->threads) + 1,
        .depth = th->depth, .clock = th->clock, .offclock = th->offclock,
    };
}

static inline __attribute__((always_inline)) void
close_run(const struct run *x)
{
    x->th->depth = x->depth;
    x->th->clock = x->clock;
    x->p->totals.cpu += x->cpu;
    x->p->totals.overhead += x->overhead;
}

/* The arc from the top frame (or from nowhere) to func. */
static inline __attribute__((always_inline)) uint32_t
arc_to(struct run *x, uint32_t func)
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
enter(struct run *x, uint32_t func, bool called)
{
    uint32_t arc = arc_to(x, func);
    uint32_t outer_pos;
    bool shared = false;
    struct ct_owner *o = &x->owner[func];
    if (o->thread == x->me) {
        o->count++;
        outer_pos = o->outer;
    } else if (o->thread == 0 &&
               (!x->th->act_used ||
                act_slot(x->th, func)->func == CT_FUNC_NONE)) {
        o->thread = x->me;
        o->count = 1;
        outer_pos = o->outer = (uint32_t)x->depth;
    } else {
        shared = true;
        outer_pos = act_enter(x->th, func, x->depth);
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
    fr->shared = shared;
    return arc;
}

/*
 * Closes the top frame: charges its self time to the function, and its
 * span to the arc that entered it unless an outer frame of the same
 * function is still open (recursion is counted once, by the outermost
 * frame).  The bias, when subtracted, moves from cpu to overhead.
 */
static inline __attribute__((always_inline)) void leave(struct run *x)
{
    struct ct_frame *fr = &x->stack[--x->depth];
    struct ct_fstats *f = &x->funcs[fr->func];
    uint64_t bias = x->s->bias_ticks;
    if (fr->called && bias) {
        uint64_t b = fr->self < bias ? fr->self : bias;
        fr->self -= b;
        x->clock -= b;
        x->cpu -= b;
        x->overhead += b;
        /* the bias is on-CPU work: what stays is no more off than it was */
        if (fr->off_self > fr->self)
            fr->off_self = fr->self;
    }
    f->self_ticks += fr->self;
    /* Off-CPU time inside the frame is rare (a context switch): without
     * it every off-CPU part below is zero, so skip their arithmetic. */
    bool was_off = x->offclock != fr->entry_off;
    if (was_off)
        f->off_self_ticks += fr->off_self;
    if (fr->shared) {
        act_leave(x->th, fr->func);
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
}

static uint32_t push(struct ct_profile *p, struct ct_pthread *th,
                     uint32_t func, bool called)
{
    ct_prof_need_func(p, func);
    if (th->depth == th->cap)
        ct_grow(&th->stack, &th->cap, th->depth, sizeof *th->stack);
    struct run x = open_run(p, th);
    uint32_t arc = enter(&x, func, called);
    close_run(&x);
    return arc;
}

static void pop(struct ct_profile *p, struct ct_pthread *th)
{
    struct run x = open_run(p, th);
    leave(&x);
    close_run(&x);
}

static void pop_unmatched(struct ct_profile *p, struct ct_pthread *th,
                          size_t keep)
{
    if (in_range(p, th->cur))
        p->counts.unmatched_calls += th->depth - keep;
    while (th->depth > keep)
        pop(p, th);
}

/* Position of the topmost open frame of func, or -1. */
static long find_open(struct ct_profile *p, struct ct_pthread *th,
                      uint32_t func)
{
    struct ct_profile_state *s = p->state;
    uint32_t me = (uint32_t)(th - s->threads) + 1;
    if (func >= p->nfuncs)
        return -1;
    if (s->owner[func].thread != me &&
        (!th->act_used || act_slot(th, func)->func == CT_FUNC_NONE))
        return -1;
    for (size_t i = th->depth; i-- > 0;)
        if (th->stack[i].func == func)
            return (long)i;
    return -1;
}

static void on_return(struct ct_profile *p, struct ct_pthread *th,
                      uint32_t func, uint64_t t)
{
    if (th->depth &&
        (func == CT_FUNC_NONE || th->stack[th->depth - 1].func == func)) {
        charge(p, th, t);
        pop(p, th);
        return;
    }
    long k = func == CT_FUNC_NONE ? -1 : find_open(p, th, func);
    if (k >= 0) {
        /* Calls above k never returned: they end at the previous event. */
        charge_unknown(p, th, t);
        pop_unmatched(p, th, (size_t)k + 1);
        pop(p, th);
        return;
    }
    if (in_range(p, t))
        p->counts.unmatched_returns++;
    if (th->depth) {
        charge_unknown(p, th, t);
        pop_unmatched(p, th, 0);
    } else {
        charge(p, th, t);
    }
    pending_to_unknown(p, th);
}

static void on_stack(struct ct_profile *p, struct ct_pthread *th,
                     const struct ct_event *ev)
{
    size_t same = 0;
    while (same < th->depth && same < ev->depth &&
           th->stack[same].func == ev->stack[same])
        same++;
    if (same < th->depth)
        pop_unmatched(p, th, same);
    for (size_t i = same; i < ev->depth; i++)
        if (ev->stack[i] != CT_FUNC_NONE)
            push(p, th, ev->stack[i], false);
}

static void add_user_event(struct ct_profile *p, struct ct_pthread *th,
                           const struct ct_event *ev)
{
    ct_grow(&p->events, &p->events_cap, p->nevents, sizeof *p->events);
    p->events[p->nevents++] = (struct ct_user_event){
        .time = ev->time, .thread = ev->thread,
        .func = th->depth ? th->stack[th->depth - 1].func : CT_FUNC_NONE,
        .text = ct_xstrndup(ev->text ? ev->text : "", ev->text_len),
    };
}

void ct_prof_close_thread(struct ct_profile *p, uint32_t thread)
{
    struct ct_pthread *th = &p->state->threads[thread];
    /* Frames open when the thread's data ends never returned; those open
     * past a --time-range window did, later. */
    if (in_range(p, th->cur))
        p->counts.open_at_end += th->depth;
    while (th->depth)
        pop(p, th);
    th->pending_unmetered = 0;
}

static void set_origin(struct ct_profile *p, uint64_t t)
{
    struct ct_profile_state *s = p->state;
    s->origin_set = true;
    /* A reader that skips blocks before the window still knows when the
     * trace began; the window is measured from there. */
    if (p->info->have_first_time)
        t = p->info->first_time;
    s->origin = t;
    /* The reader fills the trace info (clock, bias) before its first
     * event, not before the profile exists. */
    double tick = p->info->ns_per_tick > 0 ? p->info->ns_per_tick : 1.0;
    if (p->opts.subtract_bias && p->info->bias_ns_per_call > 0)
        s->bias_ticks = (uint64_t)(p->info->bias_ns_per_call / tick + 0.5);
    if (!p->opts.have_range)
        return;
    double from = (double)p->opts.range_from_ns / tick;
    double to = (double)p->opts.range_to_ns / tick;
    s->rfrom = t + (uint64_t)(from + 0.5);
    s->rto = p->opts.range_to_ns == INT64_MAX || to >= 1.8e19 - (double)t
                 ? UINT64_MAX
                 : t + (uint64_t)(to + 0.5);
}

int ct_prof_event(struct ct_profile *p, const struct ct_event *ev)
{
    if (ev->kind == CT_EV_SAMPLE) {
        p->counts.events++;
        ct_prof_sample(p, ev);
        return 0;
    }
    if (!p->state->origin_set)
        set_origin(p, ev->time);
    /* The scheduler's and the clock's records are not the program's. */
    if (ev->kind < CT_EV_OFFCPU_START && in_range(p, ev->time))
        p->counts.events++;
    struct ct_pthread *th = get_thread(p, ev->thread);
    switch (ev->kind) {
    case CT_EV_CALL: {
        charge(p, th, ev->time);
        if (ev->func == CT_FUNC_NONE)
            break;
        uint32_t caller =
            th->depth ? th->stack[th->depth - 1].func : CT_FUNC_NONE;
        uint32_t arc = push(p, th, ev->func, true);
        if (in_range(p, ev->time)) {
            p->counts.calls++;
            p->arcs[arc].count++;
            if (caller == ev->func)
                p->funcs[ev->func].self_calls++;
            else
                p->funcs[ev->func].calls++;
        }
        break;
    }
    case CT_EV_RETURN:
        if (in_range(p, ev->time))
            p->counts.returns++;
        on_return(p, th, ev->func, ev->time);
        break;
    case CT_EV_OVERHEAD_START:
        charge(p, th, ev->time);
        th->in_overhead++;
        break;
    case CT_EV_OVERHEAD_END:
        charge(p, th, ev->time);
        if (th->in_overhead)
            th->in_overhead--;
        break;
    case CT_EV_USER:
        charge(p, th, ev->time);
        if (in_range(p, ev->time)) {
            p->counts.user_events++;
            add_user_event(p, th, ev);
        }
        break;
    case CT_EV_LOST:
        charge(p, th, ev->time);
        p->counts.lost += ev->count;
        break;
    case CT_EV_STACK:
        charge(p, th, ev->time);
        on_stack(p, th, ev);
        break;
    case CT_EV_THREAD_END:
        charge(p, th, ev->time);
        ct_prof_close_thread(p, ev->thread);
        break;
    case CT_EV_OFFCPU_START:
        charge(p, th, ev->time);
        th->off = true;
        th->off_preempted = ev->count != 0;
        break;
    case CT_EV_OFFCPU_END:
        charge(p, th, ev->time);
        th->off = false;
        break;
    case CT_EV_CPUTIME:
        charge(p, th, ev->time);
        if (in_range(p, ev->time)) {
            if (!th->have_clock) {
                th->have_clock = true;
                th->clock_t0 = ev->time;
                th->clock_c0 = ev->count;
            }
            th->clock_t1 = ev->time;
            th->clock_c1 = ev->count;
        }
        break;
    case CT_EV_SAMPLE:
        break;
    }
    return 0;
}

/*
 * The common case, a run of one thread's CALL and RETURN events inside
 * the --time-range window if any, no overhead interval open, time going
 * forward, returns matching the top frame, room on the stack and
 * functions already known, applied
 * with the thread's state in locals and the counts added once.  Returns
 * how many events it took; the event that stopped it goes the general way
 * (ct_prof_event), which handles every case.
 */
static size_t fast_run(struct ct_profile *p, const struct ct_event *ev,
                       size_t n)
{
    struct ct_profile_state *s = p->state;
    uint32_t thread = ev->thread;
    if (thread >= s->nthreads)
        return 0;
    /* With a --time-range, inside the window (clipping needs the slow
     * path only at its edges). */
    uint64_t lo = p->opts.have_range ? s->rfrom : 0;
    uint64_t hi = p->opts.have_range ? s->rto : UINT64_MAX;
    struct ct_pthread *th = &s->threads[thread];
    if (!th->seen || th->in_overhead || th->off || th->cur < lo)
        return 0;
    struct run x = open_run(p, th);
    size_t cap = th->cap;
    uint32_t nfuncs = p->nfuncs;
    uint64_t cur = th->cur, unmetered = 0, calls = 0, returns = 0;
    size_t i;
    for (i = 0; i < n; i++) {
        const struct ct_event *e = &ev[i];
        uint64_t t = e->time;
        if (e->thread != thread || t < cur || t > hi)
            break;
        uint64_t d = t - cur;
        if (e->kind == CT_EV_RETURN) {
            if (!x.depth || (e->func != CT_FUNC_NONE &&
                             x.stack[x.depth - 1].func != e->func))
                break;
            x.stack[x.depth - 1].self += d;
            x.clock += d;
            x.cpu += d;
            cur = t;
            returns++;
            leave(&x);
        } else if (e->kind == CT_EV_CALL && e->func < nfuncs &&
                   x.depth < cap) {
            uint32_t func = e->func, caller = CT_FUNC_NONE;
            if (x.depth) {
                caller = x.stack[x.depth - 1].func;
                x.stack[x.depth - 1].self += d;
                x.clock += d;
                x.cpu += d;
            } else {
                unmetered += d;
                th->pending_unmetered += d;
            }
            cur = t;
            calls++;
            uint32_t arc = enter(&x, func, true);
            p->arcs[arc].count++;
            if (caller == func)
                x.funcs[func].self_calls++;
            else
                x.funcs[func].calls++;
        } else {
            break;
        }
    }
    close_run(&x);
    th->cur = cur;
    p->totals.unmetered += unmetered;
    p->counts.events += i;
    p->counts.calls += calls;
    p->counts.returns += returns;
    return i;
}

void ct_prof_events(struct ct_profile *p, const struct ct_event *ev,
                    size_t n)
{
    size_t i = 0;
    while (i < n) {
        i += fast_run(p, ev + i, n - i);
        if (i < n)
            ct_prof_event(p, &ev[i++]);
    }
}
