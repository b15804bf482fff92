/*
 * Profiles of parts of a trace, made on several threads and merged into
 * one: each part takes whole threads, or a run of one thread's blocks
 * that starts at a block's STACK record.  Every figure of the profile is a
 * sum over frames and intervals, so the parts add up to what one profile
 * fed the whole trace would hold, given that a piece's open frames are
 * charged up to its end without counting as left open, and that the
 * thread's clock carries on from the previous piece.
 */
#include <stdlib.h>
#include <string.h>

#include "analyzer/model/profile_private.h"
#include "analyzer/util.h"

struct ct_profile *ct_profile_part_new(const struct ct_profile *whole,
                                       struct ct_trace_info *part_info)
{
    struct ct_profile_opts o = whole->opts;
    o.per_thread = false;
    return ct_profile_new(part_info, &o);
}

static struct ct_pthread *part_thread(struct ct_profile *p, uint32_t thread)
{
    struct ct_profile_state *s = p->state;
    ct_grow_zeroed(&s->threads, &s->nthreads, thread, sizeof *s->threads);
    return &s->threads[thread];
}

void ct_profile_part_resume(struct ct_profile *part, uint32_t thread,
                            uint64_t t)
{
    /* The time before t belongs to the previous piece. */
    struct ct_pthread *th = part_thread(part, thread);
    th->seen = true;
    th->first = th->cur = t;
    th->resumed = true;
    th->inherit_pending = true;
}

size_t ct_profile_part_open(const struct ct_profile *part, uint32_t thread,
                            uint32_t *funcs, size_t cap, bool *in_overhead)
{
    const struct ct_profile_state *s = part->state;
    *in_overhead = false;
    if (thread >= s->nthreads)
        return 0;
    const struct ct_pthread *th = &s->threads[thread];
    *in_overhead = th->in_overhead != 0;
    for (size_t i = 0; i < th->depth && i < cap; i++)
        funcs[i] = th->stack[i].func;
    return th->depth;
}

void ct_profile_part_end(struct ct_profile *part, bool threads_end)
{
    struct ct_profile_state *s = part->state;
    uint64_t open_at_end = part->counts.open_at_end;
    ct_prof_dist_piece_end(part, !threads_end);
    for (size_t i = 0; i < s->nthreads; i++) {
        struct ct_pthread *th = &s->threads[i];
        if (!th->seen)
            continue;
        th->end_pending = th->pending_unmetered;
        ct_prof_close_thread(part, (uint32_t)i);
    }
    /* Frames open at a piece's end go on in the next piece. */
    if (!threads_end)
        part->counts.open_at_end = open_at_end;
}

static void merge_thread(struct ct_profile *whole, struct ct_pthread *w,
                         const struct ct_pthread *t)
{
    if (!t->seen)
        return;
    if (!w->seen || !t->resumed) {
        w->seen = true;
        w->first = t->first;
        w->cur = t->cur;
        w->tt = t->tt;
        w->have_clock = t->have_clock;
        w->clock_t0 = t->clock_t0;
        w->clock_c0 = t->clock_c0;
        w->clock_t1 = t->clock_t1;
        w->clock_c1 = t->clock_c1;
        w->pending_unmetered = t->end_pending;
        return;
    }
    if (t->cur > w->cur)
        w->cur = t->cur;
    w->tt.off += t->tt.off;
    w->tt.off_cpu += t->tt.off_cpu;
    w->tt.preempted += t->tt.preempted;
    if (t->have_clock) {
        if (!w->have_clock) {
            w->have_clock = true;
            w->clock_t0 = t->clock_t0;
            w->clock_c0 = t->clock_c0;
        }
        w->clock_t1 = t->clock_t1;
        w->clock_c1 = t->clock_c1;
    }
    /* The first return with no call in this piece turns the unmetered
     * time before it into unknown time, back into the previous pieces. */
    if (t->pending_flushes) {
        whole->totals.unmetered -= w->pending_unmetered;
        whole->totals.unknown += w->pending_unmetered;
        w->pending_unmetered = t->end_pending;
    } else {
        w->pending_unmetered += t->end_pending;
    }
}

void ct_profile_merge(struct ct_profile *whole, struct ct_profile *part,
                      const uint32_t *func_map, uint64_t inherited_events)
{
    struct ct_profile_state *ws = whole->state, *ps = part->state;
    if (!ps->origin_set)
        return; /* it saw no event */
    if (!ws->origin_set) {
        ws->origin_set = true;
        ws->origin = ps->origin;
        ws->rfrom = ps->rfrom;
        ws->rto = ps->rto;
        ws->bias = ps->bias;
    }
    for (uint32_t f = 0; f < part->nfuncs; f++) {
        uint32_t g = func_map[f];
        ct_prof_need_func(whole, g);
        struct ct_fstats *a = &whole->funcs[g];
        const struct ct_fstats *b = &part->funcs[f];
        a->calls += b->calls;
        a->self_calls += b->self_calls;
        a->self_ticks += b->self_ticks;
        a->child_ticks += b->child_ticks;
        a->off_self_ticks += b->off_self_ticks;
        a->off_child_ticks += b->off_child_ticks;
    }
    for (uint32_t i = 0; i < part->narcs; i++) {
        const struct ct_arc *b = &part->arcs[i];
        uint32_t caller =
            b->caller == CT_FUNC_NONE ? CT_FUNC_NONE : func_map[b->caller];
        uint32_t k = ct_prof_arc(whole, caller, func_map[b->callee]);
        struct ct_arc *a = &whole->arcs[k]; /* after arcs may move */
        a->count += b->count;
        a->self_ticks += b->self_ticks;
        a->child_ticks += b->child_ticks;
        a->off_self_ticks += b->off_self_ticks;
        a->off_child_ticks += b->off_child_ticks;
    }
    struct ct_totals *wt = &whole->totals;
    const struct ct_totals *pt = &part->totals;
    wt->cpu += pt->cpu;
    wt->overhead += pt->overhead;
    wt->unmetered += pt->unmetered;
    wt->unknown += pt->unknown;
    wt->offcpu += pt->offcpu;
    struct ct_counts *wc = &whole->counts;
    const struct ct_counts *pc = &part->counts;
    wc->events += pc->events - inherited_events;
    wc->calls += pc->calls;
    wc->returns += pc->returns;
    wc->user_events += pc->user_events;
    wc->unmatched_returns += pc->unmatched_returns;
    wc->unmatched_calls += pc->unmatched_calls;
    wc->open_at_end += pc->open_at_end;
    wc->lost = ct_sat_add(wc->lost, pc->lost);
    for (size_t i = 0; i < part->nevents; i++) {
        ct_grow(&whole->events, &whole->events_cap, whole->nevents,
                sizeof *whole->events);
        struct ct_user_event e = part->events[i];
        if (e.func != CT_FUNC_NONE)
            e.func = func_map[e.func];
        whole->events[whole->nevents++] = e;
    }
    part->nevents = 0; /* the texts are the whole's now */
    ct_prof_dist_merge(whole, part, func_map);
    for (size_t i = 0; i < ps->nthreads; i++)
        if (ps->threads[i].seen)
            merge_thread(whole, part_thread(whole, (uint32_t)i),
                         &ps->threads[i]);
}
