/* The diff of two runs' matching and order (diff_match.c): functions by
 * name and file, by name alone when that is unambiguous, duplicates of a
 * run summed, arcs by their ends, the sort by the size of the change and
 * the --threshold test. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "analyzer/report/diff_match.h"

#define V(c, s, t) {.calls = (c), .self_ns = (s), .total_ns = (t)}

static const struct ct_diff_row *find(const struct ct_diff *d,
                                      const char *name, const char *file)
{
    for (size_t i = 0; i < d->nfuncs; i++)
        if (!strcmp(d->funcs[i].name, name) &&
            !strcmp(d->funcs[i].file ? d->funcs[i].file : "",
                    file ? file : ""))
            return &d->funcs[i];
    return NULL;
}

static void by_name_and_file(void **state)
{
    (void)state;
    struct ct_diff_fn old[] = {
        {"main", "m.c", V(1, 10, 100)},
        {"helper", "a.c", V(3, 5, 5)},
        {"helper", "b.c", V(2, 4, 4)},
        {"gone", "m.c", V(3, 2, 2)},
        {"dup", "m.c", V(1, 1, 1)},
        {"dup", "m.c", V(2, 1, 1)},   /* loaded twice: summed */
        {"idle", "m.c", V(0, 0, 0)},  /* never called: left out */
        {NULL, NULL, V(1, 1, 1)},     /* nameless: left out */
    };
    struct ct_diff_fn new[] = {
        {"helper", "b.c", V(6, 12, 12)},
        {"main", "m.c", V(1, 10, 90)},
        {"helper", "a.c", V(3, 5, 5)},
        {"fresh", "m.c", V(4, 1, 1)},
        {"dup", "m.c", V(3, 2, 2)},
    };
    struct ct_diff_side side[2] = {{old, 8, NULL, 0}, {new, 5, NULL, 0}};
    struct ct_diff d;
    ct_diff_build(&d, side);
    assert_int_equal(d.nfuncs, 6);
    const struct ct_diff_row *r = find(&d, "helper", "b.c");
    assert_non_null(r);
    assert_true(r->in[0] && r->in[1]);
    assert_int_equal(r->v[0].calls, 2);
    assert_int_equal(r->v[1].calls, 6);
    r = find(&d, "helper", "a.c");
    assert_int_equal(r->v[0].calls, 3);
    assert_int_equal(r->v[1].calls, 3);
    r = find(&d, "gone", "m.c");
    assert_true(r->in[0] && !r->in[1]);
    r = find(&d, "fresh", "m.c");
    assert_true(!r->in[0] && r->in[1]);
    r = find(&d, "dup", "m.c");
    assert_int_equal(r->v[0].calls, 3);
    assert_true(r->v[0].self_ns == 2);
    assert_null(find(&d, "idle", "m.c"));
    ct_diff_free(&d);
}

static void by_name_alone(void **state)
{
    (void)state;
    /* f lost its file in the new build; g is ambiguous (two old files,
     * one new without a file) and stays apart */
    struct ct_diff_fn old[] = {
        {"f", "a.c", V(1, 1, 1)},
        {"g", "a.c", V(1, 1, 1)},
        {"g", "b.c", V(1, 1, 1)},
    };
    struct ct_diff_fn new[] = {
        {"f", NULL, V(2, 1, 1)},
        {"g", NULL, V(1, 1, 1)},
    };
    struct ct_diff_arc old_arcs[] = {
        {CT_DIFF_NONE, 0, V(1, 1, 1)},
        {0, 1, V(1, 1, 1)},
    };
    struct ct_diff_arc new_arcs[] = {
        {CT_DIFF_NONE, 0, V(2, 1, 1)},
        {0, 1, V(1, 1, 1)},
    };
    struct ct_diff_side side[2] = {{old, 3, old_arcs, 2},
                                   {new, 2, new_arcs, 2}};
    struct ct_diff d;
    ct_diff_build(&d, side);
    assert_int_equal(d.nfuncs, 4);
    const struct ct_diff_row *f = find(&d, "f", "a.c");
    assert_non_null(f);
    assert_true(f->in[0] && f->in[1]);
    assert_int_equal(f->v[1].calls, 2);
    assert_non_null(find(&d, "g", NULL));
    assert_false(find(&d, "g", "a.c")->in[1]);
    /* the spontaneous arc into f is one row across the builds; f -> g
     * is two: the g of a.c and the g without a file */
    assert_int_equal(d.narcs, 3);
    size_t fi = (size_t)(f - d.funcs);
    int seen = 0;
    for (size_t i = 0; i < d.narcs; i++)
        if (d.arcs[i].caller == CT_DIFF_NONE) {
            assert_int_equal(d.arcs[i].callee, fi);
            assert_true(d.arcs[i].in[0] && d.arcs[i].in[1]);
            assert_int_equal(d.arcs[i].v[0].calls, 1);
            assert_int_equal(d.arcs[i].v[1].calls, 2);
            seen++;
        }
    assert_int_equal(seen, 1);
    ct_diff_free(&d);
}

static void sorted_by_change(void **state)
{
    (void)state;
    struct ct_diff_fn old[] = {
        {"small", NULL, V(1, 10, 10)},
        {"big", NULL, V(1, 100, 100)},
        {"calls", NULL, V(5, 1, 50)},
        {"tie_b", NULL, V(1, 1, 1)},
        {"tie_a", NULL, V(1, 1, 1)},
        {"total", NULL, V(1, 1, 10)},
    };
    struct ct_diff_fn new[] = {
        {"small", NULL, V(1, 12, 12)},   /* +2 self               */
        {"big", NULL, V(1, 10, 10)},     /* -90 self: first       */
        {"calls", NULL, V(9, 1, 50)},    /* calls only            */
        {"tie_b", NULL, V(1, 1, 1)},
        {"tie_a", NULL, V(1, 1, 1)},
        {"total", NULL, V(1, 1, 30)},    /* +20 total, no self    */
    };
    struct ct_diff_side side[2] = {{old, 6, NULL, 0}, {new, 6, NULL, 0}};
    struct ct_diff d;
    ct_diff_build(&d, side);
    ct_diff_sort(d.funcs, d.nfuncs, &d);
    const char *want[] = {"big", "small", "total", "calls", "tie_a",
                          "tie_b"};
    assert_int_equal(d.nfuncs, 6);
    for (size_t i = 0; i < 6; i++)
        assert_string_equal(d.funcs[i].name, want[i]);
    /* --threshold: 5 ns hides small (+2) and the ties, never calls */
    assert_true(ct_diff_shown(&d.funcs[0], 5));
    assert_false(ct_diff_shown(&d.funcs[1], 5));
    assert_true(ct_diff_shown(&d.funcs[2], 5));
    assert_true(ct_diff_shown(&d.funcs[3], 1e9));
    assert_false(ct_diff_shown(&d.funcs[4], 5));
    assert_true(ct_diff_shown(&d.funcs[4], 0));
    ct_diff_free(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(by_name_and_file),
        cmocka_unit_test(by_name_alone),
        cmocka_unit_test(sorted_by_change),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
