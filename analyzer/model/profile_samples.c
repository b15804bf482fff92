/*
 * Sampled data: stack samples (CT_EV_SAMPLE) and the aggregated counts of
 * formats without stacks (SamplingProf).  A sample is charged like a
 * moment of a traced run: self to the leaf, and to each arc that enters
 * the outermost frame of a function in the stack.  When calls were traced
 * as well (CALLTRACE_MODE=both) the calls give every figure and the
 * samples stay a view of their own (ct_profile.samples_apart).
 */
#include <math.h>
#include <stdlib.h>

#include "analyzer/model/profile_private.h"
#include "analyzer/util.h"

/* The sampling interval when the source does not say (gprof's 0.01 s). */
#define DEFAULT_INTERVAL_NS 10000000.0

static void count_arc(struct ct_profile *p, uint32_t arc, uint64_t w)
{
    struct ct_arc *a = &p->arcs[arc];
    a->count += w;
    if (a->caller == a->callee)
        p->funcs[a->callee].self_calls += w;
    else
        p->funcs[a->callee].calls += w;
}

void ct_prof_sample(struct ct_profile *p, const struct ct_event *ev)
{
    struct ct_profile_state *s = p->state;
    uint64_t w = ev->count ? ev->count : 1;
    p->counts.samples += w;
    if (!s->span_set) {
        s->span_set = true;
        s->span_first = s->span_last = ev->time;
    }
    if (ev->time < s->span_first)
        s->span_first = ev->time;
    if (ev->time > s->span_last)
        s->span_last = ev->time;
    if (!ev->depth || !ev->stack)
        return;
    for (uint32_t i = 0; i < ev->depth; i++)
        if (ev->stack[i] == CT_FUNC_NONE)
            return; /* a hole in the stack: nothing sound to charge */
    for (uint32_t i = 0; i < ev->depth; i++)
        ct_prof_need_func(p, ev->stack[i]);
    ct_prof_lines_add(&s->lines, ev, w);
    uint64_t gen = ++s->mark_gen;
    uint32_t leaf = ev->stack[0];
    p->funcs[leaf].samples_self += w;
    s->samples_total_weight += w;
    /* From the root down: the first time a function shows up is its
     * outermost frame. */
    for (uint32_t i = ev->depth; i-- > 0;) {
        uint32_t f = ev->stack[i];
        uint32_t caller = i + 1 < ev->depth ? ev->stack[i + 1] : CT_FUNC_NONE;
        uint32_t arc = ct_prof_arc(p, caller, f);
        s->sarc_count[arc] += w;
        if (s->mark[f] != gen) {
            s->mark[f] = gen;
            p->funcs[f].samples_total += w;
            if (f == leaf)
                s->sarc_self[arc] += w;
            else
                s->sarc_child[arc] += w;
        }
    }
}

static uint64_t ticks_per_sample(struct ct_profile *p, uint64_t nsamples)
{
    const struct ct_trace_info *info = p->info;
    double tick = info->ns_per_tick > 0 ? info->ns_per_tick : 1.0;
    double ns = DEFAULT_INTERVAL_NS;
    if (info->sample_runtime_ms > 0 && nsamples)
        ns = info->sample_runtime_ms * 1e6 / (double)nsamples;
    else if (info->sample_interval_ns)
        ns = (double)info->sample_interval_ns;
    double t = round(ns / tick);
    return t < 1 ? 1 : (uint64_t)t;
}

/* Aggregated counts carry no context: each function's time is shared
 * among its callers in proportion to the arc counts, as gprof does. */
static void apportion_aggregated(struct ct_profile *p, uint64_t unit)
{
    uint64_t *w = ct_xcalloc(p->narcs + 1, sizeof *w);
    uint64_t *share = ct_xcalloc(p->narcs + 1, sizeof *share);
    uint32_t *idx = ct_xcalloc(p->narcs + 1, sizeof *idx);
    for (uint32_t f = 0; f < p->nfuncs; f++) {
        const struct ct_fstats *fs = &p->funcs[f];
        size_t n = 0;
        for (uint32_t a = 0; a < p->narcs; a++)
            if (p->arcs[a].callee == f && p->arcs[a].caller != f) {
                idx[n] = a;
                w[n++] = p->arcs[a].count;
            }
        if (!n)
            continue;
        uint64_t child = fs->samples_total > fs->samples_self
                             ? fs->samples_total - fs->samples_self : 0;
        ct_apportion(fs->samples_self * unit, w, share, n);
        for (size_t i = 0; i < n; i++)
            p->arcs[idx[i]].self_ticks += share[i];
        ct_apportion(child * unit, w, share, n);
        for (size_t i = 0; i < n; i++)
            p->arcs[idx[i]].child_ticks += share[i];
    }
    free(w);
    free(share);
    free(idx);
}

void ct_prof_fold_samples(struct ct_profile *p)
{
    struct ct_profile_state *s = p->state;
    const struct ct_trace_info *info = p->info;
    bool aggregated = info->nsample_counts || info->nsample_arcs;
    for (size_t i = 0; i < info->nsample_counts; i++) {
        const struct ct_sample_count *c = &info->sample_counts[i];
        if (c->func == CT_FUNC_NONE)
            continue;
        ct_prof_need_func(p, c->func);
        p->funcs[c->func].samples_self += c->self;
        p->funcs[c->func].samples_total += c->total;
    }
    for (size_t i = 0; i < info->nsample_arcs; i++) {
        const struct ct_sample_arc *c = &info->sample_arcs[i];
        if (c->callee == CT_FUNC_NONE)
            continue;
        ct_prof_need_func(p, c->callee);
        if (c->caller != CT_FUNC_NONE)
            ct_prof_need_func(p, c->caller);
        count_arc(p, ct_prof_arc(p, c->caller, c->callee), c->count);
    }
    uint64_t nsamples = 0;
    for (uint32_t f = 0; f < p->nfuncs; f++)
        nsamples += p->funcs[f].samples_self;
    if (!nsamples && !p->counts.samples)
        return;
    uint64_t unit = ticks_per_sample(p, nsamples);
    s->ticks_per_sample = unit;
    p->ticks_per_sample = unit;
    if (p->samples_apart || p->counts.calls) {
        /* Calls give the exact figures; a sample is not a call and its
         * interval is not time the calls did not already measure. */
        p->samples_apart = true;
        ct_prof_drop_empty_arcs(p);
        return;
    }
    for (uint32_t a = 0; a < p->narcs; a++)
        if (s->sarc_count[a])
            count_arc(p, a, s->sarc_count[a]);
    for (uint32_t f = 0; f < p->nfuncs; f++) {
        struct ct_fstats *fs = &p->funcs[f];
        fs->self_ticks += fs->samples_self * unit;
        if (fs->samples_total > fs->samples_self)
            fs->child_ticks += (fs->samples_total - fs->samples_self) * unit;
    }
    for (uint32_t a = 0; a < p->narcs; a++) {
        p->arcs[a].self_ticks += s->sarc_self[a] * unit;
        p->arcs[a].child_ticks += s->sarc_child[a] * unit;
    }
    if (aggregated)
        apportion_aggregated(p, unit);
    p->totals.cpu += nsamples * unit;
    p->totals.elapsed += nsamples * unit;
}
