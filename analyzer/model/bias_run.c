/*
 * The tracer's cost per call, measured in the run (bias_run.h): each
 * thread's calls rebuilt as a stack, each clean leaf call's duration and
 * each clean gap between two calls of one frame kept per function in a
 * histogram, the smallest median of each kind taken at the end.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/model/bias_run.h"
#include "analyzer/model/histogram.h"
#include "analyzer/util.h"

/* Durations from this many ticks on are counted, not kept: they cannot be
 * a tracer's cost, and a function's histogram stays under 10 KiB. */
#define LONG_TICKS (1u << 15)
/* Frames deeper than this are counted, not looked at. */
#define MAX_DEPTH 4096u

struct series {
    struct ct_hist h;      /* the durations below LONG_TICKS             */
    uint64_t longer;       /* and how many were longer                   */
};

struct frame {
    uint32_t func;
    uint64_t entered;      /* the CALL's time                            */
    uint64_t returned;     /* the last child's RETURN, if gap_clean      */
    bool clean;            /* nothing but calls inside so far            */
    bool kids;             /* it made a call                             */
    bool gap_clean;        /* since `returned`, nothing happened         */
};

struct thread {
    struct frame *stack;
    size_t depth, cap;
    uint64_t deeper;       /* frames above MAX_DEPTH still open          */
};

struct ct_bias_run {
    struct ct_sink sink;
    const struct ct_trace_info *info;
    struct thread *threads;
    size_t nthreads;
    struct series **leaf, **gap;   /* per function id, NULL until used */
    size_t nleaf, ngap;
    uint64_t events;
};

/* Adds a duration to func's leaf series, or to its gap series. */
static void add(struct ct_bias_run *b, bool gap, uint32_t func,
                uint64_t ticks)
{
    if (func == CT_FUNC_NONE)
        return;
    struct series ***tab = gap ? &b->gap : &b->leaf;
    ct_grow_zeroed(tab, gap ? &b->ngap : &b->nleaf, func, sizeof **tab);
    struct series **s = &(*tab)[func];
    if (!*s)
        *s = ct_xcalloc(1, sizeof **s);
    if (ticks < LONG_TICKS)
        ct_hist_add(&(*s)->h, ticks);
    else
        (*s)->longer++;
}

static void on_call(struct ct_bias_run *b, struct thread *t,
                    const struct ct_event *ev)
{
    if (t->depth) {
        struct frame *top = &t->stack[t->depth - 1];
        if (top->kids && top->gap_clean && ev->time >= top->returned)
            add(b, true, top->func, ev->time - top->returned);
        top->kids = true;
        top->gap_clean = false;
    }
    if (t->deeper || t->depth == MAX_DEPTH) {
        t->deeper++;
        return;
    }
    ct_grow(&t->stack, &t->cap, t->depth, sizeof *t->stack);
    t->stack[t->depth++] = (struct frame){
        .func = ev->func, .entered = ev->time, .clean = true};
}

static void on_return(struct ct_bias_run *b, struct thread *t,
                      const struct ct_event *ev)
{
    if (t->deeper) {
        t->deeper--;
        return;
    }
    if (!t->depth)
        return;
    struct frame *fr = &t->stack[--t->depth];
    if (fr->clean && !fr->kids && ev->time >= fr->entered)
        add(b, false, fr->func, ev->time - fr->entered);
    if (t->depth) {
        struct frame *top = &t->stack[t->depth - 1];
        top->returned = ev->time;
        top->gap_clean = true;
    }
}

static int event(struct ct_sink *self, const struct ct_event *ev)
{
    struct ct_bias_run *b = (struct ct_bias_run *)self;
    ct_grow_zeroed(&b->threads, &b->nthreads, ev->thread, sizeof *b->threads);
    struct thread *t = &b->threads[ev->thread];
    switch (ev->kind) {
    case CT_EV_CALL:
        on_call(b, t, ev);
        break;
    case CT_EV_RETURN:
        on_return(b, t, ev);
        break;
    case CT_EV_LOST:
    case CT_EV_STACK:
    case CT_EV_THREAD_END:
        /* the stack is not known from here on: start again */
        t->depth = 0;
        t->deeper = 0;
        break;
    default:
        /* the tracer's or the scheduler's time, or more hook work (values):
         * the open call and the gap in its frame are not clean */
        if (t->depth && !t->deeper) {
            t->stack[t->depth - 1].clean = false;
            t->stack[t->depth - 1].gap_clean = false;
        }
        break;
    }
    return ++b->events >= CT_BIAS_RUN_MAX_EVENTS;
}

struct ct_bias_run *ct_bias_run_new(const struct ct_trace_info *info)
{
    struct ct_bias_run *b = ct_xcalloc(1, sizeof *b);
    b->sink.event = event;
    b->info = info;
    return b;
}

struct ct_sink *ct_bias_run_sink(struct ct_bias_run *b)
{
    return &b->sink;
}

/* The mean of a series' values up to `limit` ticks (bucket midpoints),
 * in ticks: a call's average cost without the rare preemption or
 * interrupt inside it. */
