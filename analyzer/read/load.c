/*
 * Loading a run (load.h): input, format, the shared filters, the reader,
 * the progress bar and the exit status of a read, in one place.
 */
#include <string.h>

#include "analyzer/read/load.h"
#include "analyzer/model/bias_run.h"
#include "analyzer/model/profile.h"
#include "analyzer/progress.h"
#include "analyzer/readers/read_calltrace.h"
#include "analyzer/util.h"

int ct_load_open(struct ct_load *l, const char *path,
                 const struct ct_load_opts *o)
{
    memset(l, 0, sizeof *l);
    if (ct_input_open(&l->in, path) != 0)
        return CT_EXIT_BAD_INPUT;
    l->reader = o->format ? ct_reader_find(o->format)
                          : ct_reader_detect(&l->in);
    if (!l->reader) {
        if (o->format)
            ct_error("unknown format '%s' (see --help)", o->format);
        else
            ct_input_error(path, "byte 0",
                           "not a calltrace trace nor a known profiler log "
                           "(use --format to name one)");
        ct_input_close(&l->in);
        return o->format ? CT_EXIT_USAGE : CT_EXIT_BAD_INPUT;
    }
    ct_trace_info_init(&l->info, l->in.path, l->reader->name);
    l->opened = true;
    return CT_EXIT_OK;
}

/* --hide/--notrace and --tid's filters in front of sink, into hide and
 * tidsel, reading info; the hide filter is set up only when asked for
 * (whether to free it). */
static struct ct_sink *view_filters(struct ct_hide_filter *hide,
                                    struct ct_tid_filter *tidsel,
                                    struct ct_trace_info *info,
                                    const struct ct_load_opts *o,
                                    struct ct_sink *sink)
{
    if (o->nhide || o->nnotrace) {
        ct_hide_filter_init(hide, sink, info, o->hide, o->nhide);
        ct_hide_filter_notrace(hide, o->notrace, o->nnotrace);
        sink = &hide->sink;
    }
    if (o->ntids) {
        ct_tid_filter_init(tidsel, sink, info, o->tids, o->ntids);
        sink = &tidsel->sink;
    }
    return sink;
}

/* The filters every view shares, in front of sink: the paths --caller
 * keeps, then hidden functions taken out before any view sees the events,
 * so that every view leaves out the same calls; then the threads --tid
 * leaves out. */
static struct ct_sink *filters(struct ct_load *l, const struct ct_load_opts *o,
                               struct ct_sink *sink)
{
    if (o->ncallers) {
        ct_callers_pass(&l->callers, sink, &l->info);
        sink = &l->callers.sink;
    }
    return view_filters(&l->hide, &l->tidsel, &l->info, o, sink);
}

/* --caller's first reading: the same input through the same filters,
 * into a trace info of its own (a reading fills one), to the marking
 * filter alone. */
static int mark_callers(struct ct_load *l, const struct ct_load_opts *o,
                        const struct ct_read_opts *ropts)
{
    struct ct_trace_info info;
    ct_trace_info_init(&info, l->in.path, l->reader->name);
    ct_callers_init(&l->callers, &info, o->callers, o->ncallers);
    struct ct_hide_filter hide;
    struct ct_tid_filter tidsel;
    struct ct_sink *sink =
        view_filters(&hide, &tidsel, &info, o, &l->callers.sink);
    int status = l->reader->read(&l->in, &info, sink, ropts);
    if (o->nhide || o->nnotrace)
        ct_hide_filter_free(&hide);
    ct_trace_info_free(&info);
    return status;
}

/* --subtract-bias's first reading: the run's own calls, every thread and
 * no view's filter (the tracer's cost is the same for hidden functions),
 * into the estimator, which stops after CT_BIAS_RUN_MAX_EVENTS; its
 * figures go to l->info.run_bias for every view of the main reading. */
static void measure_bias(struct ct_load *l, const struct ct_load_opts *o,
                         const struct ct_read_opts *ropts)
{
    struct ct_trace_info info;
    ct_trace_info_init(&info, l->in.path, l->reader->name);
    struct ct_bias_run *b = ct_bias_run_new(&info);
    ct_progress_start(l->in.path, l->in.size, o->progress);
    /* damage, if any, is told by the main reading */
    l->reader->read(&l->in, &info, ct_bias_run_sink(b), ropts);
    ct_progress_end();
    ct_bias_run_finish(b, &l->info);
    ct_bias_run_free(b);
    ct_trace_info_free(&info);
}

int ct_load_read(struct ct_load *l, const struct ct_load_opts *o,
                 struct ct_sink *sink, struct ct_profile *profile)
{
    struct ct_read_opts ropts = {
        .lenient = o->lenient,
        .have_range = o->have_range,
        .range_from_ns = o->range_from_ns,
        .range_to_ns = o->range_to_ns,
    };
    if (o->ncallers) {
        /* the damage, if any, is told by the second reading */
        ct_progress_start(l->in.path, l->in.size, o->progress);
        mark_callers(l, o, &ropts);
        ct_progress_end();
        if (!l->callers.targets) {
            ct_error("%s: --caller names no function called in the trace",
                     l->in.path);
            return CT_EXIT_USAGE;
        }
    }
    if (o->bias_from_run && strcmp(l->reader->name, "calltrace") == 0)
        measure_bias(l, o, &ropts);
    struct ct_sink *first = filters(l, o, sink);
    /* Only the profile alone can be made in parts and merged. */
    if (profile && first == ct_profile_sink(profile) && !o->whole_stream) {
        ropts.profile = profile;
        ropts.jobs = o->jobs;
    }
    ct_progress_start(l->in.path, l->in.size, o->progress);
    int status = l->reader->read(&l->in, &l->info, first, &ropts);
    ct_progress_end();
    if (l->info.stopped[0] && status == CT_EXIT_OK)
        status = CT_EXIT_BAD_INPUT;
    if (o->ntids && !ct_tid_filter_finish(&l->tidsel)) {
        ct_error("%s: --tid names no thread of the trace ('calltrace info "
                 "%s' lists them)", l->in.path, l->in.path);
        if (status == CT_EXIT_OK)
            status = CT_EXIT_USAGE;
    }
    return status;
}

void ct_load_close(struct ct_load *l)
{
    if (!l->opened)
        return;
    ct_hide_filter_free(&l->hide);
    ct_callers_free(&l->callers);
    ct_trace_info_free(&l->info);
    ct_input_close(&l->in);
    l->opened = false;
}

bool ct_load_header(const struct ct_load *l, struct ct_file_header *h,
                    char *state, size_t len)
{
    return strcmp(l->reader->name, "calltrace") == 0 &&
           ct_calltrace_header(&l->in, h, state, len);
}

bool ct_load_has_tid(const char *path, const uint64_t *tids, size_t n)
{
    struct ct_input in;
    if (ct_input_open(&in, path) != 0)
        return true; /* the reading names the problem */
    int has = ct_calltrace_has_tid(&in, tids, n);
    ct_input_close(&in);
    return has != 0;
}
