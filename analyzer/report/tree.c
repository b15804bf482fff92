/*
 * --tree: each thread's calls as they happen, in the manner of `uftrace
 * replay`: `f() {` at the call, a closing brace naming f with its duration at the
 * return, `f();` with its duration for a call with nothing shown inside.
 *
 * The stack is rebuilt with the profile's rules (docs/analysis.md), so a
 * call lasts here what it lasts in the report: durations run on a
 * per-thread clock that stops between S and E (the tracer's own work) and
 * over intervals that cannot be told apart, and, with --time-range,
 * outside the window.  Frames a thread had open before its data began (a
 * STACK record: a forked child's inherited frames, a window's start) are
 * shown as already open, not as calls; frames still open when a thread's
 * data ends are closed at its last event and marked as never returned.
 *
 * Lines wait in tree_out.c's queue only while their call is undecided, so
 * memory is bounded by TREE_LOOKAHEAD lines plus the deepest stack.
 */
#include <stdlib.h>
#include <string.h>

#include "analyzer/model/match.h"
#include "analyzer/report/report.h"
#include "analyzer/report/tree_private.h"
#include "analyzer/util.h"
#include "analyzer/model/values.h"

struct tframe {
    uint32_t func;
    bool called;            /* entered by a CALL, not a STACK record       */
    bool shown;             /* has a TI_OPEN item                          */
    uint64_t entry_clock;   /* the thread's clock when entered             */
    uint64_t entry_overhead;
    uint64_t self;          /* ticks on top, for --subtract-bias           */
    uint64_t open_seq;      /* its TI_OPEN item                            */
    uint64_t prev_last;     /* the thread's last_item before that item     */
    uint64_t entry_off;     /* the thread's off-CPU ticks when entered     */
    char *ret;              /* its RETVAL as text, owned, until it ends    */
};

struct tthread {
    struct tframe *stack;
    size_t depth, cap;
    bool seen, inside, done;
    uint64_t cur;           /* latest event                                */
    uint64_t clock;         /* ticks a traced function ran, as profiled    */
    uint64_t overhead;      /* ticks between S and E                       */
    uint32_t in_overhead;
    long focus_at;          /* outermost open frame of --focus, -1 = none  */
    size_t undecided;       /* frames below are known to last long enough  */
    uint64_t last_item;     /* seq + 1 of its latest live line, 0 = none   */
    struct tqueue q;        /* --threads: this thread's own lines          */
    bool have_q;
    uint64_t off;           /* off-CPU ticks charged to frames, as the
                               profile's off-CPU clock counts them        */
    bool in_off;            /* between OFFCPU_START and OFFCPU_END         */
};

struct tree {
    struct ct_sink sink;
    FILE *out;
    struct ct_trace_info *info;
    const struct ct_view_opts *opts;
    uint32_t max_depth;
    uint64_t min_ticks;
    struct ct_view_bias bias;  /* --subtract-bias; zeros if not asked */
    bool per_thread;
    struct tqueue q;        /* threads merged: one queue                   */
    struct tthread *threads;
    size_t nthreads;
    uint8_t *focus_cache;   /* per func: 0 unknown, 1 no, 2 yes            */
    size_t nfocus;
    bool origin_set, have_range;
    uint64_t rfrom, rto;
    uint64_t in_window;     /* events inside the window (all if none)      */
    bool started;           /* the heading is printed                      */
};

/* The heading, once the reader has told whether there is on-CPU data
 * (context switches give an ON-CPU column beside each duration). */
static void start(struct tree *tr)
{
    if (tr->started)
        return;
    tr->started = true;
    tr->q.oncpu = tr->info->oncpu == CT_ONCPU_SWITCH;
    fputs(tr->q.oncpu ? "#   DURATION     ON-CPU     TID     FUNCTION\n"
                      : "# DURATION     TID     FUNCTION\n", tr->out);
}

