/*
 * --export perfetto: Perfetto's native protobuf trace (a Trace of
 * TracePackets), several times smaller than the JSON of --export chrome
 * and the form Perfetto recommends for large traces.  The encoding is
 * protobuf.h's; the messages and field numbers are Perfetto's
 * (protos/perfetto/trace/; the subset used is in
 * tests/proto/perfetto_subset.proto).
 *
 * All packets are on one sequence.  The first clears the incremental
 * state (SEQ_INCREMENTAL_STATE_CLEARED), interns the categories and
 * describes the process track; each thread's track (a TrackDescriptor
 * with pid and tid, child of the process) is described before its first
 * event and again at the end with its name.  Event names are interned:
 * a function's name is sent once, in the packet of its first event, and
 * referred to by iid after (SEQ_NEEDS_INCREMENTAL_STATE).  Calls are
 * TYPE_SLICE_BEGIN/END, user events and lost-event records
 * TYPE_INSTANT, with the same slices, categories and marks (as debug
 * annotations) as --export chrome (timeline.h).  Timestamps are
 * nanoseconds since the trace's first event.  Packets are written as they
 * come: memory holds the open frames and one buffer of packets.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/writers/export.h"
#include "analyzer/writers/protobuf.h"
#include "analyzer/writers/textesc.h"
#include "analyzer/writers/timeline.h"
#include "analyzer/util.h"

/* Field numbers (protos/perfetto/trace/...). */
enum {
    TRACE_PACKET = 1,
    PKT_TIMESTAMP = 8, PKT_SEQ_ID = 10, PKT_TRACK_EVENT = 11,
    PKT_INTERNED = 12, PKT_SEQ_FLAGS = 13, PKT_TRACK_DESCRIPTOR = 60,
    SEQ_INCREMENTAL_STATE_CLEARED = 1, SEQ_NEEDS_INCREMENTAL_STATE = 2,
    TE_CATEGORY_IIDS = 3, TE_DEBUG = 4, TE_TYPE = 9, TE_NAME_IID = 10,
    TE_TRACK_UUID = 11, TE_NAME = 23,
    TYPE_SLICE_BEGIN = 1, TYPE_SLICE_END = 2, TYPE_INSTANT = 3,
    TD_UUID = 1, TD_NAME = 2, TD_PROCESS = 3, TD_THREAD = 4, TD_PARENT = 5,
    PD_PID = 1, PD_CMDLINE = 2, PD_NAME = 6,
    THD_PID = 1, THD_TID = 2, THD_NAME = 5,
    DA_BOOL = 2, DA_UINT = 3, DA_STRING = 6, DA_NAME = 10,
    ID_CATEGORIES = 1, ID_NAMES = 2, IID = 1, IID_NAME = 2,
};

#define SEQUENCE 1
#define PROCESS_UUID 1
#define THREAD_UUID0 2          /* + thread index */
#define OVERHEAD_IID 1          /* event names: functions are func + 2 */
#define FLUSH_AT (1u << 16)

enum { CAT_CALL = 1, CAT_SAMPLE, CAT_OVERHEAD, CAT_USER, CAT_LOST };
static const char *const categories[] = {
    NULL, "call", "sample", "calltrace-overhead", "user", "calltrace-lost",
};

struct perfetto_export {
    struct ct_exporter ex;
    FILE *out;
    struct ct_trace_info *info;
    struct ct_timeline tl;
    struct pb_buf buf;
    uint8_t *named;             /* by func: name interned already        */
    size_t nnamed;
    uint8_t *described;         /* by thread: track described            */
    size_t ndescribed;
    bool started, have_origin;
    uint64_t origin;
    uint64_t events;
};

static uint64_t ns_of(struct perfetto_export *x, uint64_t t)
{
    if (!x->have_origin) {
        x->have_origin = true;
        x->origin = x->info->have_first_time && x->info->first_time <= t
                        ? x->info->first_time
                        : t;
    }
    uint64_t rel = t > x->origin ? t - x->origin : 0;
    double npt = x->info->ns_per_tick > 0 ? x->info->ns_per_tick : 1;
    return npt == 1 ? rel : (uint64_t)llround((double)rel * npt);
}

static void flush(struct perfetto_export *x, bool all)
{
    if (x->buf.len >= FLUSH_AT || (all && x->buf.len)) {
        fwrite(x->buf.data, 1, x->buf.len, x->out);
        pb_reset(&x->buf);
    }
}

static void clean_string(struct pb_buf *b, uint32_t field, const char *s,
                         size_t n)
{
    size_t len;
    char *c = ct_utf8_clean(s, n, &len);
    pb_bytes(b, field, c, len);
    free(c);
}

