/*
 * The figures of record's closing line, read with the analyzer's own trace
 * reader so that they are the report's figures.  Functions are never named
 * here (the symbolizer runs only for names that are asked for), so this
 * costs one pass over the records.
 */
#include <stdio.h>
#include <string.h>

#include "frontend/frontend.h"
#include "analyzer/readers/reader.h"

struct counter {
    struct ct_sink sink;
    uint64_t events, lost;
};

static int count(struct ct_sink *self, const struct ct_event *ev)
{
    struct counter *c = (struct counter *)self;
    /* The report's definition, so that the two lines agree. */
    c->events += ct_event_weight(ev);
    if (ev->kind == CT_EV_LOST)
        c->lost += ev->count;
    return 0;
}

int ct_fe_trace_stats(const char *path, struct ct_fe_stats *st, bool quiet)
{
    memset(st, 0, sizeof *st);
    struct ct_input in;
    if (ct_input_open(&in, path) != 0)
        return -1;
    st->size = in.size;
    if (ct_reader_calltrace.probe(&in) <= 0) {
        if (!quiet)
            ct_fe_error("%s: not a calltrace trace", path);
        ct_input_close(&in);
        return -1;
    }
    struct ct_trace_info info;
    ct_trace_info_init(&info, in.path, ct_reader_calltrace.name);
    struct counter c = { .sink.event = count };
    struct ct_read_opts opts = { .range_to_ns = INT64_MAX };
    ct_reader_calltrace.read(&in, &info, &c.sink, &opts);
    st->events = c.events;
    /* The header's total covers losses no block recorded (a crash). */
    st->lost = c.lost > info.lost_events ? c.lost : info.lost_events;
    st->threads = info.nthreads;
    st->pid = info.pid;
    st->damaged = info.stopped[0] != 0;
    snprintf(st->program, sizeof st->program, "%s", info.program);
    if (info.start_epoch_ns) {
        uint64_t first = info.have_first_time ? info.first_time
                                              : info.start_ticks;
        double after = ((double)first - (double)info.start_ticks) *
                       info.ns_per_tick;
        st->first_epoch_ns = info.start_epoch_ns + (int64_t)after;
    }
    ct_trace_info_free(&info);
    ct_input_close(&in);
    return 0;
}
