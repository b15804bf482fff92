/*
 * The profile model's life: a sink that rebuilds call stacks while reading
 * (profile_stack.c), then ct_profile_finish closes what is still open,
 * folds in samples, finds cycles and sorts the user events.
 */
#include <stdlib.h>
#include <string.h>

#include "analyzer/model/profile_private.h"
#include "analyzer/util.h"

/* The per-thread profile of ev's thread, made at its first event. */
static struct ct_profile *thread_profile(struct ct_profile_state *s,
                                         const struct ct_event *ev)
{
    struct ct_profile *p = s->p;
    size_t n = p->nthreads;
    ct_grow_zeroed(&p->threads, &n, ev->thread, sizeof *p->threads);
    p->nthreads = (uint32_t)n;
    struct ct_profile *t = p->threads[ev->thread];
    if (!t) {
        struct ct_profile_opts o = p->opts;
        o.per_thread = false;
        t = p->threads[ev->thread] = ct_profile_new(p->info, &o);
        /* one time origin for every thread's window */
        if (s->origin_set && ev->kind != CT_EV_SAMPLE) {
            t->state->origin_set = true;
            t->state->origin = s->origin;
            t->state->rfrom = s->rfrom;
            t->state->rto = s->rto;
            t->state->bias = s->bias;
        }
    }
    return t;
}

static int profile_events(struct ct_batch_sink *sink,
                          const struct ct_event *ev, size_t n)
{
    struct ct_profile_state *s = (struct ct_profile_state *)sink;
    struct ct_profile *p = s->p;
    if (!p->threads) {
        ct_prof_events(p, ev, n);
        return 0;
    }
    /* Event by event: a thread's profile takes its origin from the whole
     * profile's as it stands at that thread's first event. */
    for (size_t i = 0; i < n; i++) {
        ct_prof_event(p, &ev[i]);
        ct_prof_event(thread_profile(s, &ev[i]), &ev[i]);
    }
    return 0;
}

struct ct_profile *ct_profile_of_sink(struct ct_sink *sink)
{
    struct ct_batch_sink *b = ct_sink_batch(sink);
    if (!b || b->events != profile_events)
        return NULL;
    struct ct_profile *p = ((struct ct_profile_state *)b)->p;
    return p->threads ? NULL : p;
}

struct ct_profile *ct_profile_new(struct ct_trace_info *info,
                                  const struct ct_profile_opts *opts)
{
    struct ct_profile *p = ct_xcalloc(1, sizeof *p);
    struct ct_profile_state *s = ct_xcalloc(1, sizeof *s);
    p->info = info;
    p->opts = *opts;
    p->state = s;
    s->p = p;
    s->sink.sink.event = ct_batch_sink_event;
    s->sink.events = profile_events;
    s->rto = UINT64_MAX;
    ct_prof_dist_new(p);
    if (opts->per_thread) {
        p->threads = ct_xcalloc(1, sizeof *p->threads);
        p->nthreads = 0;
    }
    return p;
}

struct ct_sink *ct_profile_sink(struct ct_profile *p)
{
    return &p->state->sink.sink;
}

struct event_key {
    uint64_t time;
    size_t pos;
};

static int cmp_event_key(const void *a, const void *b)
{
    const struct event_key *x = a, *y = b;
    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* Threads interleave, so user events arrive out of time order; equal
 * times keep the order in which they were read. */
static void sort_events(struct ct_profile *p)
{
    size_t n = p->nevents;
    bool sorted = true;
    for (size_t i = 1; i < n && sorted; i++)
        sorted = p->events[i].time >= p->events[i - 1].time;
    if (sorted)
        return;
    struct event_key *key = ct_xmalloc(n * sizeof *key);
    for (size_t i = 0; i < n; i++)
        key[i] = (struct event_key){p->events[i].time, i};
    qsort(key, n, sizeof *key, cmp_event_key);
    struct ct_user_event *ev = ct_xmalloc(n * sizeof *ev);
    for (size_t i = 0; i < n; i++)
        ev[i] = p->events[key[i].pos];
    free(p->events);
    p->events = ev;
    p->events_cap = n;
    free(key);
}

void ct_profile_finish(struct ct_profile *p)
{
    if (!p || p->state->finished)
        return;
    struct ct_profile_state *s = p->state;
    s->finished = true;
    bool any = false;
    for (size_t i = 0; i < s->nthreads; i++) {
        struct ct_pthread *th = &s->threads[i];
        if (!th->seen)
            continue;
        ct_prof_close_thread(p, (uint32_t)i);
        uint64_t first = th->first, last = th->cur;
        if (p->opts.have_range) {
            first = first < s->rfrom ? s->rfrom : first > s->rto ? s->rto
                                                                 : first;
            last = last < s->rfrom ? s->rfrom : last > s->rto ? s->rto : last;
        }
        /* the wall span, as elapsed, covers the window only */
        if (!any || first < p->totals.first)
            p->totals.first = first;
        if (!any || last > p->totals.last)
            p->totals.last = last;
        any = true;
        p->totals.elapsed += last - first;
        th->tt.elapsed = last - first;
        th->tt.oncpu = i < p->info->nthreads ? p->info->threads[i].oncpu : 0;
        if (th->have_clock && th->clock_t1 > th->clock_t0) {
            th->tt.clock_ticks = th->clock_t1 - th->clock_t0;
            th->tt.clock_cpu_ns = th->clock_c1 > th->clock_c0
                                      ? th->clock_c1 - th->clock_c0 : 0;
        }
    }
    p->nthread_time = (uint32_t)s->nthreads;
    p->thread_time = ct_xcalloc(s->nthreads + 1, sizeof *p->thread_time);
    for (size_t i = 0; i < s->nthreads; i++)
        p->thread_time[i] = s->threads[i].tt;
    if (s->span_set) {
        if (!any || s->span_first < p->totals.first)
            p->totals.first = s->span_first;
        if (!any || s->span_last > p->totals.last)
            p->totals.last = s->span_last;
    }
    ct_prof_fold_samples(p);
    if ((s->bias.self || s->bias.child) && p->counts.calls)
        p->bias_subtracted = true;
    ct_prof_find_cycles(p);
    ct_prof_dist_finish(p);
    sort_events(p);
    /* One rule for the whole trace: a thread with samples and no calls
     * of its own still keeps them apart when other threads were traced. */
    for (uint32_t i = 0; i < p->nthreads; i++)
        if (p->threads[i]) {
            p->threads[i]->samples_apart = p->samples_apart;
            ct_profile_finish(p->threads[i]);
        }
}

void ct_profile_free(struct ct_profile *p)
{
    if (!p)
        return;
    struct ct_profile_state *s = p->state;
    for (uint32_t i = 0; i < p->nthreads; i++)
        ct_profile_free(p->threads[i]);
    free(p->threads);
    for (size_t i = 0; i < s->nthreads; i++) {
        free(s->threads[i].stack);
        free(s->threads[i].act);
    }
    free(s->threads);
    free(s->arc_slots);
    free(s->sarc_self);
    free(s->sarc_child);
    free(s->sarc_count);
    free(s->mark);
    free(s->owner);
    free(s->callees);
    ct_prof_lines_free(s->lines);
    ct_prof_dist_free(p);
    free(s);
    for (size_t i = 0; i < p->nevents; i++)
        free(p->events[i].text);
    free(p->events);
    free(p->funcs);
    free(p->arcs);
    free(p->thread_time);
    free(p);
}