static void describe_thread(struct perfetto_export *x, uint32_t thread,
                            bool with_name)
{
    const struct ct_thread_info *ti =
        thread < x->info->nthreads ? &x->info->threads[thread] : NULL;
    uint64_t tid = ti && ti->tid ? ti->tid : thread;
    struct pb_buf *b = &x->buf;
    size_t pkt = pb_begin(b, TRACE_PACKET);
    pb_uint(b, PKT_SEQ_ID, SEQUENCE);
    size_t td = pb_begin(b, PKT_TRACK_DESCRIPTOR);
    pb_uint(b, TD_UUID, THREAD_UUID0 + (uint64_t)thread);
    pb_uint(b, TD_PARENT, PROCESS_UUID);
    if (ti && ti->context) {
        /* A coroutine: a track of its own, named, not the thread's (the
         * same tid would merge the two stacks into one). */
        char name[64];
        ct_trace_thread_label(x->info, thread, name, sizeof name);
        clean_string(b, TD_NAME, name, strlen(name));
        pb_end(b, td);
        pb_end(b, pkt);
        return;
    }
    size_t th = pb_begin(b, TD_THREAD);
    pb_uint(b, THD_PID, x->info->pid ? x->info->pid : 1);
    pb_uint(b, THD_TID, tid);
    if (with_name) {
        char name[64];
        ct_trace_thread_label(x->info, thread, name, sizeof name);
        clean_string(b, THD_NAME, name, strlen(name));
    }
    pb_end(b, th);
    pb_end(b, td);
    pb_end(b, pkt);
}

static void start(struct perfetto_export *x)
{
    x->started = true;
    struct pb_buf *b = &x->buf;
    size_t pkt = pb_begin(b, TRACE_PACKET);
    pb_uint(b, PKT_SEQ_ID, SEQUENCE);
    pb_uint(b, PKT_SEQ_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED);
    size_t in = pb_begin(b, PKT_INTERNED);
    for (uint64_t i = 1; i < sizeof categories / sizeof *categories; i++) {
        size_t c = pb_begin(b, ID_CATEGORIES);
        pb_uint(b, IID, i);
        pb_string(b, IID_NAME, categories[i]);
        pb_end(b, c);
    }
    size_t n = pb_begin(b, ID_NAMES);
    pb_uint(b, IID, OVERHEAD_IID);
    pb_string(b, IID_NAME, "calltrace overhead");
    pb_end(b, n);
    pb_end(b, in);
    size_t td = pb_begin(b, PKT_TRACK_DESCRIPTOR);
    pb_uint(b, TD_UUID, PROCESS_UUID);
    size_t pd = pb_begin(b, TD_PROCESS);
    pb_uint(b, PD_PID, x->info->pid ? x->info->pid : 1);
    const char *prog = x->info->program[0] ? x->info->program
                                           : x->info->path;
    clean_string(b, PD_NAME, prog, strlen(prog));
    if (x->info->command[0])
        clean_string(b, PD_CMDLINE, x->info->command,
                     strlen(x->info->command));
    pb_end(b, pd);
    pb_end(b, td);
    pb_end(b, pkt);
}

/* Opens a packet for an event on thread at t; returns its mark.  A new
 * function's name is interned in it. */
static size_t event_packet(struct perfetto_export *x, uint32_t thread,
                           uint64_t t, uint32_t func)
{
    if (!x->started)
        start(x);
    ct_grow_zeroed(&x->described, &x->ndescribed, thread, 1);
    if (!x->described[thread]) {
        x->described[thread] = 1;
        describe_thread(x, thread, false);
    }
    struct pb_buf *b = &x->buf;
    size_t pkt = pb_begin(b, TRACE_PACKET);
    pb_uint(b, PKT_TIMESTAMP, ns_of(x, t));
    pb_uint(b, PKT_SEQ_ID, SEQUENCE);
    pb_uint(b, PKT_SEQ_FLAGS, SEQ_NEEDS_INCREMENTAL_STATE);
    if (func != CT_FUNC_NONE) {
        ct_grow_zeroed(&x->named, &x->nnamed, func, 1);
        if (!x->named[func]) {
            x->named[func] = 1;
            const char *name = ct_functab_name(x->info->funcs, func);
            size_t in = pb_begin(b, PKT_INTERNED);
            size_t n = pb_begin(b, ID_NAMES);
            pb_uint(b, IID, (uint64_t)func + 2);
            clean_string(b, IID_NAME, name, strlen(name));
            pb_end(b, n);
            pb_end(b, in);
        }
    }
    x->events++;
    return pkt;
}

static void flag(struct pb_buf *b, const char *name)
{
    size_t da = pb_begin(b, TE_DEBUG);
    pb_string(b, DA_NAME, name);
    pb_uint(b, DA_BOOL, 1);
    pb_end(b, da);
}

/* A call's arguments or return value, on its slice's end: the trace
 * processor adds an end's debug annotations to the slice's args. */
static void text_arg(struct pb_buf *b, const char *name, const char *text)
{
    if (!text)
        return;
    size_t da = pb_begin(b, TE_DEBUG);
    pb_string(b, DA_NAME, name);
    clean_string(b, DA_STRING, text, strlen(text));
    pb_end(b, da);
}

