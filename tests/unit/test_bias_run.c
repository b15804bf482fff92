/* The tracer's cost measured in the run (analyzer/model/bias_run.c) from
 * events written out by hand, where the answer is known exactly: the
 * cheapest function's mean leaf call and the shortest mean gap between
 * two calls of one frame, clean calls only, per thread, outliers over 4
 * times the median left out, each part bounded by the other times the
 * calibration's split, a ceiling from the calibration at start. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "analyzer/model/bias_run.h"

struct rig {
    struct ct_trace_info info;      /* what the first reading fills  */
    struct ct_trace_info out;       /* the main reading's, told      */
    struct ct_bias_run *b;
    struct ct_sink *sink;
};

static void rig_init(struct rig *r)
{
    ct_trace_info_init(&r->info, "test.trace", "calltrace");
    ct_trace_info_init(&r->out, "test.trace", "calltrace");
    r->info.ns_per_tick = 1.0;
    r->info.bias_ns_per_call = 20;   /* the ceiling: 3 * 40 = 120 ns */
    r->info.bias_child_ns = 20;
    r->b = ct_bias_run_new(&r->info);
    assert_non_null(r->b);
    r->sink = ct_bias_run_sink(r->b);
}

static const struct ct_run_bias *rig_finish(struct rig *r)
{
    ct_bias_run_finish(r->b, &r->out);
    return &r->out.run_bias;
}

static void rig_free(struct rig *r)
{
    ct_bias_run_free(r->b);
    ct_trace_info_free(&r->info);
    ct_trace_info_free(&r->out);
}

static void ev(struct rig *r, enum ct_ev_kind kind, uint32_t thread,
               uint64_t time, const char *name)
{
    struct ct_event e = {
        .kind = kind, .thread = thread, .time = time,
        .func = name ? ct_functab_intern_name(r->info.funcs, name,
                                              strlen(name))
                     : CT_FUNC_NONE};
    r->sink->event(r->sink, &e);
}

/* n calls of name, each `len` ticks long, from time t on; returns the
 * time after them. */
static uint64_t leaves(struct rig *r, uint32_t thread, uint64_t t,
                       const char *name, unsigned n, uint64_t len)
{
    for (unsigned i = 0; i < n; i++) {
        ev(r, CT_EV_CALL, thread, t, name);
        ev(r, CT_EV_RETURN, thread, t + len, name);
        t += len + 100;
    }
    return t;
}

static void cheapest_leaf(void **state)
{
    (void)state;
    struct rig r;
    rig_init(&r);
    uint64_t t = leaves(&r, 0, 0, "busy", 300, 30);
    leaves(&r, 0, t, "cheap", 200, 10);
    const struct ct_run_bias *b = rig_finish(&r);
    assert_true(b->self_found);
    assert_true(b->self_ns == 10.0);
    assert_string_equal(b->self_func, "cheap");
    assert_int_equal(b->self_samples, 200);
    assert_true(b->self_spread_ns == 0.0);
    /* no call made another: nothing in a caller */
    assert_false(b->child_found);
    rig_free(&r);
}

static void shortest_gap(void **state)
{
    (void)state;
    struct rig r;
    rig_init(&r);
    ev(&r, CT_EV_CALL, 0, 0, "main");
    uint64_t t = 10;
    for (int k = 0; k < 2; k++) {
        const char *parent = k ? "slow" : "mid";
        uint64_t gap = k ? 50 : 9;
        ev(&r, CT_EV_CALL, 0, t, parent);
        for (int i = 0; i < 200; i++) {
            ev(&r, CT_EV_CALL, 0, t + 1, "cheap");
            ev(&r, CT_EV_RETURN, 0, t + 11, "cheap");
            t += 10 + gap;
        }
        ev(&r, CT_EV_RETURN, 0, t + 5, parent);
        t += 20;
    }
    ev(&r, CT_EV_RETURN, 0, t, "main");
    const struct ct_run_bias *b = rig_finish(&r);
    assert_true(b->child_found);
    assert_true(b->child_ns == 9.0);
    assert_string_equal(b->child_func, "mid");
    assert_int_equal(b->child_samples, 199);  /* 200 calls, 199 gaps */
    assert_true(b->self_found);
    assert_true(b->self_ns == 10.0);
    assert_int_equal(b->self_samples, 400);
    /* 10 is within 1.2 times 9 times the calibration's split (20 / 20) */
    assert_false(b->self_bounded);
    assert_false(b->child_bounded);
    rig_free(&r);
}

/* A loop calling a leaf: `leaf` ticks a call, `gap` between two calls. */
static void loop(struct rig *r, uint64_t leaf, uint64_t gap)
{
    ev(r, CT_EV_CALL, 0, 0, "loop");
    uint64_t t = 1;
    for (int i = 0; i < 200; i++) {
        ev(r, CT_EV_CALL, 0, t, "leaf");
        ev(r, CT_EV_RETURN, 0, t + leaf, "leaf");
        t += leaf + gap;
    }
    ev(r, CT_EV_RETURN, 0, t, "loop");
}

/* Each part is bounded by the other times the calibration's split (1 here)
 * with 20 % room: a leaf doing work of its own, called in a tight loop,
 * gives the tracer's cost, not its work's; and the other way round. */
