/*
 * Exporters write a trace in another tool's format.  Event formats
 * (openlaszlo, lms) are sinks fed while reading; profile formats
 * (samplingprof) are written from the finished profile.
 */
#ifndef CT_EXPORT_H
#define CT_EXPORT_H

#include <stdio.h>

#include "analyzer/model/trace.h"

struct ct_profile;
struct ct_view_opts;
struct ct_stacktree;

struct ct_exporter {
    struct ct_sink sink;
    /* Called once after reading, with the finished profile.  Returns 0 or
     * non-zero after printing an error. */
    int (*finish)(struct ct_exporter *self, struct ct_profile *profile);
    void (*free)(struct ct_exporter *self);
    /* --time-range's filter in front of the exporter, NULL without one:
     * tells which threads went on past the window. */
    const struct ct_range_filter *range;
    /* The command line's options as given to ct_exporter_new; NULL means
     * the defaults. */
    const struct ct_view_opts *opts;
    /* Takes the whole stream and applies --time-range itself (as the
     * profile does, clipping intervals at the window's edges); otherwise
     * the caller passes only the events inside the window. */
    bool clips_range;
    /* --diff=OLD for the stack writers: the old run's call paths, read by
     * the command line with the same options before finish; NULL
     * without. */
    const struct ct_stacktree *diff_base;
};

/* NULL (after printing the known names) when the format is unknown.
 * opts carries the command line's writer options (thresholds, value
 * kinds); NULL means every default. */
struct ct_exporter *ct_exporter_new(const char *format, FILE *out,
                                    struct ct_trace_info *info,
                                    const struct ct_view_opts *opts);

/* --dump: the OpenLaszlo raw form, as documented in docs/dump-format.md. */
struct ct_exporter *ct_dump_new(FILE *out, struct ct_trace_info *info);

/*
 * A writer that reads the finished profile alone (callgrind, dot,
 * samplingprof): the events pass it by.  ct_profile_writer_new allocates
 * size bytes (a struct that starts with a ct_profile_writer), zeroed; its
 * free releases them.
 */
struct ct_profile_writer {
    struct ct_exporter ex;
    FILE *out;
    struct ct_trace_info *info;
};
void *ct_profile_writer_new(size_t size, FILE *out, struct ct_trace_info *info,
                            int (*finish)(struct ct_exporter *,
                                          struct ct_profile *));

#endif /* CT_EXPORT_H */
