/*
 * --hide=NAME (uftrace's -H at report time): a sink in front of every view
 * that drops the calls and returns of the functions named, so that their
 * callees appear as called by their caller and their own time counts as
 * the caller's.  --notrace=NAME (uftrace's -N) drops the functions named
 * and everything they call (their time counts as their caller's).  NAME is matched by ct_name_match as each function is
 * met while reading: a glob or an exact name (C++ without its parameters
 * or qualification), not a unique prefix, which needs every name first.
 */
#ifndef CT_HIDE_H
#define CT_HIDE_H

#include <stdint.h>

#include "analyzer/model/trace.h"

struct ct_hide_frame {
    uint32_t func;
    bool hidden;
    bool notrace;             /* a --notrace function's frame             */
};

struct ct_hide_thread {
    struct ct_hide_frame *f;  /* this thread's open frames, hidden or not */
    size_t n, cap;
    size_t inside;            /* --notrace frames among them              */
};

struct ct_hide_filter {
    struct ct_sink sink;
    struct ct_sink *next;
    const struct ct_trace_info *info;
    const char *const *patterns;
    size_t npatterns;
    const char *const *notrace;  /* --notrace NAME                         */
    size_t nnotrace;
    uint8_t *verdict;         /* per func: 0 unknown, 1 shown, 2 hidden    */
    size_t nverdict;
    struct ct_hide_thread *threads;
    size_t nthreads;
    uint32_t *ids;            /* STACK and SAMPLE records, filtered        */
    uint64_t *pcs;
    size_t ids_cap;
    uint64_t hidden_calls;    /* calls dropped                             */
};

void ct_hide_filter_init(struct ct_hide_filter *h, struct ct_sink *next,
                         const struct ct_trace_info *info,
                         const char *const *patterns, size_t npatterns);
/* Adds --notrace patterns (after init). */
void ct_hide_filter_notrace(struct ct_hide_filter *h,
                            const char *const *patterns, size_t npatterns);
void ct_hide_filter_free(struct ct_hide_filter *h);

#endif /* CT_HIDE_H */
