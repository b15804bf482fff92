/* ct_name_match / ct_name_select: globs, exact names, C++ names without
 * their parameter list or qualification, unique and ambiguous prefixes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "analyzer/model/match.h"

static void single_names(void **state)
{
    (void)state;
    assert_int_equal(ct_name_match("main", "main"), CT_MATCH_EXACT);
    assert_int_equal(ct_name_match("mai", "main"), CT_MATCH_PREFIX);
    assert_int_equal(ct_name_match("mainx", "main"), CT_MATCH_NO);
    assert_int_equal(ct_name_match("", "main"), CT_MATCH_NO);
    assert_int_equal(ct_name_match("f*", "fib"), CT_MATCH_EXACT);
    assert_int_equal(ct_name_match("*b", "fib"), CT_MATCH_EXACT);
    assert_int_equal(ct_name_match("f?b", "fib"), CT_MATCH_EXACT);
    assert_int_equal(ct_name_match("[a-f]ib", "fib"), CT_MATCH_EXACT);
    assert_int_equal(ct_name_match("x*", "fib"), CT_MATCH_NO);
    /* a glob matches whole names only: no prefix sense */
    assert_int_equal(ct_name_match("fi?", "fibo"), CT_MATCH_NO);
}

static void cxx_names(void **state)
{
    (void)state;
    const char *n = "ns::Shape::area(int) const";
    assert_int_equal(ct_name_match(n, n), CT_MATCH_EXACT);
    assert_int_equal(ct_name_match("ns::Shape::area", n), CT_MATCH_EXACT);
    assert_int_equal(ct_name_match("Shape::area", n), CT_MATCH_EXACT);
    assert_int_equal(ct_name_match("area", n), CT_MATCH_EXACT);
    /* "rea" is not a qualified part of the name */
    assert_int_equal(ct_name_match("rea", n), CT_MATCH_NO);
    assert_int_equal(ct_name_match("ns::Sh", n), CT_MATCH_PREFIX);
    assert_int_equal(ct_name_match("ns::*", n), CT_MATCH_EXACT);
    assert_int_equal(ct_name_match("*::area", n), CT_MATCH_EXACT);
    /* template instances, with their return type in front */
    const char *t = "int shapes::area<int>(int, int)";
    assert_int_equal(ct_name_match("shapes::area<int>", t), CT_MATCH_EXACT);
    assert_int_equal(ct_name_match("shapes::area", t), CT_MATCH_EXACT);
    assert_int_equal(ct_name_match("area", t), CT_MATCH_EXACT);
    assert_int_equal(ct_name_match("shapes::ar", t), CT_MATCH_PREFIX);
    assert_int_equal(ct_name_match("int", t), CT_MATCH_PREFIX);
    assert_int_equal(ct_name_match("*area*", t), CT_MATCH_EXACT);
    assert_int_equal(ct_name_match("f", "(anonymous namespace)::f()"),
                     CT_MATCH_EXACT);
    assert_int_equal(ct_name_match("(anonymous namespace)::f",
                                   "(anonymous namespace)::f()"),
                     CT_MATCH_EXACT);
}

static const char *const names[] = {
    "main", "fib", "fibonacci", "ns::g(int)", "ns::g(double)", NULL,
    "helper_one", "helper_two", "ns::gx()",
    "int shapes::area<int>(int, int)",
    "double shapes::area<double>(double, double)",
    "operator<", "x<", ">", "(", "", "a b c", ":::", "<<>>(",
};
#define N (sizeof names / sizeof names[0])

static void select_sets(void **state)
{
    (void)state;
    bool c[N];
    /* exact wins over the prefix of a longer name */
    assert_int_equal(ct_name_select("fib", names, N, c), CT_SELECT_FOUND);
    assert_true(c[1]);
    assert_false(c[2]);
    /* unique prefix */
    assert_int_equal(ct_name_select("fibo", names, N, c), CT_SELECT_FOUND);
    assert_true(c[2]);
    assert_false(c[1]);
    assert_int_equal(ct_name_select("ma", names, N, c), CT_SELECT_FOUND);
    assert_true(c[0]);
    /* overloads are one function, by name and by prefix */
    assert_int_equal(ct_name_select("g", names, N, c), CT_SELECT_FOUND);
    assert_true(c[3] && c[4]);
    assert_false(c[8]);
    /* ambiguous prefix: the candidates are marked */
    assert_int_equal(ct_name_select("help", names, N, c),
                     CT_SELECT_AMBIGUOUS);
    assert_true(c[6] && c[7]);
    assert_false(c[0]);
    assert_int_equal(ct_name_select("ns::g(", names, N, c),
                     CT_SELECT_FOUND);
    assert_true(c[3] && c[4]);
    assert_int_equal(ct_name_select("ns::", names, N, c),
                     CT_SELECT_AMBIGUOUS);
    /* globs select all they match */
    assert_int_equal(ct_name_select("helper_*", names, N, c),
                     CT_SELECT_FOUND);
    assert_true(c[6] && c[7]);
    /* template instances count as one function for a prefix */
    assert_int_equal(ct_name_select("shapes::a", names, N, c),
                     CT_SELECT_FOUND);
    assert_true(c[9] && c[10]);
    /* odd names do not upset it */
    assert_int_equal(ct_name_select("operator<", names, N, c),
                     CT_SELECT_FOUND);
    assert_true(c[11]);
    assert_int_equal(ct_name_select("nothing", names, N, c),
                     CT_SELECT_NONE);
    assert_int_equal(ct_name_select("zz*", names, N, c), CT_SELECT_NONE);
    for (size_t i = 0; i < N; i++)
        assert_false(c[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(single_names),
        cmocka_unit_test(cxx_names),
        cmocka_unit_test(select_sets),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
