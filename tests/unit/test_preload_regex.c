/* The bound on compiling the rule languages' regular expressions
 * (settings/regex_bound.c): the copies counted by construction, a pattern
 * over the bound refused by both parsers with their usual one message,
 * and the ones people write compiled as before.  The refused pattern is
 * the one the settings fuzzer found to take over 2 GB in regcomp. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "settings/args_spec.h"
#include "settings/filter_spec.h"
#include "settings/regex_bound.h"

static const char stacked[] = "^yy++++++++++++++++++++++++++++++++++++++++"
                              "++++++++++++++++++";

static void test_copies(void **state)
{
    (void)state;
    assert_int_equal(ct_re_copies("abc"), 3);
    assert_int_equal(ct_re_copies("a*b?"), 2);          /* loops: no copy */
    assert_int_equal(ct_re_copies("a+"), 2);
    assert_int_equal(ct_re_copies("a++"), 4);           /* stacked */
    assert_int_equal(ct_re_copies("a+b+c+"), 6);        /* in a row: add */
    assert_int_equal(ct_re_copies("(ab)+"), 4);
    assert_int_equal(ct_re_copies("((ab)+)+"), 8);      /* nested */
    assert_int_equal(ct_re_copies("a{3}"), 3);
    assert_int_equal(ct_re_copies("a{2,5}"), 5);
    assert_int_equal(ct_re_copies("a{4,}"), 5);
    assert_int_equal(ct_re_copies("(a{10}){10}"), 100);
    assert_int_equal(ct_re_copies("x|y+"), 3);
    /* escaped and bracketed repetition signs are characters */
    assert_int_equal(ct_re_copies("\\+\\+"), 2);
    assert_int_equal(ct_re_copies("[+{*]"), 1);
    assert_int_equal(ct_re_copies("[]+][[:alpha:]]+"), 3);
    /* `{` that is no bound is a character */
    assert_int_equal(ct_re_copies("a{x"), 3);
    /* saturated just past the bound, however deep */
    assert_int_equal(ct_re_copies(stacked), CT_RE_MAX_COPIES + 1);
    assert_int_equal(ct_re_copies("((a{1000}){1000}){1000}"),
                     CT_RE_MAX_COPIES + 1);
}

/* Parts that may match nothing, copies counted, by construction; a loop
 * over one refused: the fuzzer's inputs that compiled for 39 s, 12 s
 * and 38 s (under its sanitizers). */
static void test_closure(void **state)
{
    (void)state;
    const uint64_t refused = CT_RE_MAX_CLOSURE + 1;
    assert_int_equal(ct_re_closure("abc"), 0);
    assert_int_equal(ct_re_closure("y*"), 1);
    assert_int_equal(ct_re_closure("y+"), 0);            /* matches a y */
    assert_int_equal(ct_re_closure("a??????"), 1);       /* stacked: one */
    assert_int_equal(ct_re_closure("(ab?)+"), 2);        /* b? twice */
    assert_int_equal(ct_re_closure("(ab)?"), 2);
    assert_int_equal(ct_re_closure("(a*b*){3}"), 6);
    assert_int_equal(ct_re_closure("(a*){0,5}"), 5);
    assert_int_equal(ct_re_closure("((y*){2}){1000}"), 2000);
    assert_int_equal(ct_re_closure("^(a|b)*c+$"), 2);
    assert_int_equal(ct_re_closure("(y*){2048}"), 2048);
    assert_int_equal(ct_re_closure("(y*){2049}"), refused);
    /* a loop over a part that may match nothing */
    assert_int_equal(ct_re_closure("(y*)+"), refused);
    assert_int_equal(ct_re_closure("(a|b?)+"), refused);
    assert_int_equal(ct_re_closure("((y*)*)*"), refused);
    assert_int_equal(ct_re_closure("(y?){1,}"), refused);
    assert_int_equal(ct_re_closure("a{0,3}+"), refused);
    assert_int_equal(ct_re_closure("^yy+?++"), refused);
    assert_int_equal(ct_re_closure("(x(y*)+)z"), refused);
    regex_t re;
    assert_int_equal(ct_re_compile(&re, "(y*){2048}"), 0);
    regfree(&re);
    const char *slow[] = {"^yy++?+++++++++++", "^yy*+?++++++++",
                          /* "?" "=" : no trigraph */
                          "^a?????b???????????" "=??????+w?c?????????d????"
                          "=??????+we"};
    for (size_t i = 0; i < sizeof slow / sizeof slow[0]; i++)
        assert_int_equal(ct_re_compile(&re, slow[i]), CT_RE_TOO_NESTED);
    char why[160];
    ct_re_error(CT_RE_TOO_NESTED, NULL, why, sizeof why);
    assert_string_equal(why, "repetitions too deep: it repeats a part that "
                             "may match nothing in a loop (*, + or {m,}), "
                             "or holds more than 2048 such parts");
}

static void test_compile(void **state)
{
    (void)state;
    regex_t re;
    assert_int_equal(ct_re_compile(&re, stacked), CT_RE_TOO_COSTLY);
    char why[128];
    ct_re_error(CT_RE_TOO_COSTLY, NULL, why, sizeof why);
    assert_string_equal(why, "repetitions too deep: compiling it would copy "
                             "its parts more than 16384 times");
    /* what people write compiles as before */
    const char *fine[] = {"^(parse|lex)_.*$", "a+b+c+d+e+f+g+h+", "x{2,40}",
                          "^_Z[0-9]+foo", "(foo.*)+", "^(a|b)*c+$",
                          "(_[a-z]*)+$"};
    for (size_t i = 0; i < sizeof fine / sizeof fine[0]; i++) {
        assert_int_equal(ct_re_compile(&re, fine[i]), 0);
        regfree(&re);
    }
    /* regcomp's own errors still come through */
    int rc = ct_re_compile(&re, "(x");
    assert_true(rc > 0);
    ct_re_error(rc, &re, why, sizeof why);
    assert_true(why[0] != '\0');
}

static void test_parsers(void **state)
{
    (void)state;
    char spec[128], err[256] = "";
    snprintf(spec, sizeof spec, "main,re:%s", stacked);
    struct ct_fspec *f = calloc(1, sizeof *f);
    assert_int_equal(ct_fspec_parse(spec, f, err, sizeof err), -1);
    assert_non_null(strstr(err, "repetitions too deep"));
    free(f);

    snprintf(spec, sizeof spec, "re:%s@arg1", stacked);
    struct ct_args_spec *a = calloc(1, sizeof *a);
    err[0] = '\0';
    assert_int_equal(ct_args_parse(a, spec, err, sizeof err), -1);
    assert_non_null(strstr(err, "repetitions too deep"));
    assert_int_equal(a->nrules, 0);
    ct_args_clear(a);
    free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_copies),
        cmocka_unit_test(test_closure),
        cmocka_unit_test(test_compile),
        cmocka_unit_test(test_parsers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
