/*
 * --export lms: calls and returns as lms CSV.  A "2,<id>,<label>" line maps
 * each function just before its first use; deltas are microseconds since the
 * previous 0/1 line, the first one since the trace's first event.  Each
 * line's absolute time is rounded to the microsecond and the delta taken
 * between rounded times, so rounding never accumulates.
 *
 * lms has no threads: spans of different threads simply interleave (the
 * reader puts overlapping spans back on separate threads).  It has no user
 * events, samples or overhead either; those are counted and left out with a
 * warning.  A return is written only for a call that was written.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/writers/export.h"
#include "analyzer/util.h"

struct stack {
    uint32_t *f;
    size_t n, cap;
};

struct lms_export {
    struct ct_exporter ex;
    FILE *out;
    struct ct_trace_info *info;
    uint32_t *id_of;            /* func -> lms id + 1 */
    size_t id_cap;
    uint32_t next_id;
    struct stack *stacks;       /* by thread */
    size_t nstacks;
    bool have_origin;
    uint64_t origin;            /* ticks of the first event */
    int64_t prev_us;
    uint64_t left_out, unmatched;
};

static int64_t to_us(struct lms_export *x, uint64_t t)
{
    if (!x->have_origin) {
        x->origin = t;
        x->have_origin = true;
    }
    double npt = x->info->ns_per_tick;
    __int128 rel = (__int128)t - x->origin;
    if (npt == (double)(int64_t)npt && npt >= 1) {
        __int128 ns = rel * (int64_t)npt;
        __int128 q = ns >= 0 ? (ns + 500) / 1000 : -((-ns + 500) / 1000);
        return (int64_t)q;
    }
    double us = (double)rel * npt / 1000.0;
    return (int64_t)(us >= 0 ? us + 0.5 : us - 0.5);
}

static struct stack *stack_of(struct lms_export *x, uint32_t thread)
{
    ct_grow_zeroed(&x->stacks, &x->nstacks, thread, sizeof *x->stacks);
    return &x->stacks[thread];
}

static uint32_t lms_id(struct lms_export *x, uint32_t func)
{
    if (func >= x->id_cap) {
        size_t old = x->id_cap;
        ct_grow(&x->id_of, &x->id_cap, func, sizeof *x->id_of);
        memset(x->id_of + old, 0, (x->id_cap - old) * sizeof *x->id_of);
    }
    if (!x->id_of[func]) {
        x->id_of[func] = ++x->next_id;
        const char *name = ct_functab_name(x->info->funcs, func);
        /* a newline would end the line: the label is cut there */
        fprintf(x->out, "2,%" PRIu32 ",%.*s\n", x->next_id - 1,
                (int)strcspn(name, "\n"), name);
    }
    return x->id_of[func] - 1;
}

static void line(struct lms_export *x, int type, uint32_t func, uint64_t t)
{
    uint32_t id = lms_id(x, func);
    int64_t us = to_us(x, t);
    fprintf(x->out, "%d,%" PRIu32 ",%" PRId64 "\n", type, id, us - x->prev_us);
    x->prev_us = us;
}

static void push(struct stack *s, uint32_t f)
{
    ct_grow(&s->f, &s->cap, s->n, sizeof *s->f);
    s->f[s->n++] = f;
}

static void end_frames(struct lms_export *x, struct stack *s, size_t keep,
                       uint64_t t)
{
    while (s->n > keep)
        line(x, 1, s->f[--s->n], t);
}

static int lms_event(struct ct_sink *self, const struct ct_event *ev)
{
    struct lms_export *x = (struct lms_export *)self;
    if (ev->kind >= CT_EV_OFFCPU_START)
        return 0; /* the scheduler's, not the program's: no place in lms */
    if (ev->kind != CT_EV_CALL && ev->kind != CT_EV_RETURN &&
        ev->kind != CT_EV_STACK && ev->kind != CT_EV_THREAD_END) {
        x->left_out++;
        return 0;
    }
    struct stack *s = stack_of(x, ev->thread);
    switch (ev->kind) {
    case CT_EV_CALL:
        if (ev->func == CT_FUNC_NONE)
            break;
        push(s, ev->func);
        line(x, 0, ev->func, ev->time);
        break;
    case CT_EV_RETURN: {
        size_t i = s->n;
        if (ev->func == CT_FUNC_NONE)
            i = s->n ? s->n - 1 : SIZE_MAX;
        else
            while (i-- > 0 && s->f[i] != ev->func)
                ;
        if (i == SIZE_MAX || i >= s->n) {
            x->unmatched++;
            break;
        }
        /* frames above the returning one never returned: they end too */
        end_frames(x, s, i, ev->time);
        break;
    }
    case CT_EV_STACK: {
        size_t same = 0;
        while (same < s->n && same < ev->depth &&
               s->f[same] == ev->stack[same])
            same++;
        end_frames(x, s, same, ev->time);
        for (size_t i = same; i < ev->depth; i++) {
            push(s, ev->stack[i]);
            line(x, 0, ev->stack[i], ev->time);
        }
        break;
    }
    default:  /* CT_EV_THREAD_END */
        end_frames(x, s, 0, ev->time);
        break;
    }
    return 0;
}

static int lms_finish(struct ct_exporter *ex, struct ct_profile *profile)
{
    (void)profile;
    struct lms_export *x = (struct lms_export *)ex;
    if (x->left_out)
        ct_warn("lms has no user events, samples or overhead records: %" PRIu64
                " left out", x->left_out);
    if (x->unmatched)
        ct_warn("%" PRIu64 " return(s) without a call left out of the lms "
                "export", x->unmatched);
    return 0;
}

static void lms_free(struct ct_exporter *ex)
{
    struct lms_export *x = (struct lms_export *)ex;
    for (size_t i = 0; i < x->nstacks; i++)
        free(x->stacks[i].f);
    free(x->stacks);
    free(x->id_of);
    free(x);
}

struct ct_exporter *ct_export_lms_new(FILE *out, struct ct_trace_info *info,
                                      const struct ct_view_opts *opts)
{
    (void)opts;
    struct lms_export *x = ct_xcalloc(1, sizeof *x);
    x->ex.sink.event = lms_event;
    x->ex.finish = lms_finish;
    x->ex.free = lms_free;
    x->out = out;
    x->info = info;
    return &x->ex;
}