static void slice(struct perfetto_export *x, uint32_t thread, uint64_t t,
                  uint32_t func, enum ct_slice_kind kind, const char *mark,
                  int type, const char *args, const char *ret)
{
    struct pb_buf *b = &x->buf;
    size_t pkt = event_packet(x, thread, t, type == TYPE_SLICE_BEGIN
                                                ? func : CT_FUNC_NONE);
    size_t te = pb_begin(b, PKT_TRACK_EVENT);
    pb_uint(b, TE_TYPE, (uint64_t)type);
    pb_uint(b, TE_TRACK_UUID, THREAD_UUID0 + (uint64_t)thread);
    if (type == TYPE_SLICE_BEGIN) {
        pb_uint(b, TE_NAME_IID, func == CT_FUNC_NONE ? OVERHEAD_IID
                                                     : (uint64_t)func + 2);
        pb_uint(b, TE_CATEGORY_IIDS, kind == CT_SLICE_SAMPLE ? CAT_SAMPLE
                                     : kind == CT_SLICE_OVERHEAD ? CAT_OVERHEAD
                                                                 : CAT_CALL);
        if (kind == CT_SLICE_BEFORE_DATA)
            flag(b, "entered_before_data");
    }
    if (mark)
        flag(b, mark);
    text_arg(b, "args", args);
    text_arg(b, "retval", ret);
    pb_end(b, te);
    pb_end(b, pkt);
    flush(x, false);
}

static void begin(void *ctx, uint32_t thread, uint64_t t, uint32_t func,
                  enum ct_slice_kind kind)
{
    slice(ctx, thread, t, func, kind, NULL, TYPE_SLICE_BEGIN, NULL, NULL);
}

static void end(void *ctx, uint32_t thread, uint64_t t, uint32_t func,
                enum ct_slice_kind kind, const char *mark, const char *args,
                const char *ret)
{
    slice(ctx, thread, t, func, kind, mark, TYPE_SLICE_END, args, ret);
}

static void instant(void *ctx, uint64_t t, const struct ct_event *ev)
{
    struct perfetto_export *x = ctx;
    struct pb_buf *b = &x->buf;
    size_t pkt = event_packet(x, ev->thread, t, CT_FUNC_NONE);
    size_t te = pb_begin(b, PKT_TRACK_EVENT);
    pb_uint(b, TE_TYPE, TYPE_INSTANT);
    pb_uint(b, TE_TRACK_UUID, THREAD_UUID0 + (uint64_t)ev->thread);
    if (ev->kind == CT_EV_USER) {
        pb_uint(b, TE_CATEGORY_IIDS, CAT_USER);
        clean_string(b, TE_NAME, ev->text ? ev->text : "",
                     ev->text ? ev->text_len : 0);
    } else {
        pb_uint(b, TE_CATEGORY_IIDS, CAT_LOST);
        pb_string(b, TE_NAME, "lost events");
        size_t da = pb_begin(b, TE_DEBUG);
        pb_string(b, DA_NAME, "count");
        pb_uint(b, DA_UINT, ev->count);
        pb_end(b, da);
    }
    pb_end(b, te);
    pb_end(b, pkt);
    flush(x, false);
}

static const struct ct_timeline_ops perfetto_ops = {begin, end, instant};

static int perfetto_event(struct ct_sink *self, const struct ct_event *ev)
{
    struct perfetto_export *x = (struct perfetto_export *)self;
    ct_timeline_event(&x->tl, ev);
    return 0;
}

static int perfetto_finish(struct ct_exporter *ex, struct ct_profile *profile)
{
    (void)profile;
    struct perfetto_export *x = (struct perfetto_export *)ex;
    ct_timeline_finish(&x->tl, ex->opts, ex->range);
    if (!x->started)
        start(x);
    /* names are known by now: the last name given to a track wins */
    for (uint32_t i = 0; i < x->ndescribed; i++)
        if (x->described[i])
            describe_thread(x, i, true);
    flush(x, true);
    return ct_timeline_verdict(&x->tl, x->info, "perfetto", !x->events);
}

static void perfetto_free(struct ct_exporter *ex)
{
    struct perfetto_export *x = (struct perfetto_export *)ex;
    ct_timeline_free(&x->tl);
    pb_free(&x->buf);
    free(x->named);
    free(x->described);
    free(x);
}

struct ct_exporter *ct_export_perfetto_new(FILE *out,
                                           struct ct_trace_info *info,
                                           const struct ct_view_opts *opts)
{
    struct perfetto_export *x = ct_xcalloc(1, sizeof *x);
    x->ex.sink.event = perfetto_event;
    x->ex.finish = perfetto_finish;
    x->ex.free = perfetto_free;
    x->out = out;
    x->info = info;
    x->ex.opts = opts;
    ct_timeline_init(&x->tl, &perfetto_ops, x, info);
    return &x->ex;
}
