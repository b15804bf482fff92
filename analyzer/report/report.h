/* The gprof-format report and the call tree, printed from a profile. */
#ifndef CT_REPORT_H
#define CT_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "analyzer/model/view_opts.h"
#include "analyzer/model/profile.h"

/* Summary, flat profile, call graph, index, user events (per options). */
int ct_report_print(FILE *out, struct ct_profile *p,
                    const struct ct_view_opts *opts);

/* --tree: indented call tree with durations, like `uftrace replay`. */
struct ct_sink *ct_tree_new(FILE *out, struct ct_trace_info *info,
                            const struct ct_view_opts *opts);
/* Prints what is left and frees the tree; returns the number of events
 * inside --time-range (of all events without one). */
uint64_t ct_tree_finish(struct ct_sink *tree);

/* --slowest (report_stats.c): the slowest calls of the functions
 * opts->slowest names. */
int ct_report_slowest(FILE *out, struct ct_profile *p,
                      const struct ct_view_opts *opts);
/* --sort keys: which exist, and which need the distributions. */
bool ct_sort_key_valid(const char *key);
bool ct_sort_needs_stats(const char *key);

#endif /* CT_REPORT_H */
