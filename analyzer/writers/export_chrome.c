/*
 * --export chrome: the Trace Event Format (JSON) that Perfetto's UI,
 * chrome://tracing and speedscope open.  Written while reading: each call
 * is a "B" event when it happens and an "E" event when it returns, so
 * nothing is buffered but each thread's open frames.
 *
 * One track per thread: every event carries pid and tid; thread and
 * process names are "M" metadata at the end.  ts is in microseconds since
 * the trace's first event, with three decimals (nanoseconds).  User events
 * (V) are thread-scoped instant events named by their message, category
 * "user"; lost-event records are instants "lost events" with the count.
 * The tracer's own work (S..E; nested pairs count as one) is a slice
 * "calltrace overhead" of category "calltrace-overhead", so viewers can
 * hide it.  Frames follow the profile's rules (docs/analysis.md): calls
 * with no return end at the thread's previous event, with args
 * {"never_returned": true}, as do frames still open at a thread's end or
 * at the end of the data (there, at the thread's last event); with
 * --time-range, frames open at the window's end are closed at the last
 * event inside it with {"open_at_window_end": true}.  Frames open before
 * the data (or the --time-range window) began carry
 * {"entered_before_data": true}: they are not calls.  Sampled stacks
 * become slices from one sample to the next of the same stack (category
 * "sample") on threads that record no calls.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "options.h"
#include "textesc.h"
#include "util.h"

struct cframe {
    uint32_t func;
    bool sample;            /* opened by a sample, not by a call        */
};

struct cthread {
    struct cframe *stack;
    size_t depth, cap;
    uint64_t last;          /* time of the thread's previous event       */
    bool seen, calls;
    uint32_t in_overhead;
    bool overhead_open;     /* the overhead slice's B is written         */
};

struct chrome_export {
    struct ct_exporter ex;
    FILE *out;
    struct ct_trace_info *info;
    struct cthread *threads;
    size_t nthreads;
    char **names;           /* by func: the escaped JSON name, quoted    */
    size_t nnames;
    bool have_origin;
    uint64_t origin;
    uint64_t pid;
    uint64_t written, samples_left_out;
};

static void head(struct chrome_export *x, char ph, uint32_t thread,
                 uint64_t time)
{
    if (!x->have_origin) {
        x->have_origin = true;
        x->origin = x->info->have_first_time && x->info->first_time <= time
                        ? x->info->first_time
                        : time;
    }
    uint64_t tid = thread < x->info->nthreads && x->info->threads[thread].tid
                       ? x->info->threads[thread].tid
                       : thread;
    uint64_t rel = time > x->origin ? time - x->origin : 0;
    double npt = x->info->ns_per_tick > 0 ? x->info->ns_per_tick : 1;
    uint64_t ns = npt == 1 ? rel : (uint64_t)llround((double)rel * npt);
    fprintf(x->out, "%s{\"ph\":\"%c\",\"pid\":%" PRIu64 ",\"tid\":%" PRIu64
            ",\"ts\":%" PRIu64 ".%03u",
            x->written++ ? ",\n" : "", ph, x->pid, tid, ns / 1000,
            (unsigned)(ns % 1000));
}

static const char *name_of(struct chrome_export *x, uint32_t func)
{
    if (func >= x->nnames) {
        size_t old = x->nnames;
        ct_grow(&x->names, &x->nnames, func, sizeof *x->names);
        memset(x->names + old, 0, (x->nnames - old) * sizeof *x->names);
    }
    if (!x->names[func]) {
        const char *n = ct_functab_name(x->info->funcs, func);
        char *buf = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&buf, &len);
        if (!m)
            return "\"?\"";
        ct_json_string(m, n, strlen(n));
        fclose(m);
        x->names[func] = buf;
    }
    return x->names[func];
}

static void begin(struct chrome_export *x, uint32_t thread, uint64_t t,
                  uint32_t func, const char *cat, bool called)
{
    head(x, 'B', thread, t);
    fprintf(x->out, ",\"cat\":\"%s\",\"name\":%s%s}", cat, name_of(x, func),
            called ? "" : ",\"args\":{\"entered_before_data\":true}");
}

static void end(struct chrome_export *x, uint32_t thread, uint64_t t,
                uint32_t func, const char *mark)
{
    head(x, 'E', thread, t);
    fprintf(x->out, ",\"name\":%s", name_of(x, func));
    if (mark)
        fprintf(x->out, ",\"args\":{\"%s\":true}", mark);
    putc('}', x->out);
}

