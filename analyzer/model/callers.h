/*
 * --caller=NAME (uftrace's -C at report time): a sink in front of every
 * view that passes on only the calls on the paths that lead to a call of
 * NAME: the frames open at each such call, and the call itself, without
 * what it calls (uftrace shows it as a leaf; the tracer's record-time
 * NAME:caller keeps the same calls).  Every other call and its return are
 * left out, its time counting as its caller's, as --hide counts it.
 *
 * Whether a frame leads to NAME is known only when a call below it is
 * made, long after the frame's own call has gone by.  So the run is read
 * twice: the first reading (ct_callers_init) numbers each thread's calls
 * and keeps the numbers of the frames open at each call of NAME; the
 * second (ct_callers_pass) passes on those calls and their returns, in
 * their place, with their own times, and holds nothing back.  Its memory
 * is 8 bytes per call kept.  NAME is matched as --hide's names are.
 */
#ifndef CT_CALLERS_H
#define CT_CALLERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyzer/model/trace.h"

struct ct_callers_frame {
    uint64_t call;            /* the thread's call number of this frame    */
    uint32_t func;
    bool shown;               /* PASS: its call was passed on               */
    bool target;              /* a call of NAME: what it calls is left out  */
};

struct ct_callers_thread {
    struct ct_callers_frame *f;  /* open frames                             */
    size_t n, cap;
    uint64_t calls;           /* calls seen so far                          */
    uint64_t *kept;           /* numbers of the calls kept, ascending       */
    size_t nkept, capkept;
    size_t next;              /* PASS: first entry of kept not yet reached  */
};

struct ct_callers_filter {
    struct ct_sink sink;
    struct ct_sink *next;     /* PASS only                                  */
    const struct ct_trace_info *info;
    const char *const *names;
    size_t nnames;
    uint8_t *verdict;         /* per func: 0 unknown, 1 no, 2 NAME          */
    size_t nverdict;
    struct ct_callers_thread *threads;
    size_t nthreads;
    uint64_t targets;         /* MARK: calls of NAME met                    */
};

/* A filter that marks (next unused) for the first reading. */
void ct_callers_init(struct ct_callers_filter *c, const struct ct_trace_info *info,
                     const char *const *names, size_t nnames);
/* Makes the marking filter c pass on to next, reading info, for the
 * second reading: its marks are kept, the rest starts anew. */
void ct_callers_pass(struct ct_callers_filter *c, struct ct_sink *next,
                     const struct ct_trace_info *info);
void ct_callers_free(struct ct_callers_filter *c);

#endif /* CT_CALLERS_H */
