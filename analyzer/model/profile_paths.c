/*
 * The call paths of a profile (CALLTRACE_MODE=profile, CT_EV_PATH): each
 * path comes with its calls and the ticks it had on top of the stack, so
 * it is charged as the trace's calls would be (docs/analysis.md): its
 * self time to the function on top, and to each function on the path once
 * (its outermost frame), to the arc that entered that frame, as self when
 * it is the function on top, else as child time.  The bias is taken off
 * per path: its calls' part inside each call and the part its own calls
 * leave in it, never below zero, as the trace's does per call.
 */
#include "analyzer/model/profile_private.h"

void ct_prof_path(struct ct_profile *p, struct ct_pthread *th,
                  const struct ct_event *ev)
{
    struct ct_profile_state *s = p->state;
    uint32_t d = ev->depth;
    if (!d || !ev->stack)
        return;
    for (uint32_t i = 0; i < d; i++)
        if (ev->stack[i] == CT_FUNC_NONE)
            return;
    for (uint32_t i = 0; i < d; i++)
        ct_prof_need_func(p, ev->stack[i]);
    uint32_t leaf = ev->stack[d - 1];
    uint32_t caller = d > 1 ? ev->stack[d - 2] : CT_FUNC_NONE;
    if (ev->count) {
        uint32_t arc = ct_prof_arc(p, caller, leaf);
        p->arcs[arc].count += ev->count;
        if (caller == leaf)
            p->funcs[leaf].self_calls += ev->count;
        else
            p->funcs[leaf].calls += ev->count;
        p->counts.calls += ev->count;
        p->counts.returns += ev->count;
    }
    /* The thread's clock moves by the path's time: what is left of the
     * thread's span at its end is the time no traced function was open. */
    th->cur += ev->path_self;
    uint64_t bias = ct_path_bias(&s->bias, p->info->funcs, ev);
    uint64_t self = ev->path_self - bias;
    p->totals.overhead += bias;
    p->totals.cpu += self;
    p->funcs[leaf].self_ticks += self;
    /* The bias is on-CPU work: what stays is no more off-CPU than it was */
    uint64_t off = ev->path_off < self ? ev->path_off : self;
    p->funcs[leaf].off_self_ticks += off;
    p->totals.offcpu += off;
    th->tt.off += off;
    th->tt.off_cpu += off;
    uint64_t gen = ++s->mark_gen;
    for (uint32_t i = 0; i < d; i++) {
        uint32_t f = ev->stack[i];
        if (s->mark[f] == gen)
            continue;
        s->mark[f] = gen;
        uint32_t arc = ct_prof_arc(p, i ? ev->stack[i - 1] : CT_FUNC_NONE, f);
        struct ct_arc *a = &p->arcs[arc];
        if (f == leaf) {
            a->self_ticks += self;
            a->off_self_ticks += off;
        } else {
            a->child_ticks += self;
            a->off_child_ticks += off;
            p->funcs[f].child_ticks += self;
            p->funcs[f].off_child_ticks += off;
        }
    }
}
