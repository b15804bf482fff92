/* Per-thread slices from the event stream (timeline.h). */
#include <inttypes.h>
#include <stdlib.h>

#include "analyzer/model/view_opts.h"
#include "analyzer/writers/timeline.h"
#include "analyzer/util.h"
#include "analyzer/model/values.h"

struct tl_frame {
    uint32_t func;
    enum ct_slice_kind kind;
    char *args, *ret;       /* its ARGS and RETVAL as text, owned, or NULL */
};

struct ct_tl_thread {
    struct tl_frame *stack;
    size_t depth, cap;
    uint64_t last;          /* time of the thread's previous event       */
    bool seen, calls;
    uint32_t in_overhead;
    bool overhead_open;     /* the overhead slice has begun              */
};

void ct_timeline_init(struct ct_timeline *tl,
                      const struct ct_timeline_ops *ops, void *ctx,
                      const struct ct_trace_info *info)
{
    *tl = (struct ct_timeline){.ops = ops, .ctx = ctx, .info = info};
}

static void push(struct ct_timeline *tl, struct ct_tl_thread *th,
                 uint32_t thread, uint64_t t, uint32_t func,
                 enum ct_slice_kind kind)
{
    ct_grow(&th->stack, &th->cap, th->depth, sizeof *th->stack);
    th->stack[th->depth++] = (struct tl_frame){func, kind, NULL, NULL};
    tl->ops->begin(tl->ctx, thread, t, func, kind);
}

/* The overhead slice nests inside a frame: it ends before the frame. */
static void end_overhead(struct ct_timeline *tl, struct ct_tl_thread *th,
                         uint32_t thread, uint64_t t)
{
    if (!th->overhead_open)
        return;
    th->overhead_open = false;
    tl->ops->end(tl->ctx, thread, t, CT_FUNC_NONE, CT_SLICE_OVERHEAD, NULL,
                 NULL, NULL);
}

static void pop_to(struct ct_timeline *tl, struct ct_tl_thread *th,
                   uint32_t thread, size_t keep, uint64_t t, const char *mark)
{
    if (th->depth > keep)
        end_overhead(tl, th, thread, t);
    while (th->depth > keep) {
        struct tl_frame *f = &th->stack[--th->depth];
        tl->ops->end(tl->ctx, thread, t, f->func, f->kind,
                     f->kind == CT_SLICE_SAMPLE ? NULL : mark, f->args,
                     f->ret);
        free(f->args);
        free(f->ret);
    }
}

static void on_return(struct ct_timeline *tl, struct ct_tl_thread *th,
                      uint32_t thread, uint64_t prev, uint64_t t,
                      uint32_t func)
{
    size_t i = th->depth;
    if (func != CT_FUNC_NONE)
        while (i > 0 && th->stack[i - 1].func != func)
            i--;
    /* frames above the one returning (all of them for a return with no
     * call) never returned: they end at the previous event */
    pop_to(tl, th, thread, i, prev, "never_returned");
    if (i > 0)
        pop_to(tl, th, thread, i - 1, t, NULL);
}

/* An ARGS or RETVAL payload kept as text on the thread's top frame, a
 * call's, for its slice's end (where viewers merge the args into the
 * slice's). */
static void keep_values(const struct ct_timeline *tl, struct ct_tl_thread *th,
                        const struct ct_event *ev)
{
    if (!th->depth || th->stack[th->depth - 1].kind != CT_SLICE_CALL)
        return;
    struct tl_frame *f = &th->stack[th->depth - 1];
    char **to = ev->kind == CT_EV_ARGS ? &f->args : &f->ret;
    char text[CT_VALUES_TEXT_MAX];
    ct_values_text_of(tl->info, (const uint8_t *)ev->text, ev->text_len, text,
                      sizeof text);
    free(*to);
    *to = ct_xstrdup(text);
}

/* Frames open now: keep what matches, end the rest, open the new ones. */
static void set_stack(struct ct_timeline *tl, struct ct_tl_thread *th,
                      uint32_t thread, uint64_t t, const uint32_t *f,
                      uint32_t n, bool leaf_first, enum ct_slice_kind kind)
{
    size_t same = 0;
    while (same < th->depth && same < n &&
           th->stack[same].func == f[leaf_first ? n - 1 - same : same])
        same++;
    pop_to(tl, th, thread, same, t, "never_returned");
    for (size_t i = same; i < n; i++) {
        uint32_t func = f[leaf_first ? n - 1 - i : i];
        if (func != CT_FUNC_NONE)
            push(tl, th, thread, t, func, kind);
    }
}