static double mean_upto(const struct series *s, uint64_t limit)
{
    double sum = 0, n = 0;
    for (uint32_t i = 0; i < s->h.n; i++) {
        uint64_t c = s->h.b[i];
        uint64_t lo = ct_hist_bucket_low(s->h.lo + i);
        uint64_t hi = ct_hist_bucket_high(s->h.lo + i);
        if (!c || lo > limit)
            continue;
        sum += (double)c * ((double)lo + (double)hi) / 2.0;
        n += (double)c;
    }
    return n > 0 ? sum / n : 0;
}

/* The series whose calls cost least on average (mean_upto 4 times their
 * median) among those with enough samples and most of them short: its
 * function's id, or CT_FUNC_NONE. */
static uint32_t cheapest(struct series **tab, size_t n, double *mean)
{
    uint32_t best = CT_FUNC_NONE;
    for (uint32_t f = 0; f < n; f++) {
        const struct series *s = tab[f];
        if (!s || s->h.count + s->longer < CT_BIAS_RUN_MIN_SAMPLES ||
            s->longer >= s->h.count)
            continue;
        /* the median of all, the longer ones above every kept value */
        uint64_t all = s->h.count + s->longer;
        unsigned permille = (unsigned)((500 * all + s->h.count - 1) /
                                       s->h.count);
        uint64_t median = ct_hist_quantile(&s->h, permille > 1000 ? 1000
                                                                  : permille);
        double m = mean_upto(s, 4 * median);
        if (best == CT_FUNC_NONE || m < *mean) {
            best = f;
            *mean = m;
        }
    }
    return best;
}

/* Half the gap between the quartiles of a function's kept values, ns. */
static double spread(const struct series *s, double ns_per_tick)
{
    uint64_t q1 = ct_hist_quantile(&s->h, 250), q3 = ct_hist_quantile(&s->h, 750);
    return (double)(q3 - q1) / 2.0 * ns_per_tick;
}

/* One part of the bias from the cheapest series of tab, if there is one
 * and it is no more than `most` ns. */
static bool part(struct series **tab, size_t n, double tick, double most,
                 struct ct_functab *funcs, double *ns, double *spread_ns,
                 uint64_t *samples, char *func, size_t func_len)
{
    double mean = 0;
    uint32_t f = cheapest(tab, n, &mean);
    if (f == CT_FUNC_NONE || mean * tick > most)
        return false;
    *ns = mean * tick;
    *spread_ns = spread(tab[f], tick);
    *samples = tab[f]->h.count + tab[f]->longer;
    const char *name = ct_functab_name(funcs, f);
    snprintf(func, func_len, "%s", name ? name : "?");
    return true;
}

void ct_bias_run_finish(struct ct_bias_run *b, struct ct_trace_info *info)
{
    const struct ct_trace_info *in = b->info;
    struct ct_run_bias *r = &info->run_bias;
    memset(r, 0, sizeof *r);
    double tick = in->ns_per_tick > 0 ? in->ns_per_tick : 1.0;
    /* a figure larger than this is a function's own work */
    double most = 3.0 * (in->bias_ns_per_call + in->bias_child_ns);
    r->self_found = part(b->leaf, b->nleaf, tick, most, in->funcs,
                         &r->self_ns, &r->self_spread_ns, &r->self_samples,
                         r->self_func, sizeof r->self_func);
    r->child_found = part(b->gap, b->ngap, tick, most, in->funcs,
                          &r->child_ns, &r->child_spread_ns,
                          &r->child_samples, r->child_func,
                          sizeof r->child_func);
    /* Each figure is an upper bound of its part: the cheapest function's
     * body is in the one, its caller's instructions between two calls in
     * the other.  The calibration's split of the pair varies less than
     * the parts do, so the other part times that split, with room for
     * its variation in a run, is a second bound: a program whose
     * cheapest function does some work has a tight loop of calls, or the
     * other way round, more often than neither. */
    if (r->self_found && r->child_found && in->bias_ns_per_call > 0 &&
        in->bias_child_ns > 0) {
        double split = in->bias_ns_per_call / in->bias_child_ns;
        double self_most = CT_BIAS_RUN_SPLIT_ROOM * r->child_ns * split;
        double child_most = CT_BIAS_RUN_SPLIT_ROOM * r->self_ns / split;
        if (r->self_ns > self_most) {
            r->self_ns = self_most;
            r->self_bounded = true;
        } else if (r->child_ns > child_most) {
            r->child_ns = child_most;
            r->child_bounded = true;
        }
    }
}

static void free_series(struct series **tab, size_t n)
{
    for (size_t f = 0; f < n; f++) {
        if (tab[f])
            ct_hist_free(&tab[f]->h);
        free(tab[f]);
    }
    free(tab);
}

void ct_bias_run_free(struct ct_bias_run *b)
{
    if (!b)
        return;
    for (size_t i = 0; i < b->nthreads; i++)
        free(b->threads[i].stack);
    free(b->threads);
    free_series(b->leaf, b->nleaf);
    free_series(b->gap, b->ngap);
    free(b);
}
