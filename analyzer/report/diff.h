/*
 * --diff=OLD: the run in OLD compared with the one in FILE.  The report
 * form (ct_diff_print) and the stack exports (folded, flamegraph) read
 * OLD through ct_diff_run, with the same options as FILE (--format,
 * --hide, --time-range, --subtract-bias, --jobs).
 */
#ifndef CT_DIFF_H
#define CT_DIFF_H

#include <stdio.h>

#include "hide.h"
#include "reader.h"
#include "trace.h"

struct ct_options;
struct ct_profile;

/* The old run, read as FILE is. */
struct ct_diff_run {
    struct ct_input in;
    const struct ct_reader *reader;
    struct ct_trace_info info;
    struct ct_hide_filter hide;
    bool opened;
};

/* Opens path and finds its format; info is then ready for a sink.
 * Returns CT_EXIT_OK or the exit status after one error line. */
int ct_diff_run_open(struct ct_diff_run *run, const char *path,
                     const struct ct_options *o);
/* Reads the whole run into sink (behind --hide's filter); profile is the
 * sink's profile when it is nothing else, to decode on --jobs threads.
 * Returns CT_EXIT_OK, or CT_EXIT_BAD_INPUT after an error line (a
 * damaged trace was read up to the damage). */
int ct_diff_run_read(struct ct_diff_run *run, const struct ct_options *o,
                     struct ct_sink *sink, struct ct_profile *profile);
void ct_diff_run_close(struct ct_diff_run *run);

/* The report form of --diff: reads o->diff_base and prints the tables of
 * docs/analysis.md ("The diff of two runs") against the finished profile
 * of the new run.  Returns an exit status. */
int ct_diff_print(FILE *out, struct ct_profile *newp,
                  const struct ct_options *o);

/* Why the options given do not go with --diff (or --threshold without
 * it), or NULL when they do. */
const char *ct_diff_refuse(const struct ct_options *o);

#endif /* CT_DIFF_H */
