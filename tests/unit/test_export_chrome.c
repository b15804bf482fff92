/* The chrome exporter: the exact JSON of a small trace (a call that never
 * returns, overhead, a user event needing escapes, lost events, frames
 * open before the data and at its end), and the escaping of names and
 * messages: quotes, control characters, invalid UTF-8. */
#include "export_fixture.h"
#include "analyzer/writers/textesc.h"

#define EV(ph, tid, ts) "{\"ph\":\"" ph "\",\"pid\":42,\"tid\":" tid \
                        ",\"ts\":" ts

static void exact_output(void **state)
{
    (void)state;
    struct ex e;
    ex_init(&e, "chrome");
    static const char msg[] = "say \"hi\"\n";
    ex_ev(&e, CT_EV_CALL, 0, 1000, "main");
    ex_text(&e, CT_EV_USER, 0, 1500, msg, sizeof msg - 1, 0);
    ex_ev(&e, CT_EV_CALL, 0, 2000, "f");
    ex_text(&e, CT_EV_LOST, 0, 2500, NULL, 0, 3);
    ex_ev(&e, CT_EV_OVERHEAD_START, 0, 2600, NULL);
    ex_ev(&e, CT_EV_OVERHEAD_END, 0, 2700, NULL);
    ex_ev(&e, CT_EV_RETURN, 0, 3000, "main");  /* f never returned */
    const char *open[] = {"main"};
    ex_stack(&e, CT_EV_STACK, 1, 4000, open, 1, 0);
    ex_ev(&e, CT_EV_CALL, 1, 4001, "g");       /* open at the end */
    assert_int_equal(ex_finish(&e), 0);
    assert_string_equal(e.buf,
        "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"source\":\"test.trace\","
        "\"format\":\"calltrace\",\"clock\":\"\"},\"traceEvents\":[\n"
        EV("B", "100", "0.000") ",\"cat\":\"call\",\"name\":\"main\"},\n"
        EV("i", "100", "0.500") ",\"s\":\"t\",\"cat\":\"user\","
            "\"name\":\"say \\\"hi\\\"\\n\"},\n"
        EV("B", "100", "1.000") ",\"cat\":\"call\",\"name\":\"f\"},\n"
        EV("i", "100", "1.500") ",\"s\":\"t\",\"cat\":\"calltrace-lost\","
            "\"name\":\"lost events\",\"args\":{\"count\":3}},\n"
        EV("B", "100", "1.600") ",\"cat\":\"calltrace-overhead\","
            "\"name\":\"calltrace overhead\"},\n"
        EV("E", "100", "1.700") ",\"name\":\"calltrace overhead\"},\n"
        EV("E", "100", "1.700") ",\"name\":\"f\","
            "\"args\":{\"never_returned\":true}},\n"
        EV("E", "100", "2.000") ",\"name\":\"main\"},\n"
        EV("B", "200", "3.000") ",\"cat\":\"call\",\"name\":\"main\","
            "\"args\":{\"entered_before_data\":true}},\n"
        EV("B", "200", "3.001") ",\"cat\":\"call\",\"name\":\"g\"},\n"
        EV("E", "200", "3.001") ",\"name\":\"g\","
            "\"args\":{\"never_returned\":true}},\n"
        EV("E", "200", "3.001") ",\"name\":\"main\","
            "\"args\":{\"entered_before_data\":true,"
            "\"never_returned\":true}},\n"
        "{\"ph\":\"M\",\"pid\":42,\"tid\":0,\"name\":\"process_name\","
            "\"args\":{\"name\":\"test.trace\"}},\n"
        "{\"ph\":\"M\",\"pid\":42,\"tid\":100,\"name\":\"thread_name\","
            "\"args\":{\"name\":\"thread 100\"}},\n"
        "{\"ph\":\"M\",\"pid\":42,\"tid\":200,\"name\":\"thread_name\","
            "\"args\":{\"name\":\"thread 200\"}}\n"
        "]}\n");
    /* the same story as the report: calls and frames open at the end */
    assert_int_equal(e.p->counts.calls, 3);
    assert_int_equal(e.p->counts.unmatched_calls, 1);
    assert_int_equal(e.p->counts.open_at_end, 2);
    ex_free(&e);
}