static struct tthread *get(struct tree *tr, uint32_t idx)
{
    size_t old = tr->nthreads;
    ct_grow_zeroed(&tr->threads, &tr->nthreads, idx, sizeof *tr->threads);
    for (size_t i = old; i < tr->nthreads; i++)
        tr->threads[i].focus_at = -1;
    return &tr->threads[idx];
}

static struct tqueue *queue_of(struct tree *tr, struct tthread *t)
{
    if (!tr->per_thread)
        return &tr->q;
    if (!t->have_q) {
        /* Sections come out in thread order at the end: until then each
         * thread's lines go to a file of their own, not to memory. */
        FILE *spool = tmpfile();
        if (!spool) {
            ct_error("--tree --threads: no temporary file: %m");
            exit(CT_EXIT_BAD_INPUT);
        }
        tq_init(&t->q, spool, tr->info);
        t->q.oncpu = tr->q.oncpu;
        t->have_q = true;
    }
    return &t->q;
}

static bool is_focus(struct tree *tr, uint32_t func)
{
    if (func == CT_FUNC_NONE)
        return false;
    ct_grow_zeroed(&tr->focus_cache, &tr->nfocus, func, 1);
    if (!tr->focus_cache[func]) {
        const char *name = ct_functab_name(tr->info->funcs, func);
        /* names are met while reading, so a glob or an exact name, not a
         * unique prefix, which needs every name first */
        bool yes = ct_name_match(tr->opts->focus, name) == CT_MATCH_EXACT;
        tr->focus_cache[func] = yes ? 2 : 1;
    }
    return tr->focus_cache[func] == 2;
}

/* The indentation level of stack position pos, or -1 if not shown. */
static long level(struct tree *tr, struct tthread *t, size_t pos)
{
    size_t base = 0;
    if (tr->opts->focus) {
        if (t->focus_at < 0 || pos < (size_t)t->focus_at)
            return -1;
        base = (size_t)t->focus_at;
    }
    size_t lv = pos - base;
    if (tr->max_depth && lv >= tr->max_depth)
        return -1;
    return (long)lv;
}

/* Queues a line of t; the frame it is in now has something inside. */
static uint64_t add(struct tree *tr, struct tthread *t, struct titem *it)
{
    struct tqueue *q = queue_of(tr, t);
    if (t->last_item && tq_waiting(q, t->last_item - 1)) {
        struct titem *prev = tq_at(q, t->last_item - 1);
        if (prev->kind == TI_OPEN)
            prev->pending_leaf = false;
    }
    uint64_t seq = tq_add(q, it);
    t->last_item = seq + 1;
    return seq;
}

/* ---- time, as the profile charges it ---- */

static uint64_t clip(struct tree *tr, uint64_t v)
{
    if (!tr->have_range)
        return v;
    return v < tr->rfrom ? tr->rfrom : v > tr->rto ? tr->rto : v;
}

static uint64_t advance(struct tree *tr, struct tthread *t, uint64_t time)
{
    if (!t->seen) {
        t->seen = true;
        t->cur = time;
        return 0;
    }
    if (time <= t->cur)
        return 0;
    uint64_t d = clip(tr, time) - clip(tr, t->cur);
    t->cur = time;
    return d;
}

static void charge(struct tree *tr, struct tthread *t, uint64_t time)
{
    uint64_t d = advance(tr, t, time);
    if (t->in_overhead) {
        t->overhead += d;
    } else if (t->depth) {
        t->clock += d;
        t->stack[t->depth - 1].self += d;
        /* Off the CPU: the same ticks, clipped to the window, that the
         * profile's off-CPU clock takes (never the tracer's, never a
         * pause's before the window). */
        if (t->in_off)
            t->off += d;
    }
}

/* An interval nobody can be charged with (a return is missing). */
static void charge_unknown(struct tree *tr, struct tthread *t, uint64_t time)
{
    uint64_t d = advance(tr, t, time);
    if (t->in_overhead)
        t->overhead += d;
}

