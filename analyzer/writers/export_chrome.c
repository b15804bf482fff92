/*
 * --export chrome: the Trace Event Format (JSON) that Perfetto's UI,
 * chrome://tracing and speedscope open.  Written while reading: each call
 * is a "B" event when it happens and an "E" event when it returns, so
 * nothing is buffered but each thread's open frames.
 *
 * One track per thread: every event carries pid and tid; thread and
 * process names are "M" metadata at the end.  ts is in microseconds since
 * the trace's first event, with three decimals (nanoseconds), or six
 * (picoseconds) where a tick is shorter than a nanosecond.  User events
 * (V) are thread-scoped instant events named by their message, category
 * "user"; lost-event records are instants "lost events" with the count.
 * The tracer's own work (S..E; nested pairs count as one) is a slice
 * "calltrace overhead" of category "calltrace-overhead", so viewers can
 * hide it.  Slices come from timeline.h, with the profile's rules: calls
 * with no return end at the thread's previous event, with args
 * {"never_returned": true}, as do frames still open at a thread's end or
 * at the end of the data (there, at the thread's last event); with
 * --time-range, frames open at the window's end are closed at its end
 * (at the last event, for a thread whose data ends inside it), each E
 * followed by an instant "open at window end" (category
 * "calltrace-window", args {"function": NAME}) rather than marked itself,
 * since a viewer pairs an E with its B by name and args; frames open at
 * the window's start begin there.
 * Frames open before the data (or the --time-range window) began carry
 * {"entered_before_data": true}: they are not calls.  Sampled stacks
 * become slices from one sample to the next of the same stack (category
 * "sample") on threads that record no calls.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/writers/export.h"
#include "analyzer/writers/textesc.h"
#include "analyzer/writers/timeline.h"
#include "analyzer/util.h"

struct chrome_export {
    struct ct_exporter ex;
    FILE *out;
    struct ct_trace_info *info;
    struct ct_timeline tl;
    char **names;           /* by func: the escaped JSON name, quoted    */
    size_t nnames;
    bool have_origin;
    uint64_t origin;
    uint64_t pid;
    uint64_t written;
    uint64_t *keys;         /* by thread: its "tid" in the JSON           */
    size_t nkeys;
};

/* The tid, or the thread's index where there is none.  A tid the kernel
 * gave to a later thread would make one track of two threads: the later
 * ones are told apart above 32 bits (rank << 32 | tid). */
static uint64_t tid_of(struct chrome_export *x, uint32_t thread)
{
    if (thread >= x->info->nthreads)
        return thread;
    if (thread >= x->nkeys) {
        size_t old = x->nkeys;
        ct_grow_zeroed(&x->keys, &x->nkeys, x->info->nthreads - 1,
                       sizeof *x->keys);
        for (size_t i = old; i < x->nkeys; i++) {
            uint64_t tid = x->info->threads[i].tid;
            x->keys[i] = tid ? (uint64_t)ct_trace_thread_rank(
                                   x->info, (uint32_t)i) << 32 | tid
                             : i;
            /* a coroutine's stack: a track of its own (below 2^53, which
             * a JSON number keeps exactly, for context ids below 2^12) */
            if (tid && x->info->threads[i].context)
                x->keys[i] |= (x->info->threads[i].context & 0xfffu) << 40;
        }
    }
    return x->keys[thread];
}

/* Decimal digits of v at p; returns the end.  printf's parsing of its
 * format dominated the export's time. */
static char *digits(char *p, uint64_t v)
{
    char tmp[20];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n)
        *p++ = tmp[--n];
    return p;
}

static char *put(char *p, const char *s)
{
    size_t n = strlen(s);
    memcpy(p, s, n);
    return p + n;
}

static void head(struct chrome_export *x, char ph, uint32_t thread,
                 uint64_t time)
{
    if (!x->have_origin) {
        x->have_origin = true;
        x->origin = x->info->have_first_time && x->info->first_time <= time
                        ? x->info->first_time
                        : time;
    }
    uint64_t rel = time > x->origin ? time - x->origin : 0;
    double npt = x->info->ns_per_tick > 0 ? x->info->ns_per_tick : 1;
    /* In ns, or in ps where a tick is shorter than a ns: two events a
     * tick apart in ns could print the same ts, and speedscope, which
     * takes an E before a B of another name at the same ts, then ends a
     * frame before it begins (seen with the frames open at a --time-range
     * window's start, which begin at its start, and a return a tick
     * after it). */
    bool fine = npt < 1;
    uint64_t t = npt == 1 ? rel
                          : (uint64_t)llround((double)rel * npt * (fine ? 1000 : 1));
    char buf[128], *p = buf;
    if (x->written++)
        p = put(p, ",\n");
    p = put(p, "{\"ph\":\"");
    *p++ = ph;
    p = put(p, "\",\"pid\":");
    p = digits(p, x->pid);
    p = put(p, ",\"tid\":");
    p = digits(p, tid_of(x, thread));
    p = put(p, ",\"ts\":");
    unsigned places = fine ? 6 : 3;
    uint64_t unit = fine ? 1000000 : 1000;
    p = digits(p, t / unit);
    uint64_t frac = t % unit;
    *p++ = '.';
    for (unsigned i = places; i-- > 0; frac /= 10)
        p[i] = (char)('0' + frac % 10);
    fwrite(buf, 1, (size_t)(p + places - buf), x->out);
}

