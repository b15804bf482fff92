/* --tree's exact text for event streams written out by hand (one tick =
 * 1 ns): nesting, leaves, the tracer's pauses, never-returned and
 * inherited frames, --min-duration, --focus, --depth, --hide, threads
 * interleaved in time order, and no line growing with the depth. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "calltrace_format.h"
#include "analyzer/model/hide.h"
#include "analyzer/options.h"
#include "profile_fixture.h"
#include "analyzer/report/report.h"

struct tx {
    struct fx fx;
    struct ct_sink *tree;
    struct ct_hide_filter hide;
    FILE *out;
    char *buf;
    size_t len;
};

static void tx_init(struct tx *t, const struct ct_options *o)
{
    memset(t, 0, sizeof *t);
    fx_init(&t->fx);
    t->out = open_memstream(&t->buf, &t->len);
    t->tree = ct_tree_new(t->out, &t->fx.info, &o->view);
    t->fx.sink = t->tree;
    if (o->nhide) {
        ct_hide_filter_init(&t->hide, t->tree, &t->fx.info, o->hide, o->nhide);
        t->fx.sink = &t->hide.sink;
    }
}

/* The tree's text; the caller frees it. */
static char *tx_finish(struct tx *t)
{
    ct_tree_finish(t->tree);
    fclose(t->out);
    if (t->hide.next)
        ct_hide_filter_free(&t->hide);
    fx_free(&t->fx);
    return t->buf;
}

static void expect_text(char *got, const char *want)
{
    if (strcmp(got, want) != 0)
        fprintf(stderr, "got:\n%s\nwant:\n%s\n", got, want);
    assert_string_equal(got, want);
    free(got);
}

#define HEAD "# DURATION     TID     FUNCTION\n"

static void test_nesting_and_leaves(void **state)
{
    (void)state;
    struct ct_options o = {0};
    struct tx t;
    tx_init(&t, &o);
    FX_CALL(&t.fx, 0, 0, "main");
    FX_CALL(&t.fx, 0, 10, "work");
    FX_CALL(&t.fx, 0, 20, "scale");
    FX_POP(&t.fx, 0, 50);
    fx_user(&t.fx, 0, 60, "half\nway */ there");
    FX_POP(&t.fx, 0, 100);
    FX_POP(&t.fx, 0, 1000);
    expect_text(tx_finish(&t),
        HEAD
        "           [   100] | main() {\n"
        "           [   100] |   work() {\n"
        " 30.000 ns [   100] |     scale();\n"
        "           [   100] |     /* half way +/ there */\n"
        " 90.000 ns [   100] |   } /* work */\n"
        "  1.000 us [   100] | } /* main */\n");
}

static void fx_values(struct fx *x, enum ct_ev_kind kind, uint64_t time,
                      const void *payload, size_t len)
{
    struct ct_event ev = {.kind = kind, .time = time, .func = CT_FUNC_NONE,
                          .text = payload, .text_len = len};
    x->sink->event(x->sink, &ev);
}

/* Arguments and return values as uftrace's replay shows them: on the
 * opening line or the leaf, `= value` before the leaf's `;` and on the
 * closing brace. */
static void test_values(void **state)
{
    (void)state;
    struct ct_options o = {0};
    struct tx t;
    tx_init(&t, &o);
    static const uint8_t args[] = {CT_VAL_SIGNED, 6, CT_VAL_STR, 5,
                                   'G', 'E', 'T', ' ', '/'};
    static const uint8_t twelve[] = {CT_VAL_SIGNED, 24};
    static const uint8_t zero[] = {CT_VAL_SIGNED, 0};
    static const uint8_t bad[] = {CT_VAL_BADPTR, 0x10, CT_VAL_HEX, 0x20};
    FX_CALL(&t.fx, 0, 0, "main");
    FX_CALL(&t.fx, 0, 10, "parse_line");
    fx_values(&t.fx, CT_EV_ARGS, 10, args, sizeof args);
    fx_values(&t.fx, CT_EV_RETVAL, 40, twelve, sizeof twelve);
    FX_POP(&t.fx, 0, 40);
    FX_CALL(&t.fx, 0, 50, "check");
    fx_values(&t.fx, CT_EV_ARGS, 50, bad, sizeof bad);
    FX_POP(&t.fx, 0, 60);
    fx_values(&t.fx, CT_EV_RETVAL, 100, zero, sizeof zero);
    FX_POP(&t.fx, 0, 100);
    expect_text(tx_finish(&t),
        HEAD
        "           [   100] | main() {\n"
        " 30.000 ns [   100] |   parse_line(3, \"GET /\") = 12;\n"
        " 10.000 ns [   100] |   check(<bad pointer 0x10>, 0x20);\n"
        "100.000 ns [   100] | } = 0; /* main */\n");
}

