/* The callgrind and dot writers: exact output for a small hand-made
 * profile (main calls a twice and b once; a calls b; b recurses once),
 * with the tick length 2 ns so that every figure is converted. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "analyzer/writers/export.h"
#include "analyzer/model/view_opts.h"
#include "profile_fixture.h"

static void build(struct fx *x)
{
    fx_init(x);
    x->info.ns_per_tick = 2.0;
    FX_CALL(x, 0, 0, "main");
    FX_CALL(x, 0, 10, "a");      /* a: 10..30, b inside 15..25 */
    FX_CALL(x, 0, 15, "b");
    FX_POP(x, 0, 25);
    FX_POP(x, 0, 30);
    FX_CALL(x, 0, 40, "a");      /* a: 40..45 */
    FX_POP(x, 0, 45);
    FX_CALL(x, 0, 50, "b");      /* b: 50..70, recursing 55..60 */
    FX_CALL(x, 0, 55, "b");
    FX_POP(x, 0, 60);
    FX_POP(x, 0, 70);
    FX_POP(x, 0, 100);
    ct_profile_finish(x->p);
}

static char *export(struct fx *x, const char *format,
                    const struct ct_view_opts *opts)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    struct ct_exporter *ex = ct_exporter_new(format, out, &x->info, opts);
    assert_non_null(ex);
    assert_int_equal(ex->finish(ex, x->p), 0);
    ex->free(ex);
    fclose(out);
    return buf;
}

static void callgrind_exact(void **state)
{
    (void)state;
    struct fx x;
    build(&x);
    char *got = export(&x, "callgrind", NULL);
    /* self: main 100-20-5-20 = 55 ticks, a 10+5 = 15, b 10+20 = 30;
     * in ns (x2): 110, 30, 60; total 200.  main -> a: 2 calls, 25 ticks
     * (a 20 + b 10) = 50 ns; main -> b: 20 ticks = 40 ns; a -> b 10
     * ticks = 20 ns; b -> b: count only. */
    assert_string_equal(got,
        "# callgrind format\nversion: 1\n"
        "creator: calltrace " CALLTRACE_VERSION "\n"
        "part: 1\n\n"
        "event: ns : Wall time in nanoseconds (exact, calltrace)\n"
        "events: ns\nsummary: 200\n\n"
        "ob=???\nfl=???\nfn=main\n0 110\n"
        "cob=???\ncfl=???\ncfn=a\ncalls=2 0\n0 50\n"
        "cob=???\ncfl=???\ncfn=b\ncalls=1 0\n0 40\n\n"
        "ob=???\nfl=???\nfn=a\n0 30\n"
        "cob=???\ncfl=???\ncfn=b\ncalls=1 0\n0 20\n\n"
        "ob=???\nfl=???\nfn=b\n0 60\n"
        "cob=???\ncfl=???\ncfn=b\ncalls=1 0\n0 0\n\n"
        "totals: 200\n");
    free(got);
    fx_free(&x);
}

static void dot_exact(void **state)
{
    (void)state;
    struct fx x;
    build(&x);
    struct ct_view_opts o = {.node_threshold = 25, .edge_threshold = 15};
    char *got = export(&x, "dot", &o);
    /* a's total is 25% of 200 ns (kept at 25), b's 30 ticks = 30%; the
     * arc a -> b is 10% (left out), main -> b 20%, main -> a 25%. */
    assert_non_null(strstr(got, "  f0 [label=\"main\\n100.00%\\n(55.00%)\\n"
                                "200 ns total\\n110 ns self\\n1\xc3\x97\""));
    assert_non_null(strstr(got, "  f1 [label=\"a\\n25.00%\\n(15.00%)\\n"
                                "50 ns total\\n30 ns self\\n2\xc3\x97\""));
    assert_non_null(strstr(got, "  f2 [label=\"b\\n30.00%\\n(30.00%)\\n"
                                "60 ns total\\n60 ns self\\n2+1\xc3\x97\""));
    assert_non_null(strstr(got, "  f0 -> f1 [label=\"50 ns (25.00%)\\n2\xc3\x97\""));
    assert_non_null(strstr(got, "  f0 -> f2 [label=\"40 ns (20.00%)\\n1\xc3\x97\""));
    assert_non_null(strstr(got, "  f2 -> f2 [label=\"1\xc3\x97\""));
    assert_null(strstr(got, "f1 -> f2"));
    free(got);

    o.node_threshold = 26;  /* a goes, and every arc to it */
    got = export(&x, "dot", &o);
    assert_null(strstr(got, "  f1 ["));
    assert_null(strstr(got, "-> f1"));
    free(got);
    fx_free(&x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(callgrind_exact),
        cmocka_unit_test(dot_exact),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
