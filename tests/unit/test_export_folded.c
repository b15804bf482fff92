/* The folded exporter: exact lines for a small trace (overhead left out,
 * a call with no return, frames open before the data, a ';' in a name),
 * their sum equal to the profile's cpu time, calls, threads, the bias,
 * samples, and the refusal of stackless sample counts. */
#include "export_fixture.h"

/* thread 0: main [0,100) calls a, b (with 10 ns of overhead), a (never
 * returns: its frame ends at the previous event) and "semi;colon";
 * thread 1 begins inside main;c. */
static void feed(struct ex *e)
{
    ex_ev(e, CT_EV_CALL, 0, 0, "main");
    ex_ev(e, CT_EV_CALL, 0, 10, "a");
    ex_ev(e, CT_EV_RETURN, 0, 30, NULL);
    ex_ev(e, CT_EV_CALL, 0, 35, "b");
    ex_ev(e, CT_EV_OVERHEAD_START, 0, 40, NULL);
    ex_ev(e, CT_EV_OVERHEAD_END, 0, 50, NULL);
    ex_ev(e, CT_EV_RETURN, 0, 60, "b");
    ex_ev(e, CT_EV_CALL, 0, 60, "a");
    ex_ev(e, CT_EV_CALL, 0, 61, "leaf");
    ex_ev(e, CT_EV_RETURN, 0, 65, "a"); /* leaf: no return, 4 ns unknown */
    ex_ev(e, CT_EV_CALL, 0, 70, "semi;colon");
    ex_ev(e, CT_EV_RETURN, 0, 73, NULL);
    ex_ev(e, CT_EV_RETURN, 0, 100, "main");
    const char *open[] = {"main", "c"};
    ex_stack(e, CT_EV_STACK, 1, 200, open, 2, 0);
    ex_ev(e, CT_EV_RETURN, 1, 210, "c");
}

static uint64_t sum_values(const char *text)
{
    uint64_t sum = 0;
    for (const char *l = text; *l;) {
        const char *nl = strchr(l, '\n');
        const char *sp = l;
        for (const char *q = l; q < nl; q++)
            if (*q == ' ')
                sp = q;
        sum += strtoull(sp + 1, NULL, 10);
        l = nl + 1;
    }
    return sum;
}

static void self_time(void **state)
{
    (void)state;
    struct ex e;
    ex_init(&e, "folded");
    feed(&e);
    assert_int_equal(ex_finish(&e), 0);
    assert_string_equal(e.buf, "main 47\n"
                               "main;a 21\n"
                               "main;b 15\n"
                               "main;semi_colon 3\n"
                               "main;c 10\n");
    /* the leaf that never returned has no self time: the interval up to
     * a's return is the profile's unknown */
    assert_int_equal(sum_values(e.buf), e.p->totals.cpu);
    ex_free(&e);
}

static void calls_and_threads(void **state)
{
    (void)state;
    struct ex e;
    ex_init(&e, "folded");
    e.opts.view.folded_calls = true;
    e.opts.view.per_thread = true;
    e.info.threads[1].tid = 200;
    snprintf(e.info.threads[1].name, sizeof e.info.threads[1].name, "io");
    feed(&e);
    assert_int_equal(ex_finish(&e), 0);
    assert_string_equal(e.buf, "thread 100;main 1\n"
                               "thread 100;main;a 2\n"
                               "thread 100;main;a;leaf 1\n"
                               "thread 100;main;b 1\n"
                               "thread 100;main;semi_colon 1\n");
    assert_int_equal(sum_values(e.buf), e.p->counts.calls);
    ex_free(&e);
}

static void bias(void **state)
{
    (void)state;
    struct ex e;
    ex_init(&e, "folded");
    e.opts.view.subtract_bias = true;
    e.info.bias_ns_per_call = 2;
    feed(&e);
    assert_int_equal(ex_finish(&e), 0);
    /* each called frame loses 2 ns, never below zero (a's second: 1) */
    assert_string_equal(e.buf, "main 45\n"
                               "main;a 18\n"
                               "main;b 13\n"
                               "main;semi_colon 1\n"
                               "main;c 10\n");
    assert_int_equal(sum_values(e.buf), e.p->totals.cpu);
    ex_free(&e);
}