/* S..E inside a call is not the call's time, as in the flat profile. */
static void test_overhead_taken_out(void **state)
{
    (void)state;
    struct ct_options o = {0};
    struct tx t;
    tx_init(&t, &o);
    FX_CALL(&t.fx, 0, 0, "main");
    FX_CALL(&t.fx, 0, 100, "tiny");
    fx_ev(&t.fx, CT_EV_OVERHEAD_START, 0, 110, CT_FUNC_NONE);
    fx_ev(&t.fx, CT_EV_OVERHEAD_END, 0, 1500110, CT_FUNC_NONE);
    FX_POP(&t.fx, 0, 1500200);
    FX_POP(&t.fx, 0, 1500300);
    expect_text(tx_finish(&t),
        HEAD
        "           [   100] | main() {\n"
        "100.000 ns [   100] |   tiny(); [tracer 1.500 ms]\n"
        "300.000 ns [   100] | } /* main */ [tracer 1.500 ms]\n");
}

/* --subtract-bias with a split bias: each call loses 3 ns, its caller 2
 * per call it makes, as in the profile (tests/unit/test_bias.c); the
 * caller's share is no part of the call's own duration. */
static void test_bias_split(void **state)
{
    (void)state;
    struct ct_options o = {.view.subtract_bias = true};
    struct tx t;
    tx_init(&t, &o);
    t.fx.info.bias_ns_per_call = 3;
    t.fx.info.bias_child_ns = 2;
    FX_CALL(&t.fx, 0, 0, "main");
    FX_CALL(&t.fx, 0, 10, "f");
    FX_POP(&t.fx, 0, 30);
    FX_CALL(&t.fx, 0, 40, "f");
    FX_POP(&t.fx, 0, 45);
    FX_POP(&t.fx, 0, 100);
    expect_text(tx_finish(&t),
        HEAD
        "           [   100] | main() {\n"
        " 17.000 ns [   100] |   f();\n"
        "  2.000 ns [   100] |   f();\n"
        " 87.000 ns [   100] | } /* main */\n");
}

/* A forked child's STACK frames are open, not called; what is open when
 * a thread ends (or the data ends) never returned. */
static void test_inherited_and_never_returned(void **state)
{
    (void)state;
    struct ct_options o = {0};
    struct tx t;
    tx_init(&t, &o);
    uint32_t open[2] = {fx_fn(&t.fx, "main"), fx_fn(&t.fx, "spawn")};
    fx_stack(&t.fx, CT_EV_STACK, 0, 0, open, 2, 0);
    FX_CALL(&t.fx, 0, 10, "child_work");
    FX_POP(&t.fx, 0, 30);
    FX_POP(&t.fx, 0, 40);
    FX_POP(&t.fx, 0, 50);
    FX_CALL(&t.fx, 1, 60, "worker");
    FX_CALL(&t.fx, 1, 70, "inner");
    fx_ev(&t.fx, CT_EV_THREAD_END, 1, 100, CT_FUNC_NONE);
    FX_CALL(&t.fx, 2, 200, "stop");
    expect_text(tx_finish(&t),
        HEAD
        "           [   100] | main() { /* already open */\n"
        "           [   100] |   spawn() { /* already open */\n"
        " 20.000 ns [   100] |     child_work();\n"
        " 40.000 ns [   100] |   } /* spawn */\n"
        " 50.000 ns [   100] | } /* main */\n"
        "           [   200] | worker() {\n"
        " 30.000 ns [   200] |   inner(); /* never returned */\n"
        " 40.000 ns [   200] | } /* worker: never returned */\n"
        "  0.000 ns [   300] | stop(); /* never returned */\n");
}

