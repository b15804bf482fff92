/* The hooks' one test (hot.c): a thread's stop bits and busy flag share
 * one word, the CLOCK_MONOTONIC clock is a stop bit of its own that the
 * monotonic hooks let through, and a region toggled by a signal handler
 * that interrupted a hook takes effect at the thread's next event. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <unistd.h>

#include "preload/tracer.h"

static char path[64];

static int setup_file(void **state)
{
    (void)state;
    snprintf(path, sizeof path, "/tmp/ct-unit-gate-%d.raw", (int)getpid());
    unlink(path);
    ct_config_defaults(&ct_proc.cfg);
    ct_proc.cfg.quiet = 1;
    ct_proc.cfg.cputime = CT_CPUTIME_OFF;
    snprintf(ct_proc.cfg.output, sizeof ct_proc.cfg.output, "%s", path);
    ct_clock_init(1, 0);  /* monotonic */
    ct_proc.pid = (uint32_t)getpid();
    if (ct_file_open(0, 1) != 0)
        return -1;
    ct_proc.started = 2;
    ct_global_update();
    return 0;
}

static int teardown_file(void **state)
{
    (void)state;
    unlink(path);
    return 0;
}

static void fn_a(void) {}
static void fn_b(void) {}

/* Busy is the upper half of the gate, the stop bits the lower. */
static void test_gate_layout(void **state)
{
    (void)state;
    struct ct_thread t = {0};
    t.busy = 1;
    assert_int_equal(t.gate, 1ull << 32);
    t.busy = 0;
    t.stop = CT_STOP_REGION;
    assert_int_equal(t.gate, CT_STOP_REGION);
}

/* With the monotonic clock every event leaves the TSC hook by its stop
 * bit and is still recorded by the monotonic one, busy cleared after. */
static void test_monotonic_stop_bit(void **state)
{
    (void)state;
    assert_int_equal(ct_clock_is_tsc, 0);
    __cyg_profile_func_enter((void *)fn_a, (void *)0x10);  /* slow: first */
    struct ct_thread *t = ct_self;
    assert_non_null(t);
    assert_int_equal(t->gate, CT_STOP_CLOCK);
    uint8_t *pos = t->pos;
    uint32_t depth = t->depth;
    __cyg_profile_func_enter((void *)fn_b, (void *)0x14);
    assert_true(t->pos > pos);
    assert_int_equal(t->depth, depth + 1);
    assert_int_equal(t->gate, CT_STOP_CLOCK);
    pos = t->pos;
    __cyg_profile_func_exit((void *)fn_b, (void *)0x14);
    assert_true(t->pos > pos);
    assert_int_equal(t->depth, depth);
    __cyg_profile_func_exit((void *)fn_a, (void *)0x10);
    assert_int_equal(t->gate, CT_STOP_CLOCK);
}

/* CALLTRACE_OFF() from a handler that interrupted a hook leaves the
 * hook's flag alone; the next event sees the region and hides its frame. */
static void test_region_from_interrupting_handler(void **state)
{
    (void)state;
    struct ct_thread *t = ct_self;
    __cyg_profile_func_enter((void *)fn_a, (void *)0x20);
    uint32_t depth = t->depth;
    t->busy = 1;              /* a hook is running ...                   */
    ct_thread_region(0);      /* ... when a handler calls CALLTRACE_OFF */
    assert_int_equal(t->busy, 1);
    assert_int_equal(t->region, 1);
    t->busy = 0;              /* the hook ends                          */
    uint8_t *pos = t->pos;
    __cyg_profile_func_enter((void *)fn_b, (void *)0x24);
    assert_int_equal(t->hidden_count, 1);
    assert_ptr_equal(t->pos, pos);
    assert_int_equal(t->stop, CT_STOP_REGION | CT_STOP_HIDDEN | CT_STOP_CLOCK);
    __cyg_profile_func_exit((void *)fn_b, (void *)0x24);
    assert_int_equal(t->hidden_count, 0);
    assert_ptr_equal(t->pos, pos);
    ct_thread_region(1);
    assert_int_equal(t->gate, CT_STOP_CLOCK);
    __cyg_profile_func_exit((void *)fn_a, (void *)0x20);
    assert_true(t->pos > pos);  /* recorded again */
    assert_int_equal(t->depth, depth - 1);
}

/* A call and its ARGS record in one pass (ct_enter_with, for args/plan.c):
 * each length a plan may write lands whole after the ENTRY, copied in
 * words, and not one byte past its end is written; the frame is pushed
 * and the gate cleared as the enter hook leaves them.  Its return with a
 * RETVAL record (ct_exit_with): the record before the EXIT, the frame
 * popped, only for the top frame at its depth.  Under the monotonic
 * clock the hooks' fast path is shut: nothing is written. */