static struct cthread *thread_of(struct chrome_export *x, uint32_t thread)
{
    ct_grow_zeroed(&x->threads, &x->nthreads, thread, sizeof *x->threads);
    return &x->threads[thread];
}

static void push(struct chrome_export *x, struct cthread *th,
                 uint32_t thread, uint64_t t, uint32_t func, bool sample,
                 bool called)
{
    ct_grow(&th->stack, &th->cap, th->depth, sizeof *th->stack);
    th->stack[th->depth++] = (struct cframe){func, sample};
    begin(x, thread, t, func, sample ? "sample" : "call", called || sample);
}

/* The overhead slice nests inside a frame: it ends before the frame does. */
static void end_overhead(struct chrome_export *x, struct cthread *th,
                         uint32_t thread, uint64_t t)
{
    if (!th->overhead_open)
        return;
    th->overhead_open = false;
    head(x, 'E', thread, t);
    fputs(",\"name\":\"calltrace overhead\"}", x->out);
}

static void pop_to(struct chrome_export *x, struct cthread *th,
                   uint32_t thread, size_t keep, uint64_t t, const char *mark)
{
    if (th->depth > keep)
        end_overhead(x, th, thread, t);
    while (th->depth > keep)
        end(x, thread, t, th->stack[--th->depth].func, mark);
}

static void on_return(struct chrome_export *x, struct cthread *th,
                      uint32_t thread, uint64_t prev, uint64_t t,
                      uint32_t func)
{
    size_t i = th->depth;
    if (func != CT_FUNC_NONE)
        while (i > 0 && th->stack[i - 1].func != func)
            i--;
    /* frames above the one returning (all of them for a return with no
     * call) never returned: they end at the previous event */
    pop_to(x, th, thread, i, prev, "never_returned");
    if (i > 0)
        pop_to(x, th, thread, i - 1, t, NULL);
}

/* Frames already open (outermost first): keep what matches, end the rest. */
static void set_stack(struct chrome_export *x, struct cthread *th,
                      uint32_t thread, uint64_t t, const uint32_t *f,
                      uint32_t n, bool leaf_first, bool sample)
{
    size_t same = 0;
    while (same < th->depth && same < n &&
           th->stack[same].func == f[leaf_first ? n - 1 - same : same])
        same++;
    pop_to(x, th, thread, same, t, sample ? NULL : "never_returned");
    for (size_t i = same; i < n; i++) {
        uint32_t func = f[leaf_first ? n - 1 - i : i];
        if (func != CT_FUNC_NONE)
            push(x, th, thread, t, func, sample, false);
    }
}

static void instant(struct chrome_export *x, uint32_t thread, uint64_t t,
                    const char *cat, const char *name, size_t len)
{
    head(x, 'i', thread, t);
    fprintf(x->out, ",\"s\":\"t\",\"cat\":\"%s\",\"name\":", cat);
    ct_json_string(x->out, name, len);
}

static int chrome_event(struct ct_sink *self, const struct ct_event *ev)
{
    struct chrome_export *x = (struct chrome_export *)self;
    uint32_t thread = ev->thread;
    struct cthread *th = thread_of(x, thread);
    uint64_t prev = th->last;
    if (!th->seen || ev->time > th->last)
        th->last = ev->time;
    th->seen = true;
    uint64_t t = th->last;    /* never backwards within a thread */
    switch (ev->kind) {
    case CT_EV_CALL:
        if (!th->calls && th->depth)   /* sampled frames give way */
            pop_to(x, th, thread, 0, t, NULL);
        th->calls = true;
        end_overhead(x, th, thread, t);
        if (ev->func != CT_FUNC_NONE)
            push(x, th, thread, t, ev->func, false, true);
        break;
    case CT_EV_RETURN:
        on_return(x, th, thread, prev, t, ev->func);
        break;
    case CT_EV_OVERHEAD_START:
        if (th->in_overhead++ == 0) {
            head(x, 'B', thread, t);
            fputs(",\"cat\":\"calltrace-overhead\","
                  "\"name\":\"calltrace overhead\"}", x->out);
            th->overhead_open = true;
        }
        break;
    case CT_EV_OVERHEAD_END:
        if (th->in_overhead && --th->in_overhead == 0)
            end_overhead(x, th, thread, t);
        break;
    case CT_EV_USER:
        instant(x, thread, t, "user", ev->text ? ev->text : "",
                ev->text ? ev->text_len : 0);
        putc('}', x->out);
        break;
    case CT_EV_LOST:
        instant(x, thread, t, "calltrace-lost", "lost events", 11);
        fprintf(x->out, ",\"args\":{\"count\":%" PRIu64 "}}", ev->count);
        break;
    case CT_EV_STACK:
        th->calls = true;
        set_stack(x, th, thread, t, ev->stack, ev->depth, false, false);
        break;
    case CT_EV_THREAD_END:
        pop_to(x, th, thread, 0, t, "never_returned");
        break;
    case CT_EV_SAMPLE:
        if (th->calls)
            x->samples_left_out++;
        else
            set_stack(x, th, thread, t, ev->stack, ev->depth, true, true);
        break;
    }
    return 0;
}

