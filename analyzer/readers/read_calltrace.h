/*
 * The calltrace binary reader's counters, for tests and benchmarks: they
 * show, for instance, that --time-range skipped blocks without decoding
 * them.  Reset at the start of every read.  Also what can be asked of a
 * calltrace trace without reading it whole.
 */
#ifndef CT_READ_CALLTRACE_H
#define CT_READ_CALLTRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "calltrace_format.h"
#include "analyzer/readers/reader.h"

struct ct_calltrace_stats {
    uint64_t blocks;          /* block headers indexed (first pass)       */
    uint64_t blocks_decoded;  /* EVENTS blocks whose records were decoded */
    uint64_t records;         /* records decoded                          */
    uint64_t fused;           /* of them, applied straight to the profile */
    uint64_t pieces;          /* pieces decoded in parallel, 0 = serial   */
};

extern struct ct_calltrace_stats ct_calltrace_stats;

/* What --info and the front end's --tid pick ask of a calltrace trace
 * without reading its records (analyzer/read/load.c). */

/* The file header as it stands at the end (a stream's trailer applied)
 * and the writer's state in words ("closed cleanly", "still being
 * written by pid N"...).  false when in is too short for a header. */
bool ct_calltrace_header(const struct ct_input *in, struct ct_file_header *h,
                         char *state, size_t len);
/* 1 when a thread of tids has an EVENTS block, 0 when none has, -1 when
 * in is not a readable calltrace trace.  Block headers only. */
int ct_calltrace_has_tid(const struct ct_input *in, const uint64_t *tids,
                         size_t n);

#endif /* CT_READ_CALLTRACE_H */