static void test_enter_with_record(void **state)
{
    (void)state;
    struct ct_thread *t = ct_self;
    uint8_t rec[CT_ENTER_WITH_MAX];
    for (size_t i = 0; i < sizeof rec; i++)
        rec[i] = (uint8_t)(0xa0 + i);
    uint8_t *pos = t->pos;
    assert_int_equal(ct_enter_with((void *)fn_a, (void *)0x40, 0, rec, 4), -1);
    assert_ptr_equal(t->pos, pos);
    if (!ct_tsc_invariant())
        skip();
    ct_clock_init(0, 100);
    __atomic_fetch_add(&ct_global_word, 2, __ATOMIC_RELEASE);
    __cyg_profile_func_enter((void *)fn_a, (void *)0x40);  /* slow: new clock */
    assert_int_equal(t->gate, 0);
    uint32_t depth = t->depth;
    for (size_t n = 4; n <= CT_ENTER_WITH_MAX; n++) {
        pos = t->pos;
        assert_int_equal(
            ct_enter_with((void *)fn_b, (void *)0x44, 0, rec, n), 0);
        assert_true(t->pos > pos + n);  /* the ENTRY, then the record */
        assert_memory_equal(t->pos - n, rec, n);
        for (size_t k = 0; k < 16; k++)
            assert_int_equal(t->pos[k], 0);  /* the block's fresh bytes */
        assert_int_equal(t->depth, depth + 1);
        assert_int_equal(t->gate, 0);
        /* its return: not at another depth, nor for another function */
        pos = t->pos;
        assert_int_equal(ct_exit_with((void *)fn_b, depth + 1, rec, n), -1);
        assert_int_equal(ct_exit_with((void *)fn_a, depth, rec, n), -1);
        assert_ptr_equal(t->pos, pos);
        assert_int_equal(t->gate, 0);
        /* the record, then the EXIT (its head and time: 1-10 bytes) */
        assert_int_equal(ct_exit_with((void *)fn_b, depth, rec, n), 0);
        assert_memory_equal(pos, rec, n);
        assert_true(t->pos > pos + n && t->pos <= pos + n + 10);
        for (size_t k = 0; k < 16; k++)
            assert_int_equal(t->pos[k], 0);
        assert_int_equal(t->depth, depth);
        assert_int_equal(t->gate, 0);
    }
    __cyg_profile_func_exit((void *)fn_a, (void *)0x40);
}

/* CALLTRACE_CLOCK=tsc-fenced: the TSC hooks leave by the same stop bit,
 * and the events are recorded by the fenced twins, as by the fenced hooks
 * themselves (ct_fenced_enter, ct_fenced_exit), whose clock is the
 * TSC itself (the thread's last time lands between two reads of it),
 * not CLOCK_MONOTONIC's nanoseconds. */
static void test_fenced_stop_bit(void **state)
{
    (void)state;
    if (!ct_tsc_invariant())
        skip();
    ct_clock_init(0, 100);
    ct_clock_fence();
    /* a new generation: each thread's next event takes its stop bits
     * again in the slow path, as a change of clock does */
    __atomic_fetch_add(&ct_global_word, 2, __ATOMIC_RELEASE);
    struct ct_thread *t = ct_self;
    __cyg_profile_func_enter((void *)fn_a, (void *)0x30);  /* slow */
    assert_int_equal(t->gate, CT_STOP_CLOCK);
    uint8_t *pos = t->pos;
    uint32_t depth = t->depth;
    uint64_t before = __rdtsc();
    __cyg_profile_func_enter((void *)fn_b, (void *)0x34);
    uint64_t after = __rdtsc();
    assert_true(t->pos > pos);
    assert_int_equal(t->depth, depth + 1);
    assert_true(t->prev_ticks >= before && t->prev_ticks <= after);
    assert_int_equal(t->gate, CT_STOP_CLOCK);
    before = __rdtsc();
    __cyg_profile_func_exit((void *)fn_b, (void *)0x34);
    after = __rdtsc();
    assert_int_equal(t->depth, depth);
    assert_true(t->prev_ticks >= before && t->prev_ticks <= after);
    /* The fenced hooks the program's calls are pointed at: the same. */
    pos = t->pos;
    before = __rdtsc();
    ct_fenced_enter((void *)fn_b, (void *)0x38);
    after = __rdtsc();
    assert_true(t->pos > pos);
    assert_int_equal(t->depth, depth + 1);
    assert_true(t->prev_ticks >= before && t->prev_ticks <= after);
    ct_fenced_exit((void *)fn_b, (void *)0x38);
    assert_int_equal(t->depth, depth);
    assert_int_equal(t->gate, CT_STOP_CLOCK);
    __cyg_profile_func_exit((void *)fn_a, (void *)0x30);
    assert_int_equal(t->gate, CT_STOP_CLOCK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gate_layout),
    };
    const struct CMUnitTest file_tests[] = {
        cmocka_unit_test(test_monotonic_stop_bit),
        cmocka_unit_test(test_region_from_interrupting_handler),
        cmocka_unit_test(test_enter_with_record),
        cmocka_unit_test(test_fenced_stop_bit),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    return rc | cmocka_run_group_tests(file_tests, setup_file, teardown_file);
}
