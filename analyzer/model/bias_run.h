/*
 * The tracer's cost per call measured in the run itself (docs/analysis.md,
 * "The tracer's bias"): a first reading of the trace, before the views',
 * looks at the program's own calls in the program's own conditions (its
 * cache and TLB state, its trace blocks), where the calibration at start
 * timed a warm loop.  Two figures come out:
 *
 *   inside the call: the mean duration of the clean leaf calls of the
 *     function whose calls cost least (its body's cost is in it, so the
 *     figure errs high by the cheapest function's own work, about 1 ns in
 *     a program with getters);
 *   in the caller: the mean gap between one call's return and the next
 *     call's entry in the same frame, of the calling function whose gaps
 *     are shortest (errs high by its few instructions between two calls).
 *
 * A mean, not a median, because what is taken off is an average per call:
 * the tracer's occasional store into a line not in the cache belongs in it.
 * A value over 4 times the function's median (a preemption, an interrupt)
 * is left out of the mean.
 *
 * Each is an upper bound of its part; the other part's figure times the
 * calibration's split of the pair is a second one, and the smaller is
 * taken (ct_bias_run_finish), so a program whose cheapest function does
 * 15 ns of work but which calls it in a tight loop still gets the
 * tracer's cost, not the function's.
 *
 * A clean call has nothing but its own CALL and RETURN: no overhead
 * bracket, off-CPU interval, loss, user event, argument or return value.
 */
#ifndef CT_BIAS_RUN_H
#define CT_BIAS_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include "analyzer/model/trace.h"

/* Samples a function needs before its median is believed. */
#define CT_BIAS_RUN_MIN_SAMPLES 100u
/* How far the run's split of the pair may stray from the calibration's
 * before the larger part is taken for a function's work (ct_bias_run_
 * finish): the runs measured split 0.44-0.53 of the pair inside the call
 * where their calibrations split 0.48-0.51. */
#define CT_BIAS_RUN_SPLIT_ROOM 1.2

/* Events the first reading looks at before it stops: enough for the
 * medians, and a cap on the time a long run's second reading takes. */
#define CT_BIAS_RUN_MAX_EVENTS (64ull << 20)

struct ct_bias_run;

/* An estimator reading events of the trace info describes (its clock,
 * its calibration at start). */
struct ct_bias_run *ct_bias_run_new(const struct ct_trace_info *info);
struct ct_sink *ct_bias_run_sink(struct ct_bias_run *b);
/* The figures, into info->run_bias (which says which parts were found):
 * a part without enough clean samples, or larger than three times the
 * calibration's whole pair (no short function: its median is the
 * function's work, not the tracer's), keeps the calibration's figure. */
void ct_bias_run_finish(struct ct_bias_run *b, struct ct_trace_info *info);
void ct_bias_run_free(struct ct_bias_run *b);

#endif /* CT_BIAS_RUN_H */