/* A split bias: the caller's part comes off the caller, and the folded
 * values still add up to the profile's cpu time, which the profile takes
 * off by its own code (profile_run.h). */
static void bias_split(void **state)
{
    (void)state;
    struct ex e;
    ex_init(&e, "folded");
    e.opts.view.subtract_bias = true;
    e.info.bias_ns_per_call = 2;
    e.info.bias_child_ns = 1;
    feed(&e);
    assert_int_equal(ex_finish(&e), 0);
    /* as in bias(), and main loses 1 ns for each of its 4 calls that
     * returned to it (a twice, b, semi;colon); a loses none for its leaf,
     * which never returned */
    assert_string_equal(e.buf, "main 41\n"
                               "main;a 18\n"
                               "main;b 13\n"
                               "main;semi_colon 1\n"
                               "main;c 10\n");
    assert_int_equal(sum_values(e.buf), e.p->totals.cpu);
    ex_free(&e);
}

/* The order in which the two parts come off matters where they clamp at
 * zero: the call's own part when it closes, the caller's part when each
 * call returns to it, as the profile takes them.  main has 2 ns before
 * its call, which the caller's part of x's call (2) takes whole; then 6
 * more, from which its own part (3) comes at its return: 3 left.  Taking
 * main's own part first, from the first ns it runs, would leave 5. */
static void bias_order(void **state)
{
    (void)state;
    struct ex e;
    ex_init(&e, "folded");
    e.opts.view.subtract_bias = true;
    e.info.bias_ns_per_call = 3;
    e.info.bias_child_ns = 2;
    ex_ev(&e, CT_EV_CALL, 0, 0, "main");
    ex_ev(&e, CT_EV_CALL, 0, 2, "x");
    ex_ev(&e, CT_EV_RETURN, 0, 12, "x");
    ex_ev(&e, CT_EV_RETURN, 0, 18, "main");
    assert_int_equal(ex_finish(&e), 0);
    assert_string_equal(e.buf, "main 3\n"
                               "main;x 7\n");
    assert_int_equal(sum_values(e.buf), e.p->totals.cpu);
    ex_free(&e);
}

static void rounding_adds_up(void **state)
{
    (void)state;
    struct ex e;
    ex_init(&e, "folded");
    e.info.ns_per_tick = 0.4;    /* 3 ticks = 1.2 ns: rounding shows */
    for (int i = 0; i < 3; i++) {
        char name[8];
        snprintf(name, sizeof name, "f%d", i);
        ex_ev(&e, CT_EV_CALL, 0, 10 * i, name);
        ex_ev(&e, CT_EV_RETURN, 0, 10 * i + 3, NULL);
    }
    assert_int_equal(ex_finish(&e), 0);
    /* running sums 1.2, 2.4, 3.6 ns round to 1, 2, 4 */
    assert_string_equal(e.buf, "f0 1\nf1 1\nf2 2\n");
    ex_free(&e);
}

static void samples(void **state)
{
    (void)state;
    struct ex e;
    ex_init(&e, "folded");
    e.info.sampled = true;
    const char *s1[] = {"leaf", "main"}, *s2[] = {"main"};
    ex_stack(&e, CT_EV_SAMPLE, 0, 10, s1, 2, 1);
    ex_stack(&e, CT_EV_SAMPLE, 0, 20, s2, 1, 3);
    ex_stack(&e, CT_EV_SAMPLE, 1, 20, s1, 2, 2);
    assert_int_equal(ex_finish(&e), 0);
    assert_string_equal(e.buf, "main 3\nmain;leaf 3\n");
    ex_free(&e);
}

static void counts_without_stacks(void **state)
{
    (void)state;
    struct ex e;
    ex_init(&e, "folded");
    e.info.sampled = true;
    ct_trace_add_sample_count(&e.info, ex_fn(&e, "main"), 5, 10);
    assert_int_not_equal(ex_finish(&e), 0);
    assert_string_equal(e.buf, "");
    ex_free(&e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(self_time),
        cmocka_unit_test(calls_and_threads),
        cmocka_unit_test(bias),
        cmocka_unit_test(bias_split),
        cmocka_unit_test(bias_order),
        cmocka_unit_test(rounding_adds_up),
        cmocka_unit_test(samples),
        cmocka_unit_test(counts_without_stacks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
