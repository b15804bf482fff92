/* Sinks that stand between a reader and its consumers (trace.h). */
#include <stdint.h>
#include <stdlib.h>

#include "analyzer/model/trace.h"
#include "analyzer/util.h"

/* Batch sinks fed one event at a time, e.g. through a tee. */
int ct_batch_sink_event(struct ct_sink *self, const struct ct_event *ev)
{
    struct ct_batch_sink *b = (struct ct_batch_sink *)self;
    return b->events(b, ev, 1);
}

static uint64_t ticks_after(uint64_t origin, int64_t ns, double ns_per_tick)
{
    double t = (double)ns / (ns_per_tick > 0 ? ns_per_tick : 1.0);
    if (ns == INT64_MAX || t >= 1.8e19 - (double)origin)
        return UINT64_MAX;
    return origin + (uint64_t)(t + 0.5);
}

/* Follows the open frames of a thread before the window. */
static void track(struct ct_range_thread *t, const struct ct_event *ev)
{
    switch (ev->kind) {
    case CT_EV_CALL:
        ct_grow(&t->f, &t->cap, t->n, sizeof *t->f);
        t->f[t->n++] = ev->func;
        break;
    case CT_EV_RETURN: {
        size_t i = t->n;
        if (ev->func != CT_FUNC_NONE)
            while (i > 0 && t->f[i - 1] != ev->func)
                i--;
        if (i > 0)
            t->n = i - 1;
        break;
    }
    case CT_EV_STACK:
        t->n = 0;
        for (uint32_t i = 0; i < ev->depth; i++) {
            ct_grow(&t->f, &t->cap, t->n, sizeof *t->f);
            t->f[t->n++] = ev->stack[i];
        }
        break;
    case CT_EV_THREAD_END:
        t->n = 0;
        break;
    default:
        break;
    }
}

static int range_event(struct ct_sink *self, const struct ct_event *ev)
{
    struct ct_range_filter *f = (struct ct_range_filter *)self;
    if (!f->origin_set) {
        uint64_t origin = f->info->have_first_time ? f->info->first_time
                                                    : ev->time;
        f->from = ticks_after(origin, f->from_ns, f->info->ns_per_tick);
        f->to = ticks_after(origin, f->to_ns, f->info->ns_per_tick);
        f->origin_set = true;
    }
    ct_grow_zeroed(&f->threads, &f->nthreads, ev->thread, sizeof *f->threads);
    struct ct_range_thread *t = &f->threads[ev->thread];
    if (ev->time < f->from) {
        track(t, ev);
        return 0;
    }
    if (!t->inside) {
        t->inside = true;
        /* The frames open before the window are open from its start, as
         * the profile charges them, even when the thread's next event (a
         * pause of tracing, a sleep) comes after the window.  A STACK
         * record that follows repeats them (consumers keep what matches). */
        if (t->n) {
            struct ct_event open = {
                .kind = CT_EV_STACK,
                .thread = ev->thread,
                .time = f->from,
                .func = CT_FUNC_NONE,
                .stack = t->f,
                .depth = (uint32_t)t->n,
            };
            int r = f->next->event(f->next, &open);
            if (r)
                return r;
        }
    }
    if (ev->time > f->to) {
        t->past = true;
        return 0;
    }
    return f->next->event(f->next, ev);
}

void ct_range_filter_init(struct ct_range_filter *f, struct ct_sink *next,
                          const struct ct_trace_info *info, int64_t from_ns,
                          int64_t to_ns)
{
    *f = (struct ct_range_filter){
        .sink = {range_event},
        .next = next,
        .info = info,
        .from_ns = from_ns,
        .to_ns = to_ns,
    };
}

bool ct_range_past(const struct ct_range_filter *f, uint32_t thread)
{
    return f && thread < f->nthreads && f->threads[thread].past;
}

void ct_range_filter_free(struct ct_range_filter *f)
{
    for (size_t i = 0; i < f->nthreads; i++)
        free(f->threads[i].f);
    free(f->threads);
    f->threads = NULL;
    f->nthreads = 0;
}