/* Lines of different threads come out in time order, a leaf on its one
 * line at its call's place even though its return comes later. */
static void test_threads_interleaved(void **state)
{
    (void)state;
    struct ct_options o = {0};
    struct tx t;
    tx_init(&t, &o);
    FX_CALL(&t.fx, 0, 0, "a");
    FX_CALL(&t.fx, 1, 5, "b");
    FX_CALL(&t.fx, 1, 6, "b_leaf");
    FX_POP(&t.fx, 1, 8);
    FX_POP(&t.fx, 0, 10);
    FX_POP(&t.fx, 1, 20);
    expect_text(tx_finish(&t),
        HEAD
        " 10.000 ns [   100] | a();\n"
        "           [   200] | b() {\n"
        "  2.000 ns [   200] |   b_leaf();\n"
        " 15.000 ns [   200] | } /* b */\n");
}

static void test_threads_sections(void **state)
{
    (void)state;
    struct ct_options o = {.view.per_thread = true};
    struct tx t;
    tx_init(&t, &o);
    FX_CALL(&t.fx, 1, 0, "b");
    FX_CALL(&t.fx, 0, 5, "a");
    FX_POP(&t.fx, 1, 8);
    FX_POP(&t.fx, 0, 10);
    expect_text(tx_finish(&t),
        HEAD
        "\n==== Thread 0 (tid 100) ====\n"
        "  5.000 ns [   100] | a();\n"
        "\n==== Thread 1 (tid 200) ====\n"
        "  8.000 ns [   200] | b();\n");
}

/* --min-duration: a short call goes with everything in it; a long one
 * shows, whatever its callees last. */
static void test_min_duration(void **state)
{
    (void)state;
    struct ct_options o = {.view.tree_min_ns = 100};
    struct tx t;
    tx_init(&t, &o);
    FX_CALL(&t.fx, 0, 0, "main");
    FX_CALL(&t.fx, 0, 10, "short");
    FX_CALL(&t.fx, 0, 20, "in_short");
    FX_POP(&t.fx, 0, 30);
    FX_POP(&t.fx, 0, 50);
    FX_CALL(&t.fx, 0, 60, "long");
    FX_CALL(&t.fx, 0, 70, "quick");
    FX_POP(&t.fx, 0, 80);
    FX_CALL(&t.fx, 0, 90, "slow");
    FX_POP(&t.fx, 0, 300);
    FX_POP(&t.fx, 0, 400);
    FX_CALL(&t.fx, 0, 410, "wrap");  /* all it calls is too short */
    FX_CALL(&t.fx, 0, 420, "tiny");
    FX_POP(&t.fx, 0, 430);
    FX_POP(&t.fx, 0, 650);
    FX_POP(&t.fx, 0, 700);
    expect_text(tx_finish(&t),
        HEAD
        "           [   100] | main() {\n"
        "           [   100] |   long() {\n"
        "210.000 ns [   100] |     slow();\n"
        "340.000 ns [   100] |   } /* long */\n"
        "240.000 ns [   100] |   wrap();\n"
        "700.000 ns [   100] | } /* main */\n");
}

/* --focus: only calls of the function and what they call, indented from
 * it; --depth counts from there. */
