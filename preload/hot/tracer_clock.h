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
/* 1 while the TSC hooks' fast path reads the clock (read on the hot
 * path); 0 with CLOCK_MONOTONIC, with the fenced TSC and once the TSC is
 * turned off, where the hooks' twins read it (hot.c) and every other
 * event's time comes from ct_other_ticks. */
extern int ct_clock_is_tsc;
/* 1 when the clock is the fenced TSC (CALLTRACE_CLOCK=tsc-fenced, set by
 * ct_clock_fence): the hooks run between two lfences, and every other
 * read of the TSC follows one (docs/analysis.md, "A clock read in
 * order"). */
extern int ct_clock_fenced;

uint64_t ct_mono_ns(void);
uint64_t ct_realtime_ns(void);
/* 1 when the TSC is invariant: CPUID says so, or /proc/cpuinfo reports
 * constant_tsc and nonstop_tsc. */
int ct_tsc_invariant(void);
/* Picks the clock (TSC unless forced or not invariant) and takes the
 * first (TSC, CLOCK_MONOTONIC) pair of the start window. */
void ct_clock_begin(int force_monotonic);
/* Where the clock is the TSC, makes it the fenced TSC
 * (CALLTRACE_CLOCK=tsc-fenced): the TSC hooks' fast path is left for
 * fenced hooks.  Right after ct_clock_begin, before any thread
 * records. */
void ct_clock_fence(void);
/* With the fenced TSC, each loaded object's calls of the hooks pointed at
 * the fenced hooks (clock_hooks.c): at start and after each dlopen. */
void ct_clock_hooks_point(void);
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

/* The TSC once every instruction before it has executed: lfence lets
 * no later instruction start before the earlier ones are done, so the
 * read cannot overlap the end of the function it times (the memory
 * clobber keeps the compiler from moving work across it too). */
static inline __attribute__((always_inline)) uint64_t ct_read_tsc_fenced(void)
{
    __asm__ volatile("lfence" ::: "memory");
    return __rdtsc();
}

/* The time of an event when the hooks do not read the TSC themselves:
 * CLOCK_MONOTONIC in ns for a monotonic trace; for a TSC trace the fenced
 * TSC, or CLOCK_MONOTONIC in ticks once the TSC was turned off. */
static inline __attribute__((always_inline)) uint64_t ct_other_ticks(void)
{
    if (ct_likely(ct_clock.kind != CT_CLOCK_TSC))
        return ct_mono_ns();
    if (ct_likely(!__atomic_load_n(&ct_tsc_off, __ATOMIC_RELAXED)))
        return ct_read_tsc_fenced();
    return ct_tsc_gone_ticks();
}

static inline __attribute__((always_inline)) uint64_t ct_now(void)
{
    if (ct_likely(ct_clock_is_tsc))
        return ct_read_tsc();
    return ct_other_ticks();
}

/* Measures the cost of one traced call (enter + exit) in picoseconds and
 * its split (bias.c), into ct_proc.bias_*_ps. */
uint64_t ct_measure_bias(void);

/* A kind of traced call for the calibration (bias.c): `call` makes one
 * traced call and returns; `in` is where the called function stored the
 * enter record's clock read (the thread's prev_ticks inside the call). */
struct ct_bias_call {
    uintptr_t (*call)(uintptr_t);
    const volatile uint64_t *in;
};
/* What a calibration gives, in picoseconds: a call's whole cost, its
 * part inside the called function's interval and in its caller, and the
 * median round's excess over the fastest. */
struct ct_bias_figures {
    uint64_t pair_ps, self_ps, child_ps, spread_ps;
};
/* Rounds of such calls on a scratch thread state: 0, or -1 without the
 * scratch memory. */
int ct_bias_measure(const struct ct_bias_call *call,
                    struct ct_bias_figures *f);
/* One round of a calibration: its monotonic nanoseconds, and in ticks
 * the time inside the calls (enter read to exit read) and between them
 * (exit read to the next enter read). */
struct ct_bias_round {
    uint64_t ns, inside, between;
};
/* The figures of n rounds (sorted here) of `pairs` calls each: from the
 * fastest round (noise only adds), the pair, its split at the clock
 * reads, and the median round's excess over the fastest (bias.c; the
 * profile mode's calibration too). */
void ct_bias_figures_of(struct ct_bias_round *r, int n, int pairs,
                        struct ct_bias_figures *f);

#pragma GCC visibility pop

#endif /* CT_TRACER_CLOCK_H */
