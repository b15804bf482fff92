/*
 * --diff=OLD for the stack writers (folded, flamegraph): the old run's
 * call-path tree, read with the same options by the command line
 * (analyzer/read/load.h) and handed over in struct ct_exporter's
 * diff_base, and each call path of the
 * new run matched with the old one's of the same function names (and
 * source files, where both runs know them).  Values are in the measure the
 * writer shows: whole ns of self time (rounded as the folded export
 * rounds), calls or samples.
 */
#ifndef CT_STACKDIFF_H
#define CT_STACKDIFF_H

#include <stdio.h>

#include "analyzer/writers/stacktree.h"

#define CT_SD_NONE UINT32_MAX

struct ct_stackdiff {
    const struct ct_stacktree *old;   /* the old run's, not owned       */
    uint64_t *old_value;    /* per old node: its own value              */
    uint32_t *match;        /* per new node: the old node of its path   */
};

/* Matches the finished old tree's paths with newt's, which shows `which`
 * (CT_ST_*).  Returns 0, or 1 after one error line naming format. */
int ct_stackdiff_load(struct ct_stackdiff *sd, const struct ct_stacktree *old,
                      const struct ct_stacktree *newt, int which,
                      const char *format);
void ct_stackdiff_free(struct ct_stackdiff *sd);

/* Per node of t, its own value in the measure `which` (malloc'ed). */
uint64_t *ct_stack_values(const struct ct_stacktree *t, int which);

/* The old value of new node n (0 when the old run has no such path). */
static inline uint64_t ct_stackdiff_old(const struct ct_stackdiff *sd,
                                        uint32_t n)
{
    return sd->match[n] == CT_SD_NONE ? 0 : sd->old_value[sd->match[n]];
}

/* --export=folded --diff: "PATH OLD NEW" a line, FlameGraph's
 * difffolded.pl format; new_value as ct_stack_values gives it. */
void ct_stackdiff_folded(FILE *out, const struct ct_stackdiff *sd,
                         const struct ct_stacktree *newt,
                         const uint64_t *new_value);

#endif /* CT_STACKDIFF_H */