static void metadata(struct chrome_export *x, const char *what,
                     uint64_t tid, const char *name)
{
    fprintf(x->out, "%s{\"ph\":\"M\",\"pid\":%" PRIu64 ",\"tid\":%" PRIu64
            ",\"name\":\"%s\",\"args\":{\"name\":",
            x->written++ ? ",\n" : "", x->pid, tid, what);
    ct_json_string(x->out, name, strlen(name));
    fputs("}}", x->out);
}

static int chrome_finish(struct ct_exporter *ex, struct ct_profile *profile)
{
    (void)profile;
    struct chrome_export *x = (struct chrome_export *)ex;
    bool window = ex->opts && ex->opts->have_range;
    for (size_t i = 0; i < x->nthreads; i++) {
        struct cthread *th = &x->threads[i];
        bool sampled = !th->calls;
        pop_to(x, th, (uint32_t)i, 0, th->last,
               sampled ? NULL
                       : window ? "open_at_window_end" : "never_returned");
    }
    bool empty = x->written == 0;
    const char *prog = x->info->program[0] ? x->info->program
                                           : x->info->path;
    metadata(x, "process_name", 0, prog);
    for (uint32_t i = 0; i < x->info->nthreads && i < x->nthreads; i++) {
        const struct ct_thread_info *ti = &x->info->threads[i];
        char name[64];
        if (ti->name[0])
            snprintf(name, sizeof name, "%s", ti->name);
        else
            snprintf(name, sizeof name, "thread %" PRIu64, ti->tid);
        metadata(x, "thread_name", ti->tid ? ti->tid : i, name);
    }
    fputs("\n]}\n", x->out);
    if (empty && x->info->nsample_counts) {
        ct_error("%s: %s input has per-function sample counts but no "
                 "times: no chrome timeline can be drawn from it",
                 x->info->path, x->info->format);
        return 1;
    }
    if (x->samples_left_out)
        ct_warn("chrome: %" PRIu64 " sample(s) on threads that record calls "
                "left out", x->samples_left_out);
    return 0;
}

static void chrome_free(struct ct_exporter *ex)
{
    struct chrome_export *x = (struct chrome_export *)ex;
    for (size_t i = 0; i < x->nthreads; i++)
        free(x->threads[i].stack);
    free(x->threads);
    for (size_t i = 0; i < x->nnames; i++)
        free(x->names[i]);
    free(x->names);
    free(x);
}

static int chrome_start(struct ct_sink *self, const struct ct_event *ev)
{
    /* the reader has filled the trace info by its first event */
    struct chrome_export *x = (struct chrome_export *)self;
    x->pid = x->info->pid ? x->info->pid : 1;
    fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"source\":", x->out);
    ct_json_string(x->out, x->info->path, strlen(x->info->path));
    fprintf(x->out, ",\"format\":\"%s\",\"clock\":", x->info->format);
    ct_json_string(x->out, x->info->clock, strlen(x->info->clock));
    fputs("},\"traceEvents\":[\n", x->out);
    x->ex.sink.event = chrome_event;
    return ev ? chrome_event(self, ev) : 0;
}

static int chrome_finish_any(struct ct_exporter *ex, struct ct_profile *p)
{
    if (ex->sink.event == chrome_start)
        chrome_start(&ex->sink, NULL);
    return chrome_finish(ex, p);
}

struct ct_exporter *ct_export_chrome_new(FILE *out, struct ct_trace_info *info,
                                   const struct ct_options *opts)
{
    struct chrome_export *x = ct_xcalloc(1, sizeof *x);
    x->ex.sink.event = chrome_start;
    x->ex.finish = chrome_finish_any;
    x->ex.free = chrome_free;
    x->out = out;
    x->info = info;
    x->ex.opts = opts;
    return &x->ex;
}