/* Calls open long enough for --min-duration need not wait any more. */
static void decide_long(struct tree *tr, struct tthread *t)
{
    if (!tr->min_ticks)
        return;
    struct tqueue *q = queue_of(tr, t);
    while (t->undecided < t->depth) {
        struct tframe *f = &t->stack[t->undecided];
        if (f->shown && tq_waiting(q, f->open_seq)) {
            struct titem *it = tq_at(q, f->open_seq);
            if (it->pending_min) {
                if (t->clock - f->entry_clock < tr->min_ticks)
                    break;
                it->pending_min = false;
            }
        }
        t->undecided++;
    }
}

/* ---- the stack ---- */

/* Queues the opening line of the frame at pos; already: it was open
 * before the thread's data (or the window) began. */
static void show_open(struct tree *tr, struct tthread *t, size_t pos,
                      bool already)
{
    struct tframe *f = &t->stack[pos];
    long lv = level(tr, t, pos);
    f->shown = false;
    if (lv < 0 || !t->inside)
        return;
    f->prev_last = t->last_item;
    struct titem it = {
        .kind = TI_OPEN,
        .inherited = already,
        .pending_leaf = !already,
        .pending_min = !already && tr->min_ticks,
        .thread = (uint32_t)(t - tr->threads),
        .func = f->func,
        .depth = (uint32_t)lv,
    };
    f->open_seq = add(tr, t, &it);
    f->shown = true;
}

static void push(struct tree *tr, struct tthread *t, uint32_t func,
                 bool called)
{
    if (t->depth == t->cap)
        ct_grow(&t->stack, &t->cap, t->depth, sizeof *t->stack);
    size_t pos = t->depth++;
    t->stack[pos] = (struct tframe){
        .func = func,
        .called = called,
        .entry_clock = t->clock,
        .entry_overhead = t->overhead,
        .entry_off = t->off,
    };
    if (t->focus_at < 0 && tr->opts->focus && is_focus(tr, func))
        t->focus_at = (long)pos;
    show_open(tr, t, pos, !called);
}

static void pop_here(struct tree *tr, struct tthread *t, enum tmark mark)
{
    size_t pos = --t->depth;
    struct tframe *f = &t->stack[pos];
    uint64_t bias =
        f->called ? ct_call_bias(&tr->bias, tr->info->funcs, f->func).self : 0;
    if (bias) {
        uint64_t b = f->self < bias ? f->self : bias;
        t->clock -= b;
    }
    if (t->undecided > t->depth)
        t->undecided = t->depth;
    long lv = f->shown ? level(tr, t, pos) : -1;
    if (t->focus_at >= (long)t->depth)
        t->focus_at = -1;
    char *ret = f->ret;
    f->ret = NULL;
    if (!f->shown) {
        free(ret);
        return;
    }
    struct tqueue *q = queue_of(tr, t);
    uint32_t thread = (uint32_t)(t - tr->threads);
    uint64_t dur = t->clock - f->entry_clock;
    uint64_t overhead = t->overhead - f->entry_overhead;
    uint64_t off = t->off - f->entry_off;
    uint64_t oncpu = off < dur ? dur - off : 0;
    if (tq_waiting(q, f->open_seq)) {
        struct titem *it = tq_at(q, f->open_seq);
        if (it->pending_min && dur < tr->min_ticks) {
            /* too short: the call and everything in it are taken back */
            for (uint64_t s = f->open_seq; s < q->tail; s++) {
                struct titem *x = tq_at(q, s);
                if (x->thread == thread)
                    x->dropped = true;
            }
            /* the caller may be a one-line call again */
            t->last_item = f->prev_last;
            if (t->last_item && tq_waiting(q, t->last_item - 1)) {
                struct titem *prev = tq_at(q, t->last_item - 1);
                if (prev->kind == TI_OPEN && !prev->inherited)
                    prev->pending_leaf = true;
            }
            free(ret);
            tq_drain(q);
            return;
        }
        it->pending_min = false;
        if (t->last_item == f->open_seq + 1 && !it->inherited) {
            it->kind = TI_LEAF;
            it->pending_leaf = false;
            it->mark = (uint8_t)mark;
            it->dur = dur;
            it->overhead = overhead;
            it->oncpu = oncpu;
            it->ret = ret;
            tq_drain(q);
            return;
        }
        it->pending_leaf = false;
    }
    struct titem close = {
        .kind = TI_CLOSE,
        .mark = (uint8_t)mark,
        .thread = thread,
        .func = f->func,
        .depth = lv < 0 ? 0 : (uint32_t)lv,
        .dur = dur,
        .overhead = overhead,
        .oncpu = oncpu,
        .ret = ret,
    };
    add(tr, t, &close);
    tq_drain(q);
}

