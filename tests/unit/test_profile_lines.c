/*
 * Stack samples by source line (profile_lines.c), its --by-line rows and
 * its SamplingProf export, on samples written out by hand with a line
 * table in place of the symbolizer.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "analyzer/writers/export.h"
#include "analyzer/model/view_opts.h"
#include "profile_fixture.h"
#include "analyzer/model/profile_lines.h"
#include "analyzer/report/report.h"

/* The pcs the view must look up: leaf pcs as sampled, return addresses
 * minus one. */
static const struct {
    uint64_t pc;
    const char *file;
    uint32_t line;
} line_table[] = {
    {0x1010, "m.c", 9},  /* main, calling f                         */
    {0x1020, "m.c", 10}, /* main, calling g                         */
    {0x2000, "f.c", 3},  /* f's loop                                 */
    {0x2004, "f.c", 3},  /* the same line, another instruction       */
    {0x2010, "f.c", 5},  /* f calling itself                         */
    {0x3000, NULL, 0},   /* g: no line table                         */
};

static unsigned lookups;

static bool table_line(void *ctx, uint64_t pc, char **file, uint32_t *line)
{
    (void)ctx;
    lookups++;
    for (size_t i = 0; i < sizeof line_table / sizeof line_table[0]; i++)
        if (line_table[i].pc == pc) {
            *file = line_table[i].file ? strdup(line_table[i].file) : NULL;
            *line = line_table[i].line;
            return true;
        }
    fail_msg("looked up pc 0x%llx, which the view should not ask for",
             (unsigned long long)pc);
    return false;
}

static void sample(struct fx *x, uint64_t weight, const char *const *names,
                   const uint64_t *pcs, uint32_t depth)
{
    uint32_t ids[8];
    for (uint32_t i = 0; i < depth; i++)
        ids[i] = fx_fn(x, names[i]);
    struct ct_event ev = {.kind = CT_EV_SAMPLE, .time = 1, .count = weight,
                          .func = CT_FUNC_NONE, .stack = ids, .pcs = pcs,
                          .depth = depth};
    x->sink->event(x->sink, &ev);
}

/* main -> f, twice on the same line (weights 1 and 2); f recursing from
 * its line 5 three deep; main -> g, g without a line. */
static void build(struct fx *x)
{
    fx_init(x);
    x->info.sampled = true;
    x->info.sample_interval_ns = 1000000;
    x->info.pc_line = table_line;
    lookups = 0;
    sample(x, 1, (const char *[]){"f", "main"},
           (const uint64_t[]){0x2000, 0x1011}, 2);
    sample(x, 2, (const char *[]){"f", "main"},
           (const uint64_t[]){0x2004, 0x1011}, 2);
    sample(x, 1, (const char *[]){"f", "f", "f", "f", "main"},
           (const uint64_t[]){0x2000, 0x2011, 0x2011, 0x2011, 0x1011}, 5);
    sample(x, 1, (const char *[]){"g", "main"},
           (const uint64_t[]){0x3000, 0x1021}, 2);
    ct_profile_finish(x->p);
}

static void check_elem(const struct ct_line_profile *lp, uint32_t i,
                       const char *func, const char *file, uint32_t line,
                       uint64_t self, uint64_t total, uint64_t calls,
                       struct fx *x)
{
    assert_true(i < lp->nelems);
    const struct ct_line_elem *e = &lp->elems[i];
    assert_string_equal(ct_functab_name(x->info.funcs, e->func), func);
    if (file)
        assert_string_equal(e->file, file);
    else
        assert_null(e->file);
    assert_int_equal(e->line, line);
    assert_int_equal(e->self, self);
    assert_int_equal(e->total, total);
    assert_int_equal(e->calls, calls);
}

static void test_elements(void **state)
{
    (void)state;
    struct fx x;
    build(&x);
    assert_int_equal(lookups, 0); /* nothing resolved until asked */
    const struct ct_line_profile *lp = ct_profile_lines(x.p);
    assert_non_null(lp);
    assert_int_equal(lookups, 6); /* once per distinct pc */
    assert_int_equal(lp->samples, 5);
    assert_int_equal(lp->ticks_per_sample, 1000000);
    assert_int_equal(lp->nelems, 5);
    check_elem(lp, 0, "main", "m.c", 9, 0, 4, 4, &x);
    check_elem(lp, 1, "f", "f.c", 3, 4, 4, 4, &x);
    check_elem(lp, 2, "f", "f.c", 5, 0, 1, 2, &x);
    check_elem(lp, 3, "main", "m.c", 10, 0, 1, 1, &x);
    check_elem(lp, 4, "g", NULL, 0, 1, 1, 1, &x);
    assert_true(ct_profile_lines(x.p) == lp);
    assert_int_equal(lookups, 6);
    fx_free(&x);
}