static const char *name_of(struct chrome_export *x, uint32_t func)
{
    if (func == CT_FUNC_NONE)
        return "\"calltrace overhead\"";
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

static const char *const category[] = {
    [CT_SLICE_CALL] = "call",
    [CT_SLICE_BEFORE_DATA] = "call",
    [CT_SLICE_SAMPLE] = "sample",
    [CT_SLICE_OVERHEAD] = "calltrace-overhead",
};

static void begin(void *ctx, uint32_t thread, uint64_t t, uint32_t func,
                  enum ct_slice_kind kind)
{
    struct chrome_export *x = ctx;
    head(x, 'B', thread, t);
    fputs(",\"cat\":\"", x->out);
    fputs(category[kind], x->out);
    fputs("\",\"name\":", x->out);
    fputs(name_of(x, func), x->out);
    fputs(kind == CT_SLICE_BEFORE_DATA
              ? ",\"args\":{\"entered_before_data\":true}}"
              : "}",
          x->out);
}

/* A viewer pairs an E with its B by name and args (speedscope keys a
 * frame by both, and "repairs" each stack whose E differs, with a
 * warning): so the E of a frame open at a --time-range window's end has
 * its B's args, and the mark is a thread instant of its own, category
 * "calltrace-window", naming the function. */
/* A call's values go on its E: the viewers merge an E's args into the
 * slice's. */
static void values(FILE *out, bool first, const char *args, const char *ret)
{
    if (args) {
        fputs(first ? "\"args\":" : ",\"args\":", out);
        ct_json_string(out, args, strlen(args));
        first = false;
    }
    if (ret) {
        fputs(first ? "\"retval\":" : ",\"retval\":", out);
        ct_json_string(out, ret, strlen(ret));
    }
}

static void end(void *ctx, uint32_t thread, uint64_t t, uint32_t func,
                enum ct_slice_kind kind, const char *mark, const char *args,
                const char *ret)
{
    struct chrome_export *x = ctx;
    bool window = mark && strcmp(mark, "open_at_window_end") == 0;
    bool before = kind == CT_SLICE_BEFORE_DATA;
    head(x, 'E', thread, t);
    fputs(",\"name\":", x->out);
    fputs(name_of(x, func), x->out);
    if (mark && !window) {
        fprintf(x->out, ",\"args\":{%s\"%s\":true",
                before ? "\"entered_before_data\":true," : "", mark);
        values(x->out, false, args, ret);
        putc('}', x->out);
    } else if (before) {
        fputs(",\"args\":{\"entered_before_data\":true}", x->out);
    } else if (args || ret) {
        fputs(",\"args\":{", x->out);
        values(x->out, true, args, ret);
        putc('}', x->out);
    }
    putc('}', x->out);
    if (!window)
        return;
    head(x, 'i', thread, t);
    fputs(",\"s\":\"t\",\"cat\":\"calltrace-window\","
          "\"name\":\"open at window end\",\"args\":{\"function\":", x->out);
    fputs(name_of(x, func), x->out);
    fputs("}}", x->out);
}

static void instant(void *ctx, uint64_t t, const struct ct_event *ev)
{
    struct chrome_export *x = ctx;
    head(x, 'i', ev->thread, t);
    bool user = ev->kind == CT_EV_USER;
    fprintf(x->out, ",\"s\":\"t\",\"cat\":\"%s\",\"name\":",
            user ? "user" : "calltrace-lost");
    if (user)
        ct_json_string(x->out, ev->text ? ev->text : "",
                       ev->text ? ev->text_len : 0);
    else
        fprintf(x->out, "\"lost events\",\"args\":{\"count\":%" PRIu64 "}",
                ev->count);
    putc('}', x->out);
}

static const struct ct_timeline_ops chrome_ops = {begin, end, instant};

static int chrome_event(struct ct_sink *self, const struct ct_event *ev)
{
    struct chrome_export *x = (struct chrome_export *)self;
    ct_timeline_event(&x->tl, ev);
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
    ct_timeline_finish(&x->tl, ex->opts, ex->range);
    bool empty = x->written == 0;
    const char *prog = x->info->program[0] ? x->info->program
                                           : x->info->path;
    metadata(x, "process_name", 0, prog);
    for (uint32_t i = 0; i < x->info->nthreads && i < x->tl.nthreads; i++) {
        if (x->info->threads[i].excluded)
            continue; /* --tid left it out: no empty track */
        char name[64];
        ct_trace_thread_label(x->info, i, name, sizeof name);
        metadata(x, "thread_name", tid_of(x, i), name);
    }
    fputs("\n]}\n", x->out);
    return ct_timeline_verdict(&x->tl, x->info, "chrome", empty);
}

static void chrome_free(struct ct_exporter *ex)
{
    struct chrome_export *x = (struct chrome_export *)ex;
    ct_timeline_free(&x->tl);
    for (size_t i = 0; i < x->nnames; i++)
        free(x->names[i]);
    free(x->names);
    free(x->keys);
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
                                         const struct ct_view_opts *opts)
{
    struct chrome_export *x = ct_xcalloc(1, sizeof *x);
    x->ex.sink.event = chrome_start;
    x->ex.finish = chrome_finish_any;
    x->ex.free = chrome_free;
    x->out = out;
    x->info = info;
    x->ex.opts = opts;
    ct_timeline_init(&x->tl, &chrome_ops, x, info);
    return &x->ex;
}