/* Closes the top frame; then the hooks' part outside that call, which is
 * its caller's self time and no part of the call's duration, comes off
 * the caller (--subtract-bias). */
static void pop(struct tree *tr, struct tthread *t, enum tmark mark)
{
    size_t pos = t->depth - 1;
    bool called = t->stack[pos].called;
    uint64_t bias =
        called && pos
            ? ct_call_bias(&tr->bias, tr->info->funcs, t->stack[pos].func).child
            : 0;
    pop_here(tr, t, mark);
    if (bias) {
        struct tframe *up = &t->stack[pos - 1];
        uint64_t b = up->self < bias ? up->self : bias;
        up->self -= b;
        t->clock -= b;
    }
}

static void pop_to(struct tree *tr, struct tthread *t, size_t keep,
                   enum tmark mark)
{
    while (t->depth > keep)
        pop(tr, t, mark);
}

/* Position of the topmost open frame of func, or -1. */
static long find_open(const struct tthread *t, uint32_t func)
{
    for (size_t i = t->depth; i-- > 0;)
        if (t->stack[i].func == func)
            return (long)i;
    return -1;
}

static void on_return(struct tree *tr, struct tthread *t, uint32_t func,
                      uint64_t time)
{
    if (t->depth &&
        (func == CT_FUNC_NONE || t->stack[t->depth - 1].func == func)) {
        charge(tr, t, time);
        pop(tr, t, TM_NONE);
        return;
    }
    long k = func == CT_FUNC_NONE ? -1 : find_open(t, func);
    if (k >= 0) {
        /* the frames above k never returned: they end at the previous
         * event, as in the profile */
        charge_unknown(tr, t, time);
        pop_to(tr, t, (size_t)k + 1, TM_NO_RETURN);
        pop(tr, t, TM_NONE);
        return;
    }
    if (t->depth) {
        charge_unknown(tr, t, time);
        pop_to(tr, t, 0, TM_NO_RETURN);
    } else {
        charge(tr, t, time);
    }
}

static void on_stack(struct tree *tr, struct tthread *t,
                     const struct ct_event *ev)
{
    size_t same = 0;
    while (same < t->depth && same < ev->depth &&
           t->stack[same].func == ev->stack[same])
        same++;
    pop_to(tr, t, same, TM_NO_RETURN);
    for (size_t i = same; i < ev->depth; i++)
        if (ev->stack[i] != CT_FUNC_NONE)
            push(tr, t, ev->stack[i], false);
}

/* A call's arguments go on its opening line while that waits; its
 * return value on the frame, for the line that closes it. */
static void on_values(struct tree *tr, struct tthread *t,
                      const struct ct_event *ev)
{
    if (!t->depth || !t->stack[t->depth - 1].called)
        return;
    struct tframe *f = &t->stack[t->depth - 1];
    char text[CT_VALUES_TEXT_MAX];
    ct_values_text_of(tr->info, (const uint8_t *)ev->text, ev->text_len, text,
                      sizeof text);
    for (char *p = text; (p = strstr(p, "*/")) != NULL;)
        *p = '+'; /* a closing line's comment must not end early */
    if (ev->kind == CT_EV_RETVAL) {
        free(f->ret);
        f->ret = ct_xstrdup(text);
        return;
    }
    struct tqueue *q = queue_of(tr, t);
    if (f->shown && tq_waiting(q, f->open_seq)) {
        struct titem *it = tq_at(q, f->open_seq);
        free(it->args);
        it->args = ct_xstrdup(text);
    }
}

