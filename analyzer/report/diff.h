/*
 * --diff=OLD: the run in OLD compared with the one in FILE.  The command
 * line reads OLD with the same options as FILE (--format, --hide,
 * --time-range, --subtract-bias, --jobs: analyzer/read/load.h) and hands
 * its profile to the report form (ct_diff_print), or its call-path tree
 * to the stack exports (folded, flamegraph: writers/stackdiff.h).
 */
#ifndef CT_DIFF_H
#define CT_DIFF_H

#include <stdio.h>

#include "analyzer/model/trace.h"

struct ct_view_opts;
struct ct_profile;

/* The report form of --diff: prints the tables of docs/analysis.md ("The
 * diff of two runs") from the finished profiles of the old run
 * (o->diff_base) and the new one. */
void ct_diff_print(FILE *out, struct ct_profile *oldp, struct ct_profile *newp,
                   const struct ct_view_opts *o);

#endif /* CT_DIFF_H */
