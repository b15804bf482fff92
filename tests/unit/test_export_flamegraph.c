/* The flamegraph exporter: the exact frames of a small trace (places,
 * widths, tooltips, escaping), flame and icicle rows, the root equal to
 * the profile's cpu time, and the refusal of stackless sample counts. */
#include "export_fixture.h"

/* main [0,100): a [10,30), then b [40,100) which calls a [50,60);
 * tid 100; one tick is one ns. */
static void feed(struct ex *e)
{
    ex_ev(e, CT_EV_CALL, 0, 0, "main");
    ex_ev(e, CT_EV_CALL, 0, 10, "a");
    ex_ev(e, CT_EV_RETURN, 0, 30, NULL);
    ex_ev(e, CT_EV_CALL, 0, 40, "b<&>");
    ex_ev(e, CT_EV_CALL, 0, 50, "a");
    ex_ev(e, CT_EV_RETURN, 0, 60, NULL);
    ex_ev(e, CT_EV_RETURN, 0, 100, NULL);
    ex_ev(e, CT_EV_RETURN, 0, 100, NULL);
}

static const char *frames_of(const char *svg)
{
    const char *f = strstr(svg, "<g id=\"frames\">\n");
    assert_non_null(f);
    return f + strlen("<g id=\"frames\">\n");
}

static void flame(void **state)
{
    (void)state;
    struct ex e;
    ex_init(&e, "flamegraph");
    feed(&e);
    assert_int_equal(ex_finish(&e), 0);
    assert_int_equal(e.p->totals.cpu, 100);
    assert_non_null(strstr(e.buf, "data-total=\"100\" data-measure=\"time\""));
    assert_non_null(strstr(e.buf, " height=\"132\" "));  /* 40+4*16+28 */
    /* 1180 px for 100 ns: 11.8 px per ns */
    assert_string_equal(frames_of(e.buf),
        "<g class=\"f\" data-x=\"0.0000\" data-w=\"1180.0000\" data-d=\"0\" "
        "data-v=\"100\" data-n=\"all\"><title>all: 100 ns (100.00%), self "
        "0 ns, 0 calls</title><rect x=\"10.0000\" y=\"88\" "
        "width=\"1180.0000\" height=\"15\" fill=\"rgb(200,200,205)\"/>"
        "<text x=\"13.0000\" y=\"100\">all</text></g>\n"
        "<g class=\"f\" data-x=\"0.0000\" data-w=\"1180.0000\" data-d=\"1\" "
        "data-v=\"100\" data-n=\"main\"><title>main: 100 ns (100.00%), self "
        "20 ns, 1 call</title><rect x=\"10.0000\" y=\"72\" "
        "width=\"1180.0000\" height=\"15\" fill=\"rgb(247,4,43)\"/>"
        "<text x=\"13.0000\" y=\"84\">main</text></g>\n"
        "<g class=\"f\" data-x=\"0.0000\" data-w=\"236.0000\" data-d=\"2\" "
        "data-v=\"20\" data-n=\"a\"><title>a: 20 ns (20.00%), self 20 ns, "
        "1 call</title><rect x=\"10.0000\" y=\"56\" width=\"236.0000\" "
        "height=\"15\" fill=\"rgb(225,151,25)\"/>"
        "<text x=\"13.0000\" y=\"68\">a</text></g>\n"
        "<g class=\"f\" data-x=\"236.0000\" data-w=\"708.0000\" data-d=\"2\" "
        "data-v=\"60\" data-n=\"b&lt;&amp;&gt;\"><title>b&lt;&amp;&gt;: "
        "60 ns (60.00%), self 50 ns, 1 call</title><rect x=\"246.0000\" "
        "y=\"56\" width=\"708.0000\" height=\"15\" fill=\"rgb(238,64,18)\"/>"
        "<text x=\"249.0000\" y=\"68\">b&lt;&amp;&gt;</text></g>\n"
        "<g class=\"f\" data-x=\"236.0000\" data-w=\"118.0000\" data-d=\"3\" "
        "data-v=\"10\" data-n=\"a\"><title>a: 10 ns (10.00%), self 10 ns, "
        "1 call</title><rect x=\"246.0000\" y=\"40\" width=\"118.0000\" "
        "height=\"15\" fill=\"rgb(225,151,25)\"/>"
        "<text x=\"249.0000\" y=\"52\">a</text></g>\n"
        "</g>\n</svg>\n");
    ex_free(&e);
}

static void icicle_calls(void **state)
{
    (void)state;
    struct ex e;
    ex_init(&e, "flamegraph");
    e.opts.view.icicle = true;
    e.opts.view.folded_calls = true;
    feed(&e);
    assert_int_equal(ex_finish(&e), 0);
    assert_non_null(strstr(e.buf, "data-total=\"4\" data-measure=\"calls\""));
    assert_non_null(strstr(e.buf, ">Icicle graph of test.trace (calls)<"));
    /* the root on top, b's a at the bottom; b: 2 calls, its own 1 */
    assert_non_null(strstr(e.buf, "data-n=\"all\"><title>all: 4 calls "
                                  "(100.00%), own 0 calls</title><rect "
                                  "x=\"10.0000\" y=\"40\""));
    assert_non_null(strstr(e.buf, "<title>b&lt;&amp;&gt;: 2 calls (50.00%), "
                                  "own 1 call</title><rect x=\"305.0000\" "
                                  "y=\"72\""));
    assert_non_null(strstr(e.buf, "data-d=\"3\" data-v=\"1\" data-n=\"a\">"
                                  "<title>a: 1 call (25.00%), own 1 call"
                                  "</title><rect x=\"305.0000\" y=\"88\""));
    ex_free(&e);
}

static void label_cut(void **state)
{
    (void)state;
    struct ex e;
    ex_init(&e, "flamegraph");
    ex_ev(&e, CT_EV_CALL, 0, 0, "main");
    ex_ev(&e, CT_EV_CALL, 0, 0, "a_rather_long_function_name");
    ex_ev(&e, CT_EV_RETURN, 0, 3, NULL);
    ex_ev(&e, CT_EV_CALL, 0, 3, "tiny");
    ex_ev(&e, CT_EV_RETURN, 0, 4, NULL);
    ex_ev(&e, CT_EV_RETURN, 0, 100, NULL);
    assert_int_equal(ex_finish(&e), 0);
    /* 35.4 px: (35.4 - 6) / 7 = 4 characters, cut to 2 and ".." */
    assert_non_null(strstr(e.buf, ">a_..</text>"));
    /* 11.8 px: room for fewer than three characters, no label */
    assert_non_null(strstr(e.buf, "data-n=\"tiny\""));
    assert_non_null(strstr(e.buf, "\"></text></g>"));
    ex_free(&e);
}

static void counts_without_stacks(void **state)
{
    (void)state;
    struct ex e;
    ex_init(&e, "flamegraph");
    ct_trace_add_sample_count(&e.info, ex_fn(&e, "main"), 5, 10);
    assert_int_not_equal(ex_finish(&e), 0);
    assert_string_equal(e.buf, "");
    ex_free(&e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(flame),
        cmocka_unit_test(icicle_calls),
        cmocka_unit_test(label_cut),
        cmocka_unit_test(counts_without_stacks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