/* A comment line (user event, lost events) where the thread is now. */
static void note(struct tree *tr, struct tthread *t, uint32_t thread,
                 const char *text, size_t len)
{
    long lv = level(tr, t, t->depth);
    if (lv < 0)
        return;
    char *s = ct_xmalloc(len + 1);
    for (size_t i = 0; i < len; i++)
        s[i] = (unsigned char)text[i] < 0x20 || text[i] == 0x7f ? ' '
                                                                : text[i];
    s[len] = '\0';
    for (char *p = s; (p = strstr(p, "*/")) != NULL;)
        *p = '+'; /* the comment must not end early */
    struct titem it = {
        .kind = TI_TEXT,
        .thread = thread,
        .depth = lv < 0 ? 0 : (uint32_t)lv,
        .text = s,
    };
    add(tr, t, &it);
    tq_drain(queue_of(tr, t));
}

/* The window and bias are known from the first event on (the reader
 * fills the trace info before it); the origin is the profile's. */
static void set_origin(struct tree *tr, uint64_t time)
{
    tr->origin_set = true;
    const struct ct_trace_info *info = tr->info;
    uint64_t origin = info->have_first_time ? info->first_time : time;
    double tick = info->ns_per_tick > 0 ? info->ns_per_tick : 1.0;
    if (tr->opts->subtract_bias)
        tr->bias = ct_view_bias(info);
    if (tr->opts->tree_min_ns)
        tr->min_ticks = (uint64_t)((double)tr->opts->tree_min_ns / tick +
                                   0.5);
    if (!tr->have_range)
        return;
    double from = (double)tr->opts->range_from_ns / tick;
    double to = (double)tr->opts->range_to_ns / tick;
    tr->rfrom = origin + (uint64_t)(from + 0.5);
    tr->rto = tr->opts->range_to_ns == INT64_MAX ||
                      to >= 1.8e19 - (double)origin
                  ? UINT64_MAX
                  : origin + (uint64_t)(to + 0.5);
}

/* The window begins for t: what is open then is shown as open. */
static void enter_window(struct tree *tr, struct tthread *t)
{
    t->inside = true;
    for (size_t i = 0; i < t->depth; i++)
        show_open(tr, t, i, true);
}

