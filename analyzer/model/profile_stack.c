/*
 * Rebuilding each thread's call stack from its events and charging every
 * tick between two events of a thread to exactly one of cpu (the function
 * on top), overhead, unmetered or unknown.  docs/analysis.md has the rules.
 */
#include <stdlib.h>
#include <string.h>

#include "analyzer/model/profile_run.h"
#include "analyzer/util.h"

static struct ct_pthread *get_thread(struct ct_profile *p, uint32_t idx)
{
    struct ct_profile_state *s = p->state;
    ct_grow_zeroed(&s->threads, &s->nthreads, idx, sizeof *s->threads);
    return &s->threads[idx];
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

static uint32_t push(struct ct_profile *p, struct ct_pthread *th,
                     uint32_t func, bool called)
{
    ct_prof_need_func(p, func);
    if (th->depth == th->cap)
        ct_grow(&th->stack, &th->cap, th->depth, sizeof *th->stack);
    struct ct_prof_run x = ct_prof_run_open(p, th);
    uint32_t arc = ct_prof_run_enter(&x, func, called);
    ct_prof_run_close(&x);
    if (p->state->dist)
        ct_prof_dist_entry(p, th);
    return arc;
}

/* how: CT_CLOSE_*, for the distributions (a call's time is known only
 * when its return closes it) */
static void pop(struct ct_profile *p, struct ct_pthread *th, unsigned how)
{
    struct ct_prof_run x = ct_prof_run_open(p, th);
    x.close = how;
    ct_prof_run_leave(&x);
    ct_prof_run_close(&x);
}

static void pop_unmatched(struct ct_profile *p, struct ct_pthread *th,
                          size_t keep)
{
    if (in_range(p, th->cur))
        p->counts.unmatched_calls += th->depth - keep;
    while (th->depth > keep)
        pop(p, th, CT_CLOSE_UNMATCHED);
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
        !ct_prof_act_open(th, func))
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
        pop(p, th, CT_CLOSE_RETURN);
        return;
    }
    long k = func == CT_FUNC_NONE ? -1 : find_open(p, th, func);
    if (k >= 0) {
        /* Calls above k never returned: they end at the previous event. */
        charge_unknown(p, th, t);
        pop_unmatched(p, th, (size_t)k + 1);
        pop(p, th, CT_CLOSE_RETURN);
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
    /* A piece's first STACK record opens the frames of calls that began
     * in the previous piece (profile_dist.c joins them). */
    if (th->inherit_pending) {
        th->inherit_pending = false;
        for (size_t i = 0; i < th->depth; i++)
            th->stack[i].inherited = true;
    }
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
        pop(p, th, CT_CLOSE_END);
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
    if (p->opts.subtract_bias)
        s->bias = ct_view_bias(p->info);
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
    if (in_range(p, ev->time))
        p->counts.events += ct_event_weight(ev);
    struct ct_pthread *th = get_thread(p, ev->thread);
    switch (ev->kind) {
    case CT_EV_CALL: {
        charge(p, th, ev->time);
        if (ev->func == CT_FUNC_NONE)
            break;
        uint32_t caller =
            th->depth ? th->stack[th->depth - 1].func : CT_FUNC_NONE;
        uint32_t arc = push(p, th, ev->func, true);
        th->stack[th->depth - 1].counted = in_range(p, ev->time);
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
        p->counts.lost = ct_sat_add(p->counts.lost, ev->count);
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
    case CT_EV_ARGS:
    case CT_EV_RETVAL: /* the report shows no values */
        charge(p, th, ev->time);
        break;
    case CT_EV_PATH:
        ct_prof_path(p, th, ev);
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
 * functions already known, applied in a run (profile_run.h).  Returns
 * how many events it took; the event that stopped it goes the general way
 * (ct_prof_event), which handles every case.
 */
static size_t fast_run(struct ct_profile *p, const struct ct_event *ev,
                       size_t n)
{
    struct ct_prof_run x;
    uint32_t thread = ev->thread;
    if (!ct_prof_run_begin(p, thread, &x))
        return 0;
    uint64_t cur = x.cur, hi = x.hi, calls = 0;
    size_t i;
    for (i = 0; i < n; i++) {
        const struct ct_event *e = &ev[i];
        uint64_t t = e->time;
        if (e->thread != thread || t < cur || t > hi)
            break;
        if (e->kind == CT_EV_RETURN) {
            if (x.depth && e->func != CT_FUNC_NONE &&
                x.stack[x.depth - 1].func != e->func)
                break;
            if (!ct_prof_run_return(&x, t - cur))
                break;
        } else if (e->kind == CT_EV_CALL &&
                   ct_prof_run_call(&x, e->func, t - cur)) {
            calls++;
        } else {
            break;
        }
        cur = t;
    }
    x.cur = cur;
    x.calls = calls;
    x.returns = i - calls;
    ct_prof_run_close(&x);
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
