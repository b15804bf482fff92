/*
 * The calltrace binary reader's counters, for tests and benchmarks: they
 * show, for instance, that --time-range skipped blocks without decoding
 * them.  Reset at the start of every read.
 */
#ifndef CT_READ_CALLTRACE_H
#define CT_READ_CALLTRACE_H

#include <stdint.h>

struct ct_calltrace_stats {
    uint64_t blocks;          /* block headers indexed (first pass)       */
    uint64_t blocks_decoded;  /* EVENTS blocks whose records were decoded */
    uint64_t records;         /* records decoded                          */
    uint64_t fused;           /* of them, applied straight to the profile */
    uint64_t pieces;          /* pieces decoded in parallel, 0 = serial   */
};

extern struct ct_calltrace_stats ct_calltrace_stats;

#endif /* CT_READ_CALLTRACE_H */