static void test_arcs(void **state)
{
    (void)state;
    struct fx x;
    build(&x);
    const struct ct_line_profile *lp = ct_profile_lines(x.p);
    static const struct ct_line_arc want[] = {
        {0, 1, 3},            /* main:9 -> f:3                        */
        {CT_FUNC_NONE, 0, 4}, /* the root -> main:9                   */
        {2, 1, 1},            /* f:5 -> f:3                            */
        {2, 2, 1},            /* f:5 -> f:5 twice in one sample: once  */
        {0, 2, 1},            /* main:9 -> f:5                         */
        {3, 4, 1},            /* main:10 -> g                          */
        {CT_FUNC_NONE, 3, 1},
    };
    assert_int_equal(lp->narcs, sizeof want / sizeof want[0]);
    for (uint32_t i = 0; i < lp->narcs; i++) {
        assert_int_equal(lp->arcs[i].caller, want[i].caller);
        assert_int_equal(lp->arcs[i].callee, want[i].callee);
        assert_int_equal(lp->arcs[i].count, want[i].count);
    }
    fx_free(&x);
}

static void test_export(void **state)
{
    (void)state;
    struct fx x;
    build(&x);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    struct ct_exporter *ex =
        ct_exporter_new("samplingprof", f, &x.info, NULL);
    assert_non_null(ex);
    assert_int_equal(ex->finish(ex, x.p), 0);
    ex->free(ex);
    fclose(f);
    assert_string_equal(buf,
                        "5.000\n"
                        "\n"
                        "m.c:9:main,0\n"
                        "f.c:3:f,1\n"
                        "f.c:5:f,2\n"
                        "m.c:10:main,3\n"
                        "?:0:g,4\n"
                        "\n"
                        "0,0,4\n"
                        "1,4,4\n"
                        "2,0,1\n"
                        "3,0,1\n"
                        "4,1,1\n"
                        "\n"
                        "0,1,3\n"
                        "-1,0,4\n"
                        "2,1,1\n"
                        "2,2,1\n"
                        "0,2,1\n"
                        "3,4,1\n"
                        "-1,3,1\n");
    free(buf);
    fx_free(&x);
}

static char *flat(struct fx *x)
{
    struct ct_view_opts o = {.brief = true, .flat_only = true, .by_line = true};
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_int_equal(ct_report_print(f, x->p, &o), 0);
    fclose(f);
    char *rows = strstr(buf, "  name    \n");
    assert_non_null(rows);
    rows = strdup(rows + strlen("  name    \n"));
    free(buf);
    return rows;
}

/* Rows per sampled line, sorted as the flat profile: self, calls, name. */
static void test_by_line(void **state)
{
    (void)state;
    struct fx x;
    build(&x);
    char *rows = flat(&x);
    assert_string_equal(rows,
        " 80.00  17.89      4.00     4.00        4  1000.00  1000.00  f (f.c:3)\n"
        " 20.00  17.89      5.00     1.00        1  1000.00  1000.00  g\n"
        "  0.00   0.00      5.00     0.00        4     0.00  1000.00  main (m.c:9)\n"
        "  0.00   0.00      5.00     0.00        2     0.00   500.00  f (f.c:5)\n"
        "  0.00   0.00      5.00     0.00        1     0.00  1000.00  main (m.c:10)\n"
        "\f\n");
    free(rows);
    fx_free(&x);
}

/* Without pcs (traced or aggregated data) the rows are the functions, at
 * the file:line the input gives them. */
static void test_by_line_without_pcs(void **state)
{
    (void)state;
    struct fx x;
    fx_init(&x);
    x.info.ns_per_tick = 1e6;
    FX_CALL(&x, 0, 0, "main");
    FX_CALL(&x, 0, 1, "leaf");
    FX_RET(&x, 0, 4, "leaf");
    FX_RET(&x, 0, 10, "main");
    ct_functab_set_source(x.info.funcs, fx_fn(&x, "main"), "m.c", 3, 7);
    ct_profile_finish(x.p);
    assert_null(ct_profile_lines(x.p));
    char *rows = flat(&x);
    assert_string_equal(rows,
        " 70.00      7.00     7.00        1     7.00    10.00  main (m.c:7)\n"
        " 30.00     10.00     3.00        1     3.00     3.00  leaf\n"
        "\f\n");
    free(rows);
    fx_free(&x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_elements),
        cmocka_unit_test(test_arcs),
        cmocka_unit_test(test_export),
        cmocka_unit_test(test_by_line),
        cmocka_unit_test(test_by_line_without_pcs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
