/* Clock selection and calibration.  No timing assertions beyond
 * plausibility: the calibrated rate is compared with a second, independent
 * measurement over a longer interval. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <time.h>

#include "preload/tracer.h"

static void test_monotonic_forced(void **state)
{
    (void)state;
    ct_clock_init(1, 1000);
    assert_int_equal(ct_clock.kind, CT_CLOCK_MONOTONIC);
    assert_int_equal(ct_clock.tick_hz, 1000000000u);
    assert_int_equal(ct_clock_is_tsc, 0);
    uint64_t a = ct_now(), m = ct_mono_ns(), b = ct_now();
    assert_true(a <= m && m <= b);
}

static void test_tsc_calibration(void **state)
{
    (void)state;
    if (!ct_tsc_invariant())
        skip();
    ct_clock_init(0, 2000);
    assert_int_equal(ct_clock.kind, CT_CLOCK_TSC);
    assert_int_equal(ct_clock_is_tsc, 1);
    /* Any x86 TSC of the last 20 years ticks between 100 MHz and 10 GHz. */
    assert_true(ct_clock.tick_hz > 100000000u);
    assert_true(ct_clock.tick_hz < 10000000000u);
    /* An independent 50 ms measurement agrees within 2 %. */
    uint64_t t0 = __rdtsc(), m0 = ct_mono_ns();
    struct timespec d = {0, 50000000};
    nanosleep(&d, NULL);
    uint64_t t1 = __rdtsc(), m1 = ct_mono_ns();
    double hz = (double)(t1 - t0) * 1e9 / (double)(m1 - m0);
    double ratio = hz / (double)ct_clock.tick_hz;
    assert_true(ratio > 0.98 && ratio < 1.02);
}

/* The start window opened by ct_clock_begin closes at ct_clock_calibrate,
 * however long the work between took: it waits only for the rest of the
 * minimum, and a longer window gives the rate over all of it. */
static void test_window_spans_the_work_between(void **state)
{
    (void)state;
    if (!ct_tsc_invariant())
        skip();
    ct_clock_begin(0);
    assert_int_equal(ct_clock.kind, CT_CLOCK_TSC);
    ct_clock_calibrate(0);
    assert_true(ct_clock.tick_hz > 100000000u);
    assert_true(ct_clock.tick_hz < 10000000000u);
    struct timespec d = {0, 20000000};
    nanosleep(&d, NULL);
    uint64_t before = ct_mono_ns();
    ct_clock_calibrate(100);  /* 20 ms are past: no wait */
    assert_true(ct_mono_ns() - before < 10000000u);
    uint64_t t0 = __rdtsc(), m0 = ct_mono_ns();
    nanosleep(&d, NULL);
    uint64_t t1 = __rdtsc(), m1 = ct_mono_ns();
    double ratio = (double)(t1 - t0) * 1e9 / (double)(m1 - m0) /
                   (double)ct_clock.tick_hz;
    assert_true(ratio > 0.98 && ratio < 1.02);
    /* A window of 1 ms from a begin just now is waited for. */
    ct_clock_begin(0);
    uint64_t start = ct_clock.start_mono_ns;
    ct_clock_calibrate(1000);
    assert_true(ct_mono_ns() - start >= 1000000u);
}

static void test_refine_needs_a_long_run(void **state)
{
    (void)state;
    if (!ct_tsc_invariant())
        skip();
    ct_clock_init(0, 1000);
    uint64_t hz = ct_clock.tick_hz;
    /* 10 ms later: too short to improve, kept. */
    ct_clock_refine(ct_clock.start_ticks + hz / 100, ct_clock.start_mono_ns + 10000000u);
    assert_int_equal(ct_clock.tick_hz, hz);
    /* One second later with exactly 3e9 ticks: 3 GHz. */
    ct_clock_refine(ct_clock.start_ticks + 3000000000u, ct_clock.start_mono_ns + 1000000000u);
    assert_int_equal(ct_clock.tick_hz, 3000000000u);
}

/* CALLTRACE_CLOCK=tsc-fenced: still the TSC (the trace's ticks are its
 * ticks), but the TSC hooks' fast path no longer reads it, and every
 * other event's time comes from ct_other_ticks, which reads the TSC after
 * an lfence; a later TSC clock without the fence has the hooks read it
 * again, and a monotonic clock is never fenced. */
static void test_fenced_tsc(void **state)
{
    (void)state;
    if (!ct_tsc_invariant())
        skip();
    ct_clock_init(0, 1000);
    ct_clock_fence();
    assert_int_equal(ct_clock.kind, CT_CLOCK_TSC);
    assert_int_equal(ct_clock_is_tsc, 0);
    uint64_t a = __rdtsc(), b = ct_now(), c = __rdtsc();
    assert_true(a <= b && b <= c);
    assert_true(ct_other_ticks() >= b);
    /* Another begin keeps the choice. */
    ct_clock_begin(0);
    assert_int_equal(ct_clock_is_tsc, 0);
    ct_clock_fenced = 0;
    ct_clock_init(0, 1000);
    assert_int_equal(ct_clock_is_tsc, 1);
    /* Monotonic stays monotonic when fenced is asked. */
    ct_clock_init(1, 0);
    ct_clock_fence();
    assert_int_equal(ct_clock.kind, CT_CLOCK_MONOTONIC);
    assert_int_equal(ct_clock_fenced, 0);
    uint64_t m0 = ct_mono_ns(), n = ct_now(), m1 = ct_mono_ns();
    assert_true(m0 <= n && n <= m1);
    ct_clock_fenced = 0;
}

static void test_flag_parsing(void **state)
{
    (void)state;
    /* Whatever the machine, the answer is stable and does not crash. */
    int a = ct_tsc_invariant(), b = ct_tsc_invariant();
    assert_int_equal(a, b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_monotonic_forced),
        cmocka_unit_test(test_tsc_calibration),
        cmocka_unit_test(test_window_spans_the_work_between),
        cmocka_unit_test(test_refine_needs_a_long_run),
        cmocka_unit_test(test_fenced_tsc),
        cmocka_unit_test(test_flag_parsing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
