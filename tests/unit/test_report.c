/* Each report section's text, exactly, for a small hand-made profile:
 * main calls a (which recurses), and the cycle x <-> y. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "analyzer/model/view_opts.h"
#include "profile_fixture.h"
#include "analyzer/report/report.h"

/* One tick = 1 ms. */
static void build(struct fx *x)
{
    fx_init(x);
    x->info.ns_per_tick = 1e6;
    FX_CALL(x, 0, 0, "main");
    FX_CALL(x, 0, 100, "a");
    FX_CALL(x, 0, 300, "a");
    FX_CALL(x, 0, 400, "leaf");
    FX_RET(x, 0, 450, "leaf");
    FX_RET(x, 0, 500, "a");
    FX_RET(x, 0, 700, "a");
    fx_user(x, 0, 750, "halfway");
    FX_CALL(x, 0, 800, "x");
    FX_CALL(x, 0, 900, "y");
    FX_CALL(x, 0, 1000, "x");
    FX_CALL(x, 0, 1100, "leaf");
    FX_RET(x, 0, 1150, "leaf");
    FX_RET(x, 0, 1200, "x");
    FX_RET(x, 0, 1300, "y");
    FX_RET(x, 0, 1400, "x");
    FX_RET(x, 0, 2000, "main");
    fx_ev(x, CT_EV_OVERHEAD_START, 0, 2000, CT_FUNC_NONE);
    fx_ev(x, CT_EV_OVERHEAD_END, 0, 2100, CT_FUNC_NONE);
    ct_profile_finish(x->p);
}

static char *report(const struct ct_view_opts *o)
{
    struct fx x;
    build(&x);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_int_equal(ct_report_print(f, x.p, o), 0);
    fclose(f);
    fx_free(&x);
    return buf;
}

/* The text from the line starting with `from` up to (not including) the
 * line starting with `to` (NULL = end). */
static char *section(const char *text, const char *from, const char *to)
{
    const char *a = strstr(text, from);
    assert_non_null(a);
    const char *b = to ? strstr(a, to) : a + strlen(a);
    assert_non_null(b);
    return strndup(a, (size_t)(b - a));
}

static void check(const char *what, const char *from, const char *to,
                  const char *expected)
{
    struct ct_view_opts o = {.brief = true};
    (void)what;
    char *text = report(&o);
    char *got = section(text, from, to);
    if (strcmp(got, expected) != 0)
        fprintf(stderr, "---- %s: got\n%s---- expected\n%s----\n", what, got,
                expected);
    assert_string_equal(got, expected);
    free(got);
    free(text);
}

static void summary_totals(void **state)
{
    (void)state;
    check("summary", "Total time:", "\nFlat",
          "Total time: 2.00s(functions) 100.00ms(overhead) 0ns(unmetered) "
          "0ns(unknown) 2.10s(elapsed)\n"
          "Wall span: 2.10s (first to last event, all threads)\n"
          "In ticks: 2000 + 100 + 0 + 0 = 2100\n"
          "On-CPU: not recorded; every time here is wall-clock time, on or "
          "off the CPU (tracer without on-CPU records, or "
          "CALLTRACE_CPUTIME=off)\n");
}

static void flat_profile(void **state)
{
    (void)state;
    /* main: 0..100, 700..800, 1400..2000; a: 100..400, 450..700;
     * x: 800..900, 1000..1100, 1150..1200, 1300..1400; y: 900..1000,
     * 1200..1300; leaf: 400..450, 1100..1150 */
    check("flat", "Flat profile:", "\f",
          "Flat profile:\n\n"
          "Every call timed; times are in seconds, per-call times in ms.\n"
          "  %   cumulative   self              self     total           \n"
          " time   seconds   seconds    calls  ms/call  ms/call  name    \n"
          " 40.00      0.80     0.80        1   800.00  2000.00  main [1]\n"
          " 27.50      1.35     0.55        2   275.00   300.00  a [3]\n"
          " 17.50      1.70     0.35        2   175.00   200.00  x [4]\n"
          " 10.00      1.90     0.20        1   200.00   200.00  y [5]\n"
          "  5.00      2.00     0.10        2    50.00    50.00  leaf [6]\n");
}

static void call_graph(void **state)
{
    (void)state;
    check("graph", "\t\t     Call graph", "\f",
          "\t\t     Call graph\n\n"
          "\ngranularity: every call timed; times in seconds, of 2.000000 "
          "seconds\n\n"
          "index % time    self  children    called     name\n"
          "                                                 <spontaneous>\n"
          "[1]    100.0    0.80    1.20       1         main [1]\n"
          "                0.55    0.05       1/1           a [3]\n"
          "                0.55    0.05       1/1           x <cycle 1> [4]\n"
          "-----------------------------------------------\n"
          "[2]     30.0    0.55    0.05       1+2       <cycle 1 as a whole> [2]\n"
          "                0.35    0.05       2             x <cycle 1> [4]\n"
          "                0.20    0.00       1             y <cycle 1> [5]\n"
          "-----------------------------------------------\n"
          "                                   1             a [3]\n"
          "                0.55    0.05       1/1           main [1]\n"
          "[3]     30.0    0.55    0.05       1+1       a [3]\n"
          "                                   1             a [3]\n"
          "                0.05    0.00       1/2           leaf [6]\n"
          "-----------------------------------------------\n"
          "                                   1             y <cycle 1> [5]\n"
          "                0.55    0.05       1/1           main [1]\n"
          "[4]     20.0    0.35    0.05       2         x <cycle 1> [4]\n"
          "                                   1             y <cycle 1> [5]\n"
          "                0.05    0.00       1/2           leaf [6]\n"
          "-----------------------------------------------\n"
          "                                   1             x <cycle 1> [4]\n"
          "[5]     10.0    0.20    0.00       1         y <cycle 1> [5]\n"
          "                                   1             x <cycle 1> [4]\n"
          "-----------------------------------------------\n"
          "                0.05    0.00       1/2           a [3]\n"
          "                0.05    0.00       1/2           x <cycle 1> [4]\n"
          "[6]      5.0    0.10    0.00       2         leaf [6]\n"
          "-----------------------------------------------\n");
}

static void index_section(void **state)
{
    (void)state;
    check("index", "Index by function name", "\f",
          "Index by function name\n\n"
          "   [2] <cycle 1>              [3] a                      [6] leaf\n"
          "   [1] main                   [4] x <cycle 1>            [5] y <cycle 1>\n");
}

static void user_events(void **state)
{
    (void)state;
    check("events", "User events", NULL,
          "User events (time order): 1\n\n"
          "            ms  thread     function                       message\n"
          "    750.000000  100        main                           halfway\n");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(summary_totals),
        cmocka_unit_test(flat_profile),
        cmocka_unit_test(call_graph),
        cmocka_unit_test(index_section),
        cmocka_unit_test(user_events),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
