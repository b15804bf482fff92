/*
 * --tree: the calls as an indented tree with durations, in the manner of
 * `uftrace replay`.  A call's duration is known only at its return, so
 * each thread keeps the text of the calls still open in a buffer and
 * prints a subtree when its outermost call returns.  The buffer is capped:
 * when it grows past TREE_BUFFER_MAX, the open calls are printed without
 * a duration and their closing lines carry it instead.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "util.h"

#define TREE_BUFFER_MAX (1u << 20)

struct tframe {
    uint32_t func;
    uint64_t start;
    uint64_t start_off; /* the thread's off-CPU ticks when it began      */
    size_t off;         /* where this call's text begins in the buffer   */
    bool emitted;       /* its opening line is already printed           */
};

struct tthread {
    struct tframe *stack;
    size_t depth, cap;
    char *buf;
    size_t len, bufcap;
    uint64_t last;
    uint64_t off;       /* off-CPU ticks so far (OFFCPU events)          */
    uint64_t off_since; /* start of the current off-CPU interval         */
    bool in_off;
};

struct tree {
    struct ct_sink sink;
    FILE *out;
    struct ct_trace_info *info;
    uint32_t max_depth;
    double min_ns;
    struct tthread *threads;
    size_t nthreads;
    bool started;       /* the heading is printed                        */
    bool oncpu;         /* an ON-CPU column beside the duration          */
    int blank;          /* width of the duration column(s)               */
};

/* Off-CPU ticks of t up to time. */
static uint64_t off_at(const struct tthread *t, uint64_t time)
{
    return t->off + (t->in_off && time > t->off_since ? time - t->off_since
                                                       : 0);
}

/* The heading, once the reader has told whether there is on-CPU data. */
static void start(struct tree *tr)
{
    if (tr->started)
        return;
    tr->started = true;
    tr->oncpu = tr->info->oncpu == CT_ONCPU_SWITCH;
    tr->blank = tr->oncpu ? 21 : 10;
    fputs(tr->oncpu ? "#   DURATION     ON-CPU     TID     FUNCTION\n"
                    : "# DURATION     TID     FUNCTION\n", tr->out);
}

static void put(struct tthread *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void put(struct tthread *t, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int n = vsnprintf(t->buf ? t->buf + t->len : NULL,
                          t->bufcap - t->len, fmt, ap);
        va_end(ap);
        if (n < 0)
            return;
        if ((size_t)n < t->bufcap - t->len) {
            t->len += (size_t)n;
            return;
        }
        ct_grow(&t->buf, &t->bufcap, t->len + (size_t)n + 1, 1);
    }
}

static void duration(char *buf, size_t len, double ns)
{
    if (ns < 1e3)
        snprintf(buf, len, "%7.3f ns", ns);
    else if (ns < 1e6)
        snprintf(buf, len, "%7.3f us", ns / 1e3);
    else if (ns < 1e9)
        snprintf(buf, len, "%7.3f ms", ns / 1e6);
    else
        snprintf(buf, len, "%7.3f  s", ns / 1e9);
}

static uint64_t tid_of(struct tree *tr, uint32_t thread)
{
    return thread < tr->info->nthreads ? tr->info->threads[thread].tid
                                       : thread;
}

static const char *name_of(struct tree *tr, uint32_t func)
{
    const char *n = ct_functab_name(tr->info->funcs, func);
    return n ? n : "?";
}

static struct tthread *get(struct tree *tr, uint32_t idx)
{
    ct_grow_zeroed(&tr->threads, &tr->nthreads, idx, sizeof *tr->threads);
    return &tr->threads[idx];
}

static bool visible(struct tree *tr, size_t depth)
{
    return !tr->max_depth || depth < tr->max_depth;
}

/* Prints the open calls' text so far and marks them printed. */
static void flush(struct tree *tr, struct tthread *t, uint32_t thread)
{
    size_t done = 0;
    for (size_t i = 0; i < t->depth; i++) {
        struct tframe *f = &t->stack[i];
        if (f->emitted || !visible(tr, i))
            continue;
        fwrite(t->buf + done, 1, f->off - done, tr->out);
        done = f->off;
        fprintf(tr->out, "%*s [%6" PRIu64 "] | %*s%s() {\n", tr->blank, "",
                tid_of(tr, thread), (int)(2 * i), "", name_of(tr, f->func));
        f->emitted = true;
    }
    fwrite(t->buf + done, 1, t->len - done, tr->out);
    t->len = 0;
    for (size_t i = 0; i < t->depth; i++)
        t->stack[i].off = 0;
}