static void test_focus_and_depth(void **state)
{
    (void)state;
    struct ct_options o = {.view.focus = "wor*", .view.tree_depth = 2};
    struct tx t;
    tx_init(&t, &o);
    FX_CALL(&t.fx, 0, 0, "main");
    FX_CALL(&t.fx, 0, 10, "other");
    FX_POP(&t.fx, 0, 20);
    FX_CALL(&t.fx, 0, 30, "work");
    FX_CALL(&t.fx, 0, 40, "step");
    FX_CALL(&t.fx, 0, 50, "too_deep");
    FX_POP(&t.fx, 0, 60);
    FX_POP(&t.fx, 0, 70);
    FX_POP(&t.fx, 0, 80);
    FX_POP(&t.fx, 0, 90);
    expect_text(tx_finish(&t),
        HEAD
        "           [   100] | work() {\n"
        " 30.000 ns [   100] |   step();\n"
        " 50.000 ns [   100] | } /* work */\n");
}

/* --hide: the hidden function's callees hang from its caller. */
static void test_hide(void **state)
{
    (void)state;
    const char *hide[] = {"wrap*"};
    struct ct_options o = {.hide = hide, .nhide = 1};
    struct tx t;
    tx_init(&t, &o);
    FX_CALL(&t.fx, 0, 0, "main");
    FX_CALL(&t.fx, 0, 10, "wrapper");
    FX_CALL(&t.fx, 0, 20, "real");
    FX_POP(&t.fx, 0, 30);
    FX_POP(&t.fx, 0, 40);
    FX_POP(&t.fx, 0, 50);
    expect_text(tx_finish(&t),
        HEAD
        "           [   100] | main() {\n"
        " 10.000 ns [   100] |   real();\n"
        " 50.000 ns [   100] | } /* main */\n");
}

/* A call undecided while 65536 lines wait behind it is printed as open:
 * memory stays bounded, and the lines stay in time order. */
static void test_lookahead_bound(void **state)
{
    (void)state;
    struct ct_options o = {0};
    struct tx t;
    tx_init(&t, &o);
    FX_CALL(&t.fx, 0, 0, "waiting");
    for (uint64_t i = 0; i < 70000; i++) {
        FX_CALL(&t.fx, 1, 10 + 2 * i, "busy");
        FX_POP(&t.fx, 1, 11 + 2 * i);
    }
    FX_POP(&t.fx, 0, 200000);
    char *text = tx_finish(&t);
    const char *first = strchr(text, '\n') + 1;
    assert_memory_equal(first, "           [   100] | waiting() {\n", 33);
    size_t len = strlen(text);
    const char *last = "200.000 us [   100] | } /* waiting */\n";
    assert_true(len > strlen(last));
    assert_string_equal(text + len - strlen(last), last);
    free(text);
}

/* 5000 levels: every one printed, none longer than a few hundred chars. */
static void test_deep(void **state)
{
    (void)state;
    struct ct_options o = {0};
    struct tx t;
    tx_init(&t, &o);
    for (uint64_t i = 0; i < 5000; i++)
        FX_CALL(&t.fx, 0, i, "deep");
    for (uint64_t i = 0; i < 5000; i++)
        FX_POP(&t.fx, 0, 5000 + i);
    char *text = tx_finish(&t);
    size_t lines = 0, longest = 0;
    for (char *p = text, *nl; (nl = strchr(p, '\n')); p = nl + 1) {
        lines++;
        if ((size_t)(nl - p) > longest)
            longest = (size_t)(nl - p);
    }
    assert_int_equal(lines, 1 + 4999 + 1 + 4999);
    assert_true(longest < 200);
    assert_non_null(strstr(text, "(4999) deep();\n"));
    assert_non_null(strstr(text, "(100) deep() {\n"));
    free(text);
}

#define HEAD_ONCPU "#   DURATION     ON-CPU     TID     FUNCTION\n"

/* A pause of tracing inside work: no record from 20 to 700, the thread off
 * the CPU from 30 to 600 (asleep in the pause).  Then the tracer's own
 * work (S..E, 700 to 800) with the thread off the CPU inside it. */