static int tree_event(struct ct_sink *sink, const struct ct_event *ev)
{
    struct tree *tr = (struct tree *)sink;
    if (ev->kind == CT_EV_SAMPLE)
        return 0;
    start(tr);
    if (!tr->origin_set)
        set_origin(tr, ev->time);
    struct tthread *t = get(tr, ev->thread);
    if (t->done)
        return 0;
    /* The scheduler's records: no line.  The time up to them is charged
     * as the profile charges it, so that the off-CPU part of each interval
     * is known (and clipped to the window like the rest). */
    if (ev->kind == CT_EV_OFFCPU_START || ev->kind == CT_EV_OFFCPU_END) {
        charge(tr, t, ev->time);
        t->in_off = ev->kind == CT_EV_OFFCPU_START;
        return 0;
    }
    if (ev->kind == CT_EV_CPUTIME)
        return 0;
    if (tr->have_range && ev->time > tr->rto) {
        /* the window is over for this thread; if no event of it lay
         * inside (a pause of tracing, a sleep), the frames open before are
         * open all through it, as the profile charges them */
        bool across = !t->inside && t->depth;
        charge(tr, t, ev->time);
        if (across)
            enter_window(tr, t);
        pop_to(tr, t, 0, TM_WINDOW);
        t->done = true;
        return 0;
    }
    if (!t->inside && (!tr->have_range || ev->time >= tr->rfrom)) {
        if (t->seen || !tr->have_range)
            charge(tr, t, ev->time);
        enter_window(tr, t);
    }
    if (t->inside)
        tr->in_window++;
    switch (ev->kind) {
    case CT_EV_CALL:
        charge(tr, t, ev->time);
        if (ev->func != CT_FUNC_NONE)
            push(tr, t, ev->func, true);
        break;
    case CT_EV_RETURN:
        on_return(tr, t, ev->func, ev->time);
        break;
    case CT_EV_OVERHEAD_START:
        charge(tr, t, ev->time);
        t->in_overhead++;
        break;
    case CT_EV_OVERHEAD_END:
        charge(tr, t, ev->time);
        if (t->in_overhead)
            t->in_overhead--;
        break;
    case CT_EV_STACK:
        charge(tr, t, ev->time);
        on_stack(tr, t, ev);
        break;
    case CT_EV_THREAD_END:
        charge(tr, t, ev->time);
        pop_to(tr, t, 0, TM_NEVER);
        break;
    case CT_EV_ARGS:
    case CT_EV_RETVAL:
        charge(tr, t, ev->time);
        on_values(tr, t, ev);
        break;
    case CT_EV_USER:
        charge(tr, t, ev->time);
        if (t->inside)
            note(tr, t, ev->thread, ev->text ? ev->text : "", ev->text_len);
        break;
    case CT_EV_LOST: {
        charge(tr, t, ev->time);
        char buf[64];
        int n = snprintf(buf, sizeof buf, "lost %llu events",
                         (unsigned long long)ev->count);
        if (t->inside)
            note(tr, t, ev->thread, buf, (size_t)n);
        break;
    }
    default:
        break;
    }
    decide_long(tr, t);
    return 0;
}

struct ct_sink *ct_tree_new(FILE *out, struct ct_trace_info *info,
                            const struct ct_view_opts *opts)
{
    struct tree *tr = ct_xcalloc(1, sizeof *tr);
    tr->sink.event = tree_event;
    tr->out = out;
    tr->info = info;
    tr->opts = opts;
    tr->max_depth = opts->tree_depth;
    tr->per_thread = opts->per_thread;
    tr->have_range = opts->have_range;
    tr->rto = UINT64_MAX;
    tq_init(&tr->q, out, info);
    return &tr->sink;
}

static void copy_spool(FILE *from, FILE *to)
{
    char buf[65536];
    size_t n;
    rewind(from);
    while ((n = fread(buf, 1, sizeof buf, from)) > 0)
        fwrite(buf, 1, n, to);
    fclose(from);
}

uint64_t ct_tree_finish(struct ct_sink *sink)
{
    struct tree *tr = (struct tree *)sink;
    if (!tr)
        return 0;
    start(tr);
    /* The data ends: what is still open never returned. */
    for (size_t i = 0; i < tr->nthreads; i++) {
        struct tthread *t = &tr->threads[i];
        if (!t->done)
            pop_to(tr, t, 0, TM_NEVER);
    }
    tq_flush(&tr->q);
    for (size_t i = 0; i < tr->nthreads; i++) {
        struct tthread *t = &tr->threads[i];
        if (tr->per_thread && t->inside)
            queue_of(tr, t);
        if (t->have_q) {
            tq_flush(&t->q);
            const struct ct_thread_info *ti =
                i < tr->info->nthreads ? &tr->info->threads[i] : NULL;
            char ctx[32] = "";
            if (ti && ti->context)
                snprintf(ctx, sizeof ctx, ", context %llu",
                         (unsigned long long)ti->context);
            fprintf(tr->out, "\n==== Thread %zu (tid %llu%s%s%s) ====\n", i,
                    (unsigned long long)(ti ? ti->tid : i), ctx,
                    ti && ti->name[0] ? ", " : "", ti ? ti->name : "");
            fflush(t->q.out);
            copy_spool(t->q.out, tr->out);
            tq_free(&t->q);
        }
        free(t->stack);
    }
    uint64_t in_window = tr->in_window;
    tq_free(&tr->q);
    free(tr->threads);
    free(tr->focus_cache);
    free(tr);
    return in_window;
}
