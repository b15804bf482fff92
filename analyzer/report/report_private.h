/*
 * What the report sections share: the profile, the options, the display
 * units, the call-graph index of each function and the cycles' totals.
 * docs/report-format.md describes the output.
 */
#ifndef CT_REPORT_PRIVATE_H
#define CT_REPORT_PRIVATE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "analyzer/model/view_opts.h"
#include "analyzer/model/profile.h"

/* A cycle seen as one function (gprof's "<cycle N as a whole>"). */
struct ct_rcycle {
    uint64_t self, child;    /* members' self, members' children         */
    uint64_t calls;          /* calls entering the cycle from outside    */
    uint64_t internal;       /* calls between members (not self-calls)   */
    uint32_t index;          /* call-graph index                         */
};

/* One display unit: value = ns / ns, labelled name. */
struct ct_unit {
    double ns;
    const char *name;        /* "s", "ms", "us", "ns"                    */
    const char *column;      /* flat-profile column word: "seconds"...   */
};

struct ct_rep {
    FILE *out;
    struct ct_profile *p;
    const struct ct_view_opts *o;
    struct ct_unit unit;     /* time columns                             */
    uint64_t print_ticks;    /* 100% of the %time columns (total self)   */
    uint32_t *index;         /* func -> call-graph index, 0 = not listed */
    char **names;            /* func -> display name (owned)             */
    char **short_names;      /* --short-names: func -> elided name (owned),
                                for the flat profile and call graph        */
    bool *listed;            /* func -> appears in the report            */
    struct ct_rcycle *cycles;/* 1..ncycles                               */
    /* call-graph order: entries >= 0 are functions, < 0 are ~cycle */
    int64_t *order;
    uint32_t norder;
    const bool *focus;       /* --focus: func -> a root, NULL = no focus */
    uint32_t nfocus;         /* entries in focus                         */
};

/* "every call timed" or "each sample counts as 10.00ms". */
/* Whether the flat profile's figures come from stack samples. */
bool ct_rep_sampled(const struct ct_rep *r);
/* --subtract-bias: per function, the ticks taken off (report_bias.c),
 * NULL when none were; free() it. */
uint64_t *ct_rep_bias_taken(const struct ct_rep *r);
const char *ct_rep_granularity(const struct ct_rep *r, char *buf, size_t len);

void ct_rep_init(struct ct_rep *r, FILE *out, struct ct_profile *p,
                 const struct ct_view_opts *o);
void ct_rep_free(struct ct_rep *r);

double ct_rep_ns(const struct ct_rep *r, uint64_t ticks);
/* Ticks in the report's unit. */
double ct_rep_val(const struct ct_rep *r, uint64_t ticks);
/* "16207ms", "51.64s", "812ns": a duration with the unit that fits. */
void ct_rep_dur(char *buf, size_t len, double ns);
/* The largest unit in which ns is at least 1 (seconds at most). */
struct ct_unit ct_unit_for(double ns);
/* The smallest unit in which ns stays below limit. */
struct ct_unit ct_unit_fitting(double ns, double limit);
/* The per-call columns' unit: the largest in which the smallest figure
 * (min_ns > 0) is at least 1; ns below 1 ns. */
struct ct_unit ct_unit_per_call(double min_ns, double max_ns);
const char *ct_rep_name(const struct ct_rep *r, uint32_t func);
/* The name for the flat profile and the call graph: the short one with
 * --short-names (the index keeps ct_rep_name's full one). */
const char *ct_rep_short_name(const struct ct_rep *r, uint32_t func);
/* A C++ name with template arguments and parameters elided; malloc'ed. */
char *ct_short_name(const char *name);
/* Whether the function appears in the report at all. */
bool ct_rep_listed(const struct ct_rep *r, uint32_t func);

void ct_report_summary(struct ct_rep *r);
/* The summary's On-CPU lines (report_oncpu.c). */
void ct_report_oncpu(struct ct_rep *r);
/* What record-time filters left out (report_filtered.c). */
void ct_report_filtered(struct ct_rep *r);
void ct_report_flat(struct ct_rep *r);
/* The stack samples of a trace whose calls were timed too (mode both). */
void ct_report_samples(struct ct_rep *r);
/* One binomial standard error, in percentage points, of a share of
 * n in total samples. */
double ct_rep_sample_error(uint64_t n, uint64_t total);
void ct_report_graph(struct ct_rep *r);
void ct_report_index(struct ct_rep *r);
void ct_report_events(struct ct_rep *r);
/* report_stats.c: --stats, and the --sort key of a function's row */
void ct_report_stats(struct ct_rep *r);
uint64_t ct_rep_sort_key(const struct ct_rep *r, uint32_t func,
                         uint64_t self, uint64_t child, uint64_t calls);

#endif /* CT_REPORT_PRIVATE_H */
