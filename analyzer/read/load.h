/*
 * Loading a run: the one way a trace (or another profiler's log) is read
 * into a sink, with the filters every view shares (--hide, --notrace,
 * --tid) in front of it.  calltrace-report's own input, the old run of
 * --diff, --info's counts and the front end's --tid pick all read through
 * here, so that they cannot read a trace differently.  Above the readers
 * and the model; below the command line (docs/architecture.md).
 */
#ifndef CT_LOAD_H
#define CT_LOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "calltrace_format.h"
#include "analyzer/model/callers.h"
#include "analyzer/model/hide.h"
#include "analyzer/readers/reader.h"
#include "analyzer/model/tidsel.h"
#include "analyzer/model/trace.h"

struct ct_profile;

/* What a reading takes from the command line (options.h), for callers
 * that have none (the front end). */
struct ct_load_opts {
    const char *format;         /* --format NAME, NULL = detect          */
    bool lenient;
    bool have_range;
    int64_t range_from_ns, range_to_ns;
    const char **hide;          /* --hide, --notrace                     */
    size_t nhide;
    const char **notrace;
    size_t nnotrace;
    const char **callers;       /* --caller: the run is read twice       */
    size_t ncallers;
    const uint64_t *tids;       /* --tid                                 */
    size_t ntids;
    /* The profile handed to ct_load_read may be made in parts on `jobs`
     * threads: not when it keeps per-thread figures, subtracts the bias
     * or keeps the slowest calls (their order needs one stream). */
    bool whole_stream;
    /* --subtract-bias: measure the tracer's cost per call in the run
     * first (bias_run.h), a reading of its own, into info->run_bias */
    bool bias_from_run;
    unsigned jobs;
    bool progress;              /* the bar on a terminal                 */
};

struct ct_load {
    struct ct_input in;
    const struct ct_reader *reader;
    struct ct_trace_info info;
    struct ct_hide_filter hide;
    struct ct_callers_filter callers;
    struct ct_tid_filter tidsel;
    bool opened;
};

/* Opens path and finds its format (o->format names it, or the input is
 * probed); info is then ready for a sink.  Returns CT_EXIT_OK, or the
 * exit status after one error line (CT_EXIT_USAGE for an unknown
 * --format). */
int ct_load_open(struct ct_load *l, const char *path,
                 const struct ct_load_opts *o);
/* Reads the whole run into sink, behind --hide/--notrace, --caller and
 * --tid's filters (--caller reads the run once more first: callers.h).  profile is the sink's profile when the sink is that profile
 * and nothing else (it may then be decoded on several threads), or NULL.
 * Returns CT_EXIT_OK; CT_EXIT_BAD_INPUT after an error line (a damaged
 * trace is read up to the damage); CT_EXIT_USAGE when --tid names no
 * thread of the run. */
int ct_load_read(struct ct_load *l, const struct ct_load_opts *o,
                 struct ct_sink *sink, struct ct_profile *profile);
void ct_load_close(struct ct_load *l);

/* A calltrace trace's file header as it stands at the end (a stream's
 * trailer applied) and its writer's state in words, for --info; false
 * when the run is not a calltrace trace. */
bool ct_load_header(const struct ct_load *l, struct ct_file_header *h,
                    char *state, size_t len);

/* Whether the trace at path holds a thread of tids: from its block
 * headers alone, no record decoded.  True when that cannot be told (not
 * a calltrace trace, unreadable): the reading then says why. */
bool ct_load_has_tid(const char *path, const uint64_t *tids, size_t n);

#endif /* CT_LOAD_H */