static void pause_and_overhead(struct tx *t)
{
    t->fx.info.oncpu = CT_ONCPU_SWITCH;
    FX_CALL(&t->fx, 0, 0, "main");
    FX_CALL(&t->fx, 0, 10, "work");
    FX_CALL(&t->fx, 0, 15, "pause");
    FX_POP(&t->fx, 0, 20);
    fx_ev(&t->fx, CT_EV_OFFCPU_START, 0, 30, CT_FUNC_NONE);
    fx_ev(&t->fx, CT_EV_OFFCPU_END, 0, 600, CT_FUNC_NONE);
    fx_ev(&t->fx, CT_EV_OVERHEAD_START, 0, 700, CT_FUNC_NONE);
    fx_ev(&t->fx, CT_EV_OFFCPU_START, 0, 720, CT_FUNC_NONE);
    fx_ev(&t->fx, CT_EV_OFFCPU_END, 0, 780, CT_FUNC_NONE);
    fx_ev(&t->fx, CT_EV_OVERHEAD_END, 0, 800, CT_FUNC_NONE);
    FX_POP(&t->fx, 0, 900);
    FX_POP(&t->fx, 0, 1000);
}

/* The paused time is work's, its off-CPU part too; the tracer's time is
 * neither the call's duration nor its off-CPU time. */
static void test_oncpu_pause(void **state)
{
    (void)state;
    struct ct_options o = {0};
    struct tx t;
    tx_init(&t, &o);
    pause_and_overhead(&t);
    expect_text(tx_finish(&t),
        HEAD_ONCPU
        "                      [   100] | main() {\n"
        "                      [   100] |   work() {\n"
        "  5.000 ns   5.000 ns [   100] |     pause();\n"
        "790.000 ns 220.000 ns [   100] |   } /* work */ [tracer 100.000 ns]\n"
        "900.000 ns 330.000 ns [   100] | } /* main */ [tracer 100.000 ns]\n");
}

/* In a window that begins inside the pause, the time asleep before it is
 * nobody's: on-CPU is the window's, as the profile clips it. */
static void test_oncpu_window(void **state)
{
    (void)state;
    struct ct_options o = {.view.have_range = true, .view.range_from_ns = 300,
                           .view.range_to_ns = 850};
    struct tx t;
    tx_init(&t, &o);
    pause_and_overhead(&t);
    expect_text(tx_finish(&t),
        HEAD_ONCPU
        "                      [   100] | main() { /* already open */\n"
        "                      [   100] |   work() { /* already open */\n"
        "450.000 ns 150.000 ns [   100] |   } /* work: window ends */ [tracer 100.000 ns]\n"
        "450.000 ns 150.000 ns [   100] | } /* main: window ends */ [tracer 100.000 ns]\n");
}

/* A window wholly inside the pause: no event of the thread in it, work
 * open all through it, asleep until 600, on the CPU after. */
static void test_oncpu_window_in_pause(void **state)
{
    (void)state;
    struct ct_options o = {.view.have_range = true, .view.range_from_ns = 100,
                           .view.range_to_ns = 650};
    struct tx t;
    tx_init(&t, &o);
    pause_and_overhead(&t);
    expect_text(tx_finish(&t),
        HEAD_ONCPU
        "                      [   100] | main() { /* already open */\n"
        "                      [   100] |   work() { /* already open */\n"
        "550.000 ns  50.000 ns [   100] |   } /* work: window ends */\n"
        "550.000 ns  50.000 ns [   100] | } /* main: window ends */\n");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nesting_and_leaves),
        cmocka_unit_test(test_overhead_taken_out),
        cmocka_unit_test(test_bias_split),
        cmocka_unit_test(test_inherited_and_never_returned),
        cmocka_unit_test(test_threads_interleaved),
        cmocka_unit_test(test_threads_sections),
        cmocka_unit_test(test_min_duration),
        cmocka_unit_test(test_focus_and_depth),
        cmocka_unit_test(test_hide),
        cmocka_unit_test(test_lookahead_bound),
        cmocka_unit_test(test_deep),
        cmocka_unit_test(test_oncpu_pause),
        cmocka_unit_test(test_oncpu_window),
        cmocka_unit_test(test_oncpu_window_in_pause),
        cmocka_unit_test(test_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
