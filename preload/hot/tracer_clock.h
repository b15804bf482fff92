/*
 * The time source: the TSC or CLOCK_MONOTONIC, its calibration, and
 * ct_now, the clock read of every event (clock.c).
 *
 * One part of tracer.h, the tracer's internal interface: the files of
 * the tracer include tracer.h, which includes every part; a part compiles
 * alone too, with the parts it needs.
 */
#ifndef CT_TRACER_CLOCK_H
#define CT_TRACER_CLOCK_H

#include "preload/tracer_base.h"

#pragma GCC visibility push(hidden)

/* ----------------------------------------------------------------- clock */

struct ct_clock {
    uint32_t kind;          /* CT_CLOCK_TSC or CT_CLOCK_MONOTONIC           */
    uint64_t tick_hz;
    uint64_t start_ticks;
    uint64_t start_mono_ns;
};

extern struct ct_clock ct_clock;
extern int ct_clock_is_tsc;   /* read on the hot path */

uint64_t ct_mono_ns(void);
uint64_t ct_realtime_ns(void);
/* 1 when the TSC is invariant: CPUID says so, or /proc/cpuinfo reports
 * constant_tsc and nonstop_tsc. */
int ct_tsc_invariant(void);
/* Picks the clock (TSC unless forced or not invariant) and takes the
 * first (TSC, CLOCK_MONOTONIC) pair of the start window. */
void ct_clock_begin(int force_monotonic);
/* Sets the TSC rate over the window since ct_clock_begin, waiting until
 * it is at least calib_us microseconds long (0: as long as it is).  Later
 * refinements must span ten such windows. */
void ct_clock_calibrate(unsigned calib_us);
/* Both at once: a window of calib_us microseconds. */
void ct_clock_init(int force_monotonic, unsigned calib_us);
/* Recomputes tick_hz from start to (end_ticks, end_mono_ns) when the
 * interval is long enough (ten start windows) to improve on the start
 * calibration. */
void ct_clock_refine(uint64_t end_ticks, uint64_t end_mono_ns);
/* Refines tick_hz to now and stores it in the file header. */
void ct_clock_checkpoint(void);
/* A duration in the clock's ticks: 0 stays 0, anything else is at least
 * one tick. */
uint64_t ct_ns_to_ticks(uint64_t ns);

/*
 * The TSC read of every event.  bench/overhead.sh builds a second copy of
 * the library with -DCT_BENCH_FAKE_CLOCK, where it is a counter stepping by
 * 64 ticks (records keep their usual size), to measure what the hooks cost
 * besides the clock.  The shipped library has no such mode.
 */
#ifdef CT_BENCH_FAKE_CLOCK
extern uint64_t ct_bench_ticks;
#define ct_read_tsc() (ct_bench_ticks += 64)
#else
#define ct_read_tsc() __rdtsc()
#endif

/* Set once the program turned the TSC off (PR_SET_TSC, seccomp strict):
 * CLOCK_MONOTONIC is then read by system call (clock.c). */
extern int ct_tsc_off;
/* CLOCK_MONOTONIC in the trace's TSC ticks, at the rate calibrated. */
uint64_t ct_tsc_gone_ticks(void);
/* Before the TSC goes away: every later event reads CLOCK_MONOTONIC. */
void ct_clock_tsc_gone(void);

/* The time of an event when the TSC is not read: CLOCK_MONOTONIC, in ns
 * for a monotonic trace, in ticks for a TSC trace whose TSC was turned
 * off. */
static inline __attribute__((always_inline)) uint64_t ct_mono_ticks(void)
{
    if (ct_likely(ct_clock.kind != CT_CLOCK_TSC))
        return ct_mono_ns();
    return ct_tsc_gone_ticks();
}

static inline __attribute__((always_inline)) uint64_t ct_now(void)
{
    if (ct_likely(ct_clock_is_tsc))
        return ct_read_tsc();
    return ct_mono_ticks();
}

/* Measures the cost of one traced call (enter + exit) in picoseconds and
 * its split (bias.c), into ct_proc.bias_*_ps. */
uint64_t ct_measure_bias(void);

#pragma GCC visibility pop

#endif /* CT_TRACER_CLOCK_H */
