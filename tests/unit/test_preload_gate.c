/* The hooks' one test (hot.c): a thread's stop bits and busy flag share
 * one word, the CLOCK_MONOTONIC clock is a stop bit of its own that the
 * monotonic hooks let through, and a region toggled by a signal handler
 * that interrupted a hook takes effect at the thread's next event. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "preload/tracer.h"
#include "preload/args/encode.h"
#include "preload/args/plan.h"

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

/* Since pos: an ENTRY, then the n bytes of rec, and not one byte past
 * them written; the frame pushed above depth and the gate cleared, as
 * the enter hook leaves them. */
static void expect_entry_then(const struct ct_thread *t, const uint8_t *pos,
                              const uint8_t *rec, size_t n, uint32_t depth)
{
    assert_true(t->pos > pos + n);
    assert_memory_equal(t->pos - n, rec, n);
    for (size_t k = 0; k < 16; k++)
        assert_int_equal(t->pos[k], 0);  /* the block's fresh bytes */
    assert_int_equal(t->depth, depth + 1);
    assert_int_equal(t->gate, 0);
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
        expect_entry_then(t, pos, rec, n, depth);
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

/* The record of kind sub (CT_EXT_ARGS, CT_EXT_RETVAL) the general path
 * encodes for n values of the given formats and widths, at want: the
 * 3-byte head, then each value by put_int_as; its length. */
static size_t general_record(uint8_t *want, uint8_t sub,
                             const struct ct_arg_item *items, unsigned n,
                             const uint64_t *vals)
{
    struct pay pay = {want + 3, 0};
    for (unsigned i = 0; i < n; i++)
        put_int_as(&pay, items[i].fmt, items[i].width, vals[i]);
    ct_enc_ext_head(want, 0, sub, pay.n);
    return 3 + pay.n;
}

/* A plan of integers alone (args/plan.c): its ARGS record alone
 * (ct_args_plan_put_ints, which the patched entries copy after the ENTRY
 * they write in line) and after its ENTRY (ct_args_plan_write_ints, the
 * library-call stub's) is byte for byte the one the general path encodes
 * (each value by put_int_as, the head before them), for values of every
 * sign and size and an AUTO item among fixed formats; nothing past it is
 * written; the frame is pushed and the gate cleared. */
static void test_plan_ints(void **state)
{
    (void)state;
    static struct ct_args_spec spec;
    char err[192] = "";
    assert_int_equal(ct_args_parse(&spec, "f@arg1/i32,arg2/x,arg3/u8,arg4/c,"
                                          "arg5,arg6/i64",
                                   err, sizeof err), 0);
    const struct ct_args_rule *r = ct_args_rule(&spec, 1);
    ct_args_plan_make(1, r, false);
    assert_int_equal(ct_args_plan_int_only[1], 1);
    if (!ct_tsc_invariant())
        skip();
    ct_clock_init(0, 100);
    __atomic_fetch_add(&ct_global_word, 2, __ATOMIC_RELEASE);
    struct ct_thread *t = ct_self;
    __cyg_profile_func_enter((void *)fn_a, (void *)0x50);  /* slow: new clock */
    uint32_t depth = t->depth;
    static const uintptr_t sets[][6] = {
        {0, 0, 0, 0, 0, 0},
        {(uintptr_t)-1, 0xdeadbeef, 0x1ff, (uintptr_t)-100, (uintptr_t)-5,
         (uintptr_t)INT64_MIN},
        {0x7fffffff, UINTPTR_MAX, 0x80, 'x', 0xffffffff80000000u,
         (uintptr_t)INT64_MAX},
        {0x80000000u, 1, 7, 0x7f, 0x123456789abcull, 42},
    };
    for (size_t k = 0; k < sizeof sets / sizeof sets[0]; k++) {
        uint8_t want[CT_ENTER_WITH_MAX];
        size_t n = general_record(want, CT_EXT_ARGS, r->items, r->nitems,
                                  sets[k]);
        uint8_t alone[CT_ARGS_PLAN_INTS_MAX];
        memset(alone, 0xee, sizeof alone);
        assert_int_equal(ct_args_plan_put_ints(1, alone, sets[k], 1), n);
        assert_memory_equal(alone, want, n);
        assert_int_equal(alone[n], 0xee);
        uint8_t *pos = t->pos;
        assert_int_equal(ct_args_plan_write_ints(1, (void *)fn_b, (void *)0x54,
                                                 0, sets[k], 1), 0);
        expect_entry_then(t, pos, want, n, depth);
        __cyg_profile_func_exit((void *)fn_b, (void *)0x54);
        assert_int_equal(t->depth, depth);
    }
    __cyg_profile_func_exit((void *)fn_a, (void *)0x50);
    ct_args_clear(&spec);

    /* A return value's RETVAL alone (ct_args_plan_put_return, which the
     * patched returns copy before the EXIT they write in line): the
     * general path's bytes, for a fixed format and AUTO; none for a
     * floating-point value, which is not in %rax. */
    assert_int_equal(ct_args_parse(&spec, "g@retval/i16;h@retval;d@retval/f",
                                   err, sizeof err), 0);
    /* ids of their own: a plan is made once per id */
    for (uint32_t id = 1; id <= 3; id++)
        ct_args_plan_make(10 + id, ct_args_rule(&spec, id), false);
    static const uint64_t rets[] = {0, 1, 0xffff, 0x8000, (uint64_t)-1,
                                    0x123456789, 0xffffffff80000000ull};
    for (uint32_t id = 1; id <= 2; id++)
        for (size_t k = 0; k < sizeof rets / sizeof rets[0]; k++) {
            const struct ct_args_rule *rr = ct_args_rule(&spec, id);
            uint8_t want[CT_ARGS_PLAN_RET_MAX + 8];
            size_t n = general_record(want, CT_EXT_RETVAL, &rr->ret, 1,
                                      &rets[k]);
            uint8_t got[CT_ARGS_PLAN_RET_MAX];
            assert_int_equal(ct_args_plan_put_return(10 + id, rets[k], got),
                             n);
            assert_memory_equal(got, want, n);
        }
    assert_int_equal(ct_args_plan_put_return(13, 1, (uint8_t[16]){0}), 0);
    ct_args_clear(&spec);

    /* At a hook's call (a site's registers and the stack in use): the
     * values of registers and frame slots of every width, with the
     * ENTRY, as the general path encodes them. */
    assert_int_equal(ct_args_parse(&spec, "s@arg1/i32%rbp-20,arg2/x%rbx,"
                                          "arg3/u16%rsp+8,arg4/c%r12,"
                                          "arg5/i8%rbp-1",
                                   err, sizeof err), 0);
    const struct ct_args_rule *sr = ct_args_rule(&spec, 1);
    ct_args_plan_make(20, sr, false);
    uint64_t frame[64] = {0};
    struct ct_site_regs regs = {{0}, {{0}}};
    regs.gpr[7] = (uintptr_t)&frame[0];   /* %rsp */
    regs.gpr[6] = (uintptr_t)&frame[32];  /* %rbp */
    regs.gpr[3] = 0xfedcba9876543210ull;  /* %rbx */
    regs.gpr[12] = (uintptr_t)-3;         /* %r12 */
    int32_t i32 = -123456;
    uint16_t u16 = 0xbeef;
    int8_t i8 = -7;
    memcpy((uint8_t *)&frame[32] - 20, &i32, 4);
    memcpy((uint8_t *)&frame[0] + 8, &u16, 2);
    memcpy((uint8_t *)&frame[32] - 1, &i8, 1);
    const uint64_t vals[] = {(uint32_t)i32, regs.gpr[3], u16, regs.gpr[12],
                             (uint8_t)i8};
    uint8_t want[CT_ENTER_WITH_MAX];
    size_t n = general_record(want, CT_EXT_ARGS, sr->items, sr->nitems, vals);
    uint8_t *pos = t->pos;
    uint32_t d0 = t->depth;
    const struct ct_arg_regs g = {NULL, 0, NULL, NULL, &regs};
    assert_int_equal(ct_args_plan_write(20, (void *)fn_b, (void *)0x58,
                                        regs.gpr[7], &g), 0);
    expect_entry_then(t, pos, want, n, d0);
    __cyg_profile_func_exit((void *)fn_b, (void *)0x58);
    ct_args_clear(&spec);
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
        cmocka_unit_test(test_plan_ints),
        cmocka_unit_test(test_fenced_stop_bit),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    return rc | cmocka_run_group_tests(file_tests, setup_file, teardown_file);
}