void ct_timeline_event(struct ct_timeline *tl, const struct ct_event *ev)
{
    uint32_t thread = ev->thread;
    ct_grow_zeroed(&tl->threads, &tl->nthreads, thread, sizeof *tl->threads);
    struct ct_tl_thread *th = &tl->threads[thread];
    uint64_t prev = th->last;
    if (!th->seen || ev->time > th->last)
        th->last = ev->time;
    th->seen = true;
    uint64_t t = th->last;
    switch (ev->kind) {
    case CT_EV_CALL:
        if (!th->calls)     /* sampled frames give way to calls */
            pop_to(tl, th, thread, 0, t, NULL);
        th->calls = true;
        end_overhead(tl, th, thread, t);
        if (ev->func != CT_FUNC_NONE)
            push(tl, th, thread, t, ev->func, CT_SLICE_CALL);
        break;
    case CT_EV_RETURN:
        on_return(tl, th, thread, prev, t, ev->func);
        break;
    case CT_EV_OVERHEAD_START:
        if (th->in_overhead++ == 0) {
            tl->ops->begin(tl->ctx, thread, t, CT_FUNC_NONE,
                           CT_SLICE_OVERHEAD);
            th->overhead_open = true;
        }
        break;
    case CT_EV_OVERHEAD_END:
        if (th->in_overhead && --th->in_overhead == 0)
            end_overhead(tl, th, thread, t);
        break;
    case CT_EV_USER:
    case CT_EV_LOST:
        tl->ops->instant(tl->ctx, t, ev);
        break;
    case CT_EV_ARGS:
    case CT_EV_RETVAL:
        keep_values(tl, th, ev);
        break;
    case CT_EV_STACK:
        th->calls = true;
        set_stack(tl, th, thread, t, ev->stack, ev->depth, false,
                  CT_SLICE_BEFORE_DATA);
        break;
    case CT_EV_THREAD_END:
        pop_to(tl, th, thread, 0, t, "never_returned");
        break;
    case CT_EV_OFFCPU_START:
    case CT_EV_OFFCPU_END:
    case CT_EV_CPUTIME:
        break;  /* the scheduler's records: the slices are the program's */
    case CT_EV_PATH:
        break;  /* a profile has no slices: refused before reading (main.c) */
    case CT_EV_SAMPLE:
        if (th->calls)
            tl->samples_left_out++;
        else
            set_stack(tl, th, thread, t, ev->stack, ev->depth, true,
                      CT_SLICE_SAMPLE);
        break;
    }
}

void ct_timeline_finish(struct ct_timeline *tl, const struct ct_view_opts *opts,
                        const struct ct_range_filter *range)
{
    bool window = opts && opts->have_range;
    const char *end_mark = window ? "open_at_window_end" : "never_returned";
    for (size_t i = 0; i < tl->nthreads; i++) {
        struct ct_tl_thread *th = &tl->threads[i];
        /* A thread that went on past the window: its frames are open to
         * the window's end, as the profile charges them. */
        uint64_t end = ct_range_past(range, (uint32_t)i) && range->to > th->last
                           ? range->to
                           : th->last;
        pop_to(tl, th, (uint32_t)i, 0, end, end_mark);
    }
}

int ct_timeline_verdict(const struct ct_timeline *tl,
                        const struct ct_trace_info *info, const char *writer,
                        bool drew_nothing)
{
    if (drew_nothing && info->nsample_counts) {
        ct_error("%s: %s input has per-function sample counts but no "
                 "times: no %s timeline can be drawn from it",
                 info->path, info->format, writer);
        return 1;
    }
    if (tl->samples_left_out)
        ct_warn("%s: %" PRIu64 " sample(s) on threads that record calls "
                "left out", writer, tl->samples_left_out);
    return 0;
}

void ct_timeline_free(struct ct_timeline *tl)
{
    for (size_t i = 0; i < tl->nthreads; i++) {
        struct ct_tl_thread *th = &tl->threads[i];
        for (size_t k = 0; k < th->depth; k++) {
            free(th->stack[k].args);
            free(th->stack[k].ret);
        }
        free(th->stack);
    }
    free(tl->threads);
    tl->threads = NULL;
    tl->nthreads = 0;
}
