/*
 * Per-call time distributions of a profile (--stats, --slowest): for every
 * function and every arc, a histogram of each call's total time (its
 * span: its own time and its callees') and of its self time, from every
 * call that returned, and the slowest calls of each function.  Made by
 * the profile when its options ask for it (ct_profile_opts.stats,
 * .slowest); docs/analysis.md defines the figures.
 */
#ifndef CT_PROFILE_DIST_H
#define CT_PROFILE_DIST_H

#include <stdint.h>

#include "analyzer/model/histogram.h"
#include "analyzer/model/profile.h"

struct ct_call_dist {
    struct ct_hist total, self;
    /* While the profile is made: the calls whose self time is their total
     * time (leaves, mostly), added once here instead of to both total and
     * self; ct_profile_finish merges them into both. */
    struct ct_hist same;
};

/* One of the slowest calls of a function. */
struct ct_slow_call {
    uint64_t total, self;   /* ticks                                     */
    uint64_t start, end;    /* the call's and the return's event times   */
    uint32_t thread;
};

/* NULL when the profile keeps no distributions, or f had no call. */
const struct ct_call_dist *ct_profile_func_dist(const struct ct_profile *p,
                                                uint32_t func);
const struct ct_call_dist *ct_profile_arc_dist(const struct ct_profile *p,
                                               uint32_t arc);
/* The slowest calls of func, longest first (ties: earliest first); returns
 * how many (at most opts.slowest). */
size_t ct_profile_slowest(const struct ct_profile *p, uint32_t func,
                          const struct ct_slow_call **calls);
/* The profile's time origin (ticks): start times are measured from it. */
uint64_t ct_profile_origin(const struct ct_profile *p);

#endif /* CT_PROFILE_DIST_H */