static char *json(const char *s, size_t n)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    ct_json_string(m, s, n);
    fclose(m);
    return buf;
}

static void escaping(void **state)
{
    (void)state;
    static const struct {
        const char *in;
        size_t n;
        const char *out;
    } cases[] = {
        {"a\"b\\c", 5, "\"a\\\"b\\\\c\""},
        {"\x01\x1f\x7f", 3, "\"\\u0001\\u001f\x7f\""},
        {"t\tn\nr\rb\bf\f", 10, "\"t\\tn\\nr\\rb\\bf\\f\""},
        {"nul\0x", 5, "\"nul\\u0000x\""},
        {"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 14,
         "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\""},
        /* stray continuation, truncated, overlong, surrogate, > U+10FFFF */
        {"\x80|\xe2\x82|\xc0\xaf|\xed\xa0\x80|\xf4\x90\x80\x80", 16,
         "\"\xef\xbf\xbd|\xef\xbf\xbd\xef\xbf\xbd|\xef\xbf\xbd\xef\xbf\xbd|"
         "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd|"
         "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\""},
        {"std::map<int, std::string>::operator[](int const&)", 50,
         "\"std::map<int, std::string>::operator[](int const&)\""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *got = json(cases[i].in, cases[i].n);
        assert_string_equal(got, cases[i].out);
        free(got);
    }
}

static void sampled_stacks(void **state)
{
    (void)state;
    struct ex e;
    ex_init(&e, "chrome");
    e.info.sampled = true;
    const char *s1[] = {"leaf", "main"}, *s2[] = {"main"};
    ex_stack(&e, CT_EV_SAMPLE, 0, 0, s1, 2, 1);
    ex_stack(&e, CT_EV_SAMPLE, 0, 10, s1, 2, 1);
    ex_stack(&e, CT_EV_SAMPLE, 0, 20, s2, 1, 1);
    assert_int_equal(ex_finish(&e), 0);
    const char *want =
        EV("B", "100", "0.000") ",\"cat\":\"sample\",\"name\":\"main\"},\n"
        EV("B", "100", "0.000") ",\"cat\":\"sample\",\"name\":\"leaf\"},\n"
        EV("E", "100", "0.020") ",\"name\":\"leaf\"},\n"
        EV("E", "100", "0.020") ",\"name\":\"main\"},\n";
    const char *body = strstr(e.buf, "[\n") + 2;
    assert_memory_equal(body, want, strlen(want));
    ex_free(&e);
}

/* A chrome export of a --time-range window [1000, 3000] ns, the trace's
 * first time 0 and a tick of ns_per_tick ns, with the profile beside it
 * for the report's figures. */
static void window_init(struct ex *e, struct ct_range_filter *range,
                        double ns_per_tick)
{
    ex_init(e, "chrome");
    e->info.ns_per_tick = ns_per_tick;
    e->info.have_first_time = true;
    e->info.first_time = 0;
    e->opts.view.have_range = true;
    e->opts.view.range_from_ns = 1000;
    e->opts.view.range_to_ns = 3000;
    ct_range_filter_init(range, &e->x->sink, &e->info, 1000, 3000);
    e->x->range = range;
    struct ct_profile_opts po = {.have_range = true, .range_from_ns = 1000,
                                 .range_to_ns = 3000};
    e->p = ct_profile_new(&e->info, &po);
    ct_tee_init(&e->tee, ct_profile_sink(e->p), &range->sink);
}

/* A --time-range window [1000, 3000] that begins and ends inside a pause
 * of tracing in f (nothing recorded from 500 to 5000, the thread asleep
 * from 600 to 4000): f and main are slices from the window's start to its
 * end, whatever the scheduler's records, as the profile charges them. */
static void window_inside_pause(void **state)
{
    (void)state;
    struct ex e;
    struct ct_range_filter range;
    window_init(&e, &range, 1.0);
    ex_ev(&e, CT_EV_CALL, 0, 0, "main");
    ex_ev(&e, CT_EV_CALL, 0, 100, "f");
    ex_ev(&e, CT_EV_OFFCPU_START, 0, 600, NULL);
    ex_ev(&e, CT_EV_OFFCPU_END, 0, 4000, NULL);
    ex_ev(&e, CT_EV_CALL, 0, 5000, "g");
    ex_ev(&e, CT_EV_RETURN, 0, 5100, NULL);
    ex_ev(&e, CT_EV_RETURN, 0, 6000, NULL);
    ex_ev(&e, CT_EV_RETURN, 0, 7000, NULL);
    assert_int_equal(ex_finish(&e), 0);
    assert_string_equal(e.buf,
        "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"source\":\"test.trace\","
        "\"format\":\"calltrace\",\"clock\":\"\"},\"traceEvents\":[\n"
        EV("B", "100", "1.000") ",\"cat\":\"call\",\"name\":\"main\","
            "\"args\":{\"entered_before_data\":true}},\n"
        EV("B", "100", "1.000") ",\"cat\":\"call\",\"name\":\"f\","
            "\"args\":{\"entered_before_data\":true}},\n"
        /* each E has its B's args, as viewers pair them; the mark is an
         * instant of its own */
        EV("E", "100", "3.000") ",\"name\":\"f\","
            "\"args\":{\"entered_before_data\":true}},\n"
        EV("i", "100", "3.000") ",\"s\":\"t\",\"cat\":\"calltrace-window\","
            "\"name\":\"open at window end\",\"args\":{\"function\":\"f\"}},\n"
        EV("E", "100", "3.000") ",\"name\":\"main\","
            "\"args\":{\"entered_before_data\":true}},\n"
        EV("i", "100", "3.000") ",\"s\":\"t\",\"cat\":\"calltrace-window\","
            "\"name\":\"open at window end\",\"args\":{\"function\":\"main\"}},\n"
        "{\"ph\":\"M\",\"pid\":42,\"tid\":0,\"name\":\"process_name\","
            "\"args\":{\"name\":\"test.trace\"}},\n"
        "{\"ph\":\"M\",\"pid\":42,\"tid\":100,\"name\":\"thread_name\","
            "\"args\":{\"name\":\"thread 100\"}}\n"
        "]}\n");
    /* the report's figures for the same window: f's 2000 ns, all self */
    uint32_t f = ex_fn(&e, "f");
    assert_int_equal(e.p->funcs[f].self_ticks, 2000);
    assert_int_equal(e.p->funcs[f].off_self_ticks, 2000);
    ct_range_filter_free(&range);
    ex_free(&e);
}

/* A clock whose tick is shorter than a ns (the TSC's): ts in ps, so that
 * a return a tick after a --time-range window's start does not print the
 * ts the frames open there begin at (speedscope takes an E before a B of
 * another name at the same ts, and ended f before main began). */
static void ticks_below_a_ns(void **state)
{
    (void)state;
    struct ex e;
    struct ct_range_filter range;
    window_init(&e, &range, 0.4);
    ex_ev(&e, CT_EV_CALL, 0, 0, "main");
    ex_ev(&e, CT_EV_CALL, 0, 100, "f");
    ex_ev(&e, CT_EV_RETURN, 0, 2501, NULL);   /* 1000.4 ns: f   */
    ex_ev(&e, CT_EV_RETURN, 0, 2600, NULL);   /* 1040 ns: main  */
    assert_int_equal(ex_finish(&e), 0);
    const char *body = strstr(e.buf, "[\n") + 2;
    const char *want =
        EV("B", "100", "1.000000") ",\"cat\":\"call\",\"name\":\"main\","
            "\"args\":{\"entered_before_data\":true}},\n"
        EV("B", "100", "1.000000") ",\"cat\":\"call\",\"name\":\"f\","
            "\"args\":{\"entered_before_data\":true}},\n"
        EV("E", "100", "1.000400") ",\"name\":\"f\","
            "\"args\":{\"entered_before_data\":true}},\n"
        EV("E", "100", "1.040000") ",\"name\":\"main\","
            "\"args\":{\"entered_before_data\":true}},\n";
    assert_memory_equal(body, want, strlen(want));
    ct_range_filter_free(&range);
    ex_free(&e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(exact_output),
        cmocka_unit_test(escaping),
        cmocka_unit_test(sampled_stacks),
        cmocka_unit_test(window_inside_pause),
        cmocka_unit_test(ticks_below_a_ns),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