static void close_top(struct tree *tr, struct tthread *t, uint32_t thread,
                      uint64_t time)
{
    size_t depth = --t->depth;
    struct tframe *f = &t->stack[depth];
    if (!visible(tr, depth))
        return;
    double ns = ct_ticks_to_ns(tr->info, time - f->start);
    char dur[48];
    duration(dur, sizeof dur, ns);
    if (tr->oncpu) {
        uint64_t off = off_at(t, time) - f->start_off;
        uint64_t wall = time - f->start;
        size_t l = strlen(dur);
        dur[l++] = ' ';
        duration(dur + l, sizeof dur - l,
                 ct_ticks_to_ns(tr->info, off < wall ? wall - off : 0));
    }
    uint64_t tid = tid_of(tr, thread);
    const char *name = name_of(tr, f->func);
    int indent = (int)(2 * depth);
    if (f->emitted) {
        fwrite(t->buf + f->off, 1, t->len - f->off, tr->out);
        t->len = f->off;
        fprintf(tr->out, "%s [%6" PRIu64 "] | %*s} /* %s */\n", dur, tid,
                indent, "", name);
        return;
    }
    if (ns < tr->min_ns) {
        t->len = f->off;
        return;
    }
    size_t children = t->len - f->off;
    if (!children) {
        put(t, "%s [%6" PRIu64 "] | %*s%s();\n", dur, tid, indent, "", name);
    } else {
        char head[4200];
        int n = snprintf(head, sizeof head, "%s [%6" PRIu64 "] | %*s%s() {\n",
                         dur, tid, indent, "", name);
        size_t hl = n < 0 ? 0 : (size_t)n >= sizeof head ? sizeof head - 1
                                                          : (size_t)n;
        ct_grow(&t->buf, &t->bufcap, t->len + hl + 1, 1);
        memmove(t->buf + f->off + hl, t->buf + f->off, children);
        memcpy(t->buf + f->off, head, hl);
        t->len += hl;
        put(t, "%*s [%6" PRIu64 "] | %*s} /* %s */\n", tr->blank, "", tid,
            indent, "",
            name);
    }
    if (depth == 0 || t->stack[depth - 1].emitted) {
        fwrite(t->buf + f->off, 1, t->len - f->off, tr->out);
        t->len = f->off;
    }
}

static int tree_event(struct ct_sink *sink, const struct ct_event *ev)
{
    struct tree *tr = (struct tree *)sink;
    if (ev->kind == CT_EV_SAMPLE)
        return 0;
    start(tr);
    struct tthread *t = get(tr, ev->thread);
    if (ev->time > t->last)
        t->last = ev->time;
    switch (ev->kind) {
    case CT_EV_CALL:
    case CT_EV_STACK: {
        const uint32_t *funcs = ev->kind == CT_EV_CALL ? &ev->func : ev->stack;
        uint32_t n = ev->kind == CT_EV_CALL ? 1 : ev->depth;
        if (ev->kind == CT_EV_STACK) {
            /* a block's leading STACK repeats the frames we hold */
            size_t same = 0;
            while (same < t->depth && same < n &&
                   t->stack[same].func == funcs[same])
                same++;
            while (t->depth > same)
                close_top(tr, t, ev->thread, ev->time);
            funcs += same;
            n -= (uint32_t)same;
        }
        for (uint32_t i = 0; i < n; i++) {
            if (funcs[i] == CT_FUNC_NONE)
                continue;
            if (t->depth == t->cap)
                ct_grow(&t->stack, &t->cap, t->depth, sizeof *t->stack);
            t->stack[t->depth++] = (struct tframe){
                .func = funcs[i], .start = ev->time,
                .start_off = off_at(t, ev->time), .off = t->len};
        }
        break;
    }
    case CT_EV_RETURN: {
        size_t k = t->depth;
        if (ev->func != CT_FUNC_NONE)
            while (k > 0 && t->stack[k - 1].func != ev->func)
                k--;
        if (k == 0)
            break; /* a return with no call: nothing to close */
        while (t->depth >= k)
            close_top(tr, t, ev->thread, ev->time);
        break;
    }
    case CT_EV_USER:
        if (visible(tr, t->depth))
            put(t, "%*s [%6" PRIu64 "] | %*s/* %.*s */\n", tr->blank, "",
                tid_of(tr, ev->thread), (int)(2 * t->depth), "",
                (int)ev->text_len, ev->text ? ev->text : "");
        break;
    case CT_EV_THREAD_END:
        while (t->depth)
            close_top(tr, t, ev->thread, ev->time);
        break;
    case CT_EV_OFFCPU_START:
        t->in_off = true;
        t->off_since = ev->time;
        break;
    case CT_EV_OFFCPU_END:
        t->off = off_at(t, ev->time);
        t->in_off = false;
        break;
    default:
        break;
    }
    if (!t->depth && t->len) {
        fwrite(t->buf, 1, t->len, tr->out);
        t->len = 0;
    } else if (t->len > TREE_BUFFER_MAX) {
        flush(tr, t, ev->thread);
    }
    return 0;
}

struct ct_sink *ct_tree_new(FILE *out, struct ct_trace_info *info,
                            const struct ct_options *opts)
{
    struct tree *tr = ct_xcalloc(1, sizeof *tr);
    tr->sink.event = tree_event;
    tr->out = out;
    tr->info = info;
    tr->max_depth = opts->tree_depth;
    tr->min_ns = (double)opts->tree_min_ns;
    return &tr->sink;
}

void ct_tree_finish(struct ct_sink *sink)
{
    struct tree *tr = (struct tree *)sink;
    if (!tr)
        return;
    start(tr);
    for (size_t i = 0; i < tr->nthreads; i++) {
        struct tthread *t = &tr->threads[i];
        while (t->depth)
            close_top(tr, t, (uint32_t)i, t->last);
        if (t->len)
            fwrite(t->buf, 1, t->len, tr->out);
        free(t->stack);
        free(t->buf);
    }
    free(tr->threads);
    free(tr);
}
