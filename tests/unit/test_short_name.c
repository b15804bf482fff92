/* --short-names: what is elided and what is kept. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "analyzer/report/report_private.h"

static void check(const char *full, const char *want)
{
    char *got = ct_short_name(full);
    assert_string_equal(got, want);
    free(got);
}

static void plain_names_stay(void **state)
{
    (void)state;
    check("main", "main");
    check("leaf", "leaf");
    check("", "");
    check("0x401136", "0x401136");
}

static void parameters_elided(void **state)
{
    (void)state;
    check("shapes::area(int, int)", "shapes::area(...)");
    check("f()", "f()");
    check("Foo::get() const", "Foo::get() const");
    check("g(std::function<void (int)> const&)", "g(...)");
}

static void templates_elided(void **state)
{
    (void)state;
    check("int shapes::area<int>(int, int)", "int shapes::area<...>(...)");
    check("std::vector<int, std::allocator<int> >::push_back(int const&)",
          "std::vector<...>::push_back(...)");
    check("void std::__introsort_loop<__gnu_cxx::__normal_iterator<int*, "
          "std::vector<int, std::allocator<int> > >, long, "
          "__gnu_cxx::__ops::_Iter_comp_iter<main::{lambda(int, int)#1}> >"
          "(__gnu_cxx::__normal_iterator<int*, std::vector<int, "
          "std::allocator<int> > >, __gnu_cxx::__normal_iterator<int*, "
          "std::vector<int, std::allocator<int> > >, long, "
          "__gnu_cxx::__ops::_Iter_comp_iter<main::{lambda(int, int)#1}>)",
          "void std::__introsort_loop<...>(...)");
}

static void lambdas_and_namespaces(void **state)
{
    (void)state;
    check("main::{lambda(int const&, int const&)#1}::operator()"
          "(int const&, int const&) const",
          "main::{lambda(...)#1}::operator()(...) const");
    check("(anonymous namespace)::helper(int)",
          "(anonymous namespace)::helper(...)");
}

static void operators_kept(void **state)
{
    (void)state;
    check("operator<(Point const&, Point const&)", "operator<(...)");
    check("operator<<(std::ostream&, Point const&)", "operator<<(...)");
    check("Matrix::operator()(int, int)", "Matrix::operator()(...)");
    check("Vec<int>::operator[](unsigned long)",
          "Vec<...>::operator[](...)");
    check("my_operator(int)", "my_operator(...)");
}

static void unbalanced_left_alone(void **state)
{
    (void)state;
    check("broken<int(", "broken<int(");
    check("f(int", "f(int");
    check("a>b", "a>b");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(plain_names_stay),
        cmocka_unit_test(parameters_elided),
        cmocka_unit_test(templates_elided),
        cmocka_unit_test(lambdas_and_namespaces),
        cmocka_unit_test(operators_kept),
        cmocka_unit_test(unbalanced_left_alone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