static void bounded_by_the_other(void **state)
{
    (void)state;
    struct rig r;
    rig_init(&r);
    loop(&r, 30, 10);
    const struct ct_run_bias *b = rig_finish(&r);
    assert_true(b->self_bounded);
    assert_false(b->child_bounded);
    assert_true(b->self_ns > 11.999 && b->self_ns < 12.001);
    assert_true(b->child_ns == 10.0);
    rig_free(&r);

    rig_init(&r);
    loop(&r, 10, 30);
    b = rig_finish(&r);
    assert_false(b->self_bounded);
    assert_true(b->child_bounded);
    assert_true(b->self_ns == 10.0);
    assert_true(b->child_ns > 11.999 && b->child_ns < 12.001);
    rig_free(&r);

    /* an uneven calibration's split moves the bound: 30 / 10 = 3 */
    rig_init(&r);
    r.info.bias_ns_per_call = 30;
    r.info.bias_child_ns = 10;
    loop(&r, 30, 10);
    b = rig_finish(&r);
    assert_false(b->self_bounded);
    assert_true(b->self_ns == 30.0);
    rig_free(&r);
}

/* Too few samples is no figure; the views keep the calibration's. */
static void too_few(void **state)
{
    (void)state;
    struct rig r;
    rig_init(&r);
    leaves(&r, 0, 0, "cheap", CT_BIAS_RUN_MIN_SAMPLES - 1, 10);
    const struct ct_run_bias *b = rig_finish(&r);
    assert_false(b->self_found);
    assert_true(ct_bias_self_ns(&r.out) == r.out.bias_ns_per_call);
    rig_free(&r);
}

/* A call with the tracer's or the scheduler's time in it, or with its
 * values recorded, is not one of the tracer's plain costs. */
static void unclean_left_out(void **state)
{
    (void)state;
    struct rig r;
    rig_init(&r);
    uint64_t t = leaves(&r, 0, 0, "cheap", 150, 10);
    const enum ct_ev_kind kinds[] = {CT_EV_OVERHEAD_START, CT_EV_OFFCPU_START,
                                     CT_EV_USER, CT_EV_ARGS, CT_EV_RETVAL};
    for (int i = 0; i < 100; i++) {
        ev(&r, CT_EV_CALL, 0, t, "cheap");
        ev(&r, kinds[i % 5], 0, t + 2, NULL);
        ev(&r, CT_EV_RETURN, 0, t + 8, "cheap");  /* shorter: would win */
        t += 100;
    }
    const struct ct_run_bias *b = rig_finish(&r);
    assert_true(b->self_found);
    assert_true(b->self_ns == 10.0);
    assert_int_equal(b->self_samples, 150);
    rig_free(&r);
}

/* A preempted call (over 4 times the median) is left out of the mean. */
static void outlier_trimmed(void **state)
{
    (void)state;
    struct rig r;
    rig_init(&r);
    uint64_t t = leaves(&r, 0, 0, "cheap", 200, 10);
    t = leaves(&r, 0, t, "cheap", 100, 12);
    leaves(&r, 0, t, "cheap", 3, 45);
    const struct ct_run_bias *b = rig_finish(&r);
    assert_true(b->self_found);
    /* (200 * 10 + 100 * 12) / 300, the three of 45 left out */
    assert_true(b->self_ns > 10.666 && b->self_ns < 10.667);
    assert_int_equal(b->self_samples, 303);
    rig_free(&r);
}

/* Threads interleaved: each keeps its own stack. */
static void threads(void **state)
{
    (void)state;
    struct rig r;
    rig_init(&r);
    for (uint64_t i = 0; i < 200; i++) {
        uint64_t t = i * 100;
        ev(&r, CT_EV_CALL, 0, t, "a");
        ev(&r, CT_EV_CALL, 1, t + 1, "b");
        ev(&r, CT_EV_RETURN, 0, t + 20, "a");
        ev(&r, CT_EV_RETURN, 1, t + 16, "b");
    }
    const struct ct_run_bias *b = rig_finish(&r);
    assert_true(b->self_found);
    assert_true(b->self_ns == 15.0);
    assert_string_equal(b->self_func, "b");
    rig_free(&r);
}

/* After a loss or a stack record the open calls are not known: the
 * return that follows measures nothing. */
static void loss_resets(void **state)
{
    (void)state;
    struct rig r;
    rig_init(&r);
    uint64_t t = 0;
    for (int i = 0; i < 50; i++) {
        ev(&r, CT_EV_CALL, 0, t, "cheap");
        ev(&r, i % 2 ? CT_EV_LOST : CT_EV_STACK, 0, t + 1, NULL);
        ev(&r, CT_EV_RETURN, 0, t + 3, "cheap");
        t += 100;
    }
    leaves(&r, 0, t, "cheap", 100, 10);
    const struct ct_run_bias *b = rig_finish(&r);
    assert_true(b->self_found);
    assert_true(b->self_ns == 10.0);
    assert_int_equal(b->self_samples, 100);
    rig_free(&r);
}

/* A program without a short call: its cheapest mean is its own work, over
 * three times the calibration's pair, and is not taken. */
static void ceiling(void **state)
{
    (void)state;
    struct rig r;
    rig_init(&r);
    leaves(&r, 0, 0, "long", 200, 121);
    const struct ct_run_bias *b = rig_finish(&r);
    assert_false(b->self_found);
    rig_free(&r);
    rig_init(&r);
    leaves(&r, 0, 0, "long", 200, 120);
    assert_true(rig_finish(&r)->self_found);
    rig_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cheapest_leaf),
        cmocka_unit_test(shortest_gap),
        cmocka_unit_test(bounded_by_the_other),
        cmocka_unit_test(too_few),
        cmocka_unit_test(unclean_left_out),
        cmocka_unit_test(outlier_trimmed),
        cmocka_unit_test(threads),
        cmocka_unit_test(loss_resets),
        cmocka_unit_test(ceiling),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
