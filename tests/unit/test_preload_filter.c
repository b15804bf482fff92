/* The record-time filter language (settings/filter_spec.c): items,
 * globs, regular expressions, C++ names, the environment variables and the
 * exact messages for bad syntax. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "preload/filters/filter.h"

static struct ct_fspec *spec;
static char err[256];

static int setup(void **state)
{
    (void)state;
    spec = calloc(1, sizeof *spec);
    err[0] = '\0';
    return spec ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    ct_fspec_free(spec);
    free(spec);
    return 0;
}

static void parse_ok(const char *text)
{
    ct_fspec_free(spec);
    if (ct_fspec_parse(text, spec, err, sizeof err) != 0)
        fail_msg("'%s': %s", text, err);
}

/* "I E T": the include, exclude and trigger rules that match name, as
 * index + 1 (0: none). */
static const char *match(const char *name, const char *demangled)
{
    static char buf[32];
    uint32_t v = ct_fspec_match(spec, name, demangled);
    snprintf(buf, sizeof buf, "%u %u %u", CT_FMATCH_INCLUDE(v),
             CT_FMATCH_EXCLUDE(v), CT_FMATCH_TRIGGER(v));
    return buf;
}

static void test_items(void **state)
{
    (void)state;
    parse_ok(" parse* , -lex_*,main_loop@3,handle:on,done:off,depth=5,"
             "min=10us ");
    assert_int_equal(spec->nrules, 5);
    assert_int_equal(spec->rules[0].kind, CT_FRULE_INCLUDE);
    assert_int_equal(spec->rules[0].levels, 0);
    assert_int_equal(spec->rules[1].kind, CT_FRULE_EXCLUDE);
    assert_string_equal(spec->rules[1].pattern, "lex_*");
    assert_int_equal(spec->rules[2].levels, 3);
    assert_string_equal(spec->rules[2].pattern, "main_loop");
    assert_int_equal(spec->rules[3].kind, CT_FRULE_ON);
    assert_int_equal(spec->rules[4].kind, CT_FRULE_OFF);
    assert_int_equal(spec->depth, 5);
    assert_int_equal(spec->min_ns, 10000);
    assert_true(spec->have_include);
    assert_true(spec->have_on);
    assert_string_equal(spec->text, "parse*,-lex_*,main_loop@3,handle:on,"
                        "done:off,depth=5,min=10us");
    assert_true(ct_fspec_active(spec));
}

static void test_empty(void **state)
{
    (void)state;
    parse_ok("");
    assert_false(ct_fspec_active(spec));
    parse_ok(" , ,");
    assert_false(ct_fspec_active(spec));
    assert_string_equal(spec->text, "");
}

static void test_match_glob_and_order(void **state)
{
    (void)state;
    parse_ok("parse*,-parse_slow,re:^lex_(a|b)$,x:on");
    assert_string_equal(match("parse_fast", NULL), "1 0 0");
    /* Included and excluded: both are told. */
    assert_string_equal(match("parse_slow", NULL), "1 2 0");
    assert_string_equal(match("lex_a", NULL), "3 0 0");
    assert_string_equal(match("lex_c", NULL), "0 0 0");
    assert_string_equal(match("x", NULL), "0 0 4");
    assert_string_equal(match("main", NULL), "0 0 0");
    /* Of several of one kind, the last. */
    parse_ok("p*,parse*@2");
    assert_string_equal(match("parse", NULL), "2 0 0");
}

/* Every rule that matches is told, not only the last of its kind (a rule
 * that names no function is reported), and each is shown as written. */
static void test_hits_and_text(void **state)
{
    (void)state;
    parse_ok("pa*,par*,-lex_*,re:^fib$@3,start:on,stop:off");
    uint64_t hits = 0;
    ct_fspec_match_hits(spec, "parse", NULL, "", &hits);
    ct_fspec_match_hits(spec, "fib", NULL, "", &hits);
    assert_true(hits == (1u | 2u | 8u));
    static const char *const want[] = {"pa*", "par*", "-lex_*",
                                       "re:^fib$@3", "start:on", "stop:off"};
    char text[300];
    for (uint32_t i = 0; i < 6; i++) {
        ct_fspec_rule_text(&spec->rules[i], text, sizeof text);
        assert_string_equal(text, want[i]);
    }
}

/* size=N and PATTERN:size=N: by the function's size, the later rule of
 * the two winning, never over a name rule that leaves it out; an unknown
 * size (0) is never smaller. */
static void test_size_rules(void **state)
{
    (void)state;
    parse_ok("size=20,-lex_*,big*:size=100");
    assert_int_equal(spec->size_rule, 1);
    uint64_t hits = 0;
    uint32_t v = ct_fspec_match_hits(spec, "tiny", NULL, "", &hits);
    assert_int_equal(CT_FMATCH_EXCLUDE(ct_fspec_match_size(spec, v, "tiny", NULL, 19, &hits)), 1);
    assert_int_equal(ct_fspec_match_size(spec, v, "tiny", NULL, 20, NULL), v);
    assert_int_equal(ct_fspec_match_size(spec, v, "tiny", NULL, 0, NULL), v);
    assert_true(hits == 1u);
    /* big*:size=100 applies to bigger functions of its names alone */
    v = ct_fspec_match_hits(spec, "bigone", NULL, "", NULL);
    assert_int_equal(CT_FMATCH_EXCLUDE(ct_fspec_match_size(spec, v, "bigone", NULL, 50, NULL)), 3);
    assert_int_equal(CT_FMATCH_EXCLUDE(ct_fspec_match_size(spec, v, "bigone", NULL, 10, NULL)), 3);
    assert_int_equal(ct_fspec_match_size(spec, v, "other", NULL, 50, NULL), v);
    /* a name rule's exclusion stays its own */
    v = ct_fspec_match_hits(spec, "lex_a", NULL, "", NULL);
    assert_int_equal(CT_FMATCH_EXCLUDE(ct_fspec_match_size(spec, v, "lex_a", NULL, 5, NULL)), 2);
    char text[64];
    ct_fspec_rule_text(&spec->rules[0], text, sizeof text);
    assert_string_equal(text, "size=20");
    ct_fspec_rule_text(&spec->rules[2], text, sizeof text);
    assert_string_equal(text, "big*:size=100");
    ct_fspec_free(spec);
    memset(spec, 0, sizeof *spec);
    assert_int_equal(ct_fspec_parse("size=1,size=2", spec, err, sizeof err), -1);
    assert_int_equal(ct_fspec_parse("f:trace:size=2", spec, err, sizeof err), -1);
    assert_int_equal(ct_fspec_parse("size=0", spec, err, sizeof err), -1);
}

static void test_match_cxx(void **state)
{
    (void)state;
    parse_ok("ns::Parser::*,-ns::Parser::skip,re:^std::vector");
    const char *mangled = "_ZN2ns6Parser4readEi";
    assert_string_equal(match(mangled, "ns::Parser::read(int)"), "1 0 0");
    /* Without its parameter list too. */
    assert_string_equal(match("_ZN2ns6Parser4skipEv", "ns::Parser::skip()"),
                        "1 2 0");
    assert_string_equal(match("_ZNSt6vectorIiSaIiEE9push_backEOi",
                              "std::vector<int, std::allocator<int> >::"
                              "push_back(int&&)"), "3 0 0");
    /* A template function without its return type. */
    parse_ok("tokenize<int>");
    assert_string_equal(match("_Z8tokenizeIiEvT_", "void tokenize<int>(int)"),
                        "1 0 0");
    /* A mangled pattern matches the mangled name. */
    parse_ok("_ZN2ns*");
    assert_string_equal(match(mangled, "ns::Parser::read(int)"), "1 0 0");
}

/* A library call's stub: every form of its name with the mark after it. */
static const char *match_marked(const char *name, const char *demangled,
                                const char *mark)
{
    static char buf[32];
    uint32_t v = ct_fspec_match_marked(spec, name, demangled, mark);
    snprintf(buf, sizeof buf, "%u %u %u", CT_FMATCH_INCLUDE(v),
             CT_FMATCH_EXCLUDE(v), CT_FMATCH_TRIGGER(v));
    return buf;
}

static void test_match_libcalls(void **state)
{
    (void)state;
    parse_ok("read@plt@2,-*@plt,re:^get.*@dlsym$,write@got:on,malloc");
    assert_int_equal(spec->rules[0].levels, 2);
    assert_string_equal(spec->rules[0].pattern, "read@plt");
    assert_string_equal(match_marked("read", NULL, "@plt"), "1 2 0");
    assert_string_equal(match_marked("malloc", NULL, "@plt"), "0 2 0");
    assert_string_equal(match_marked("getpid", NULL, "@dlsym"), "3 0 0");
    assert_string_equal(match_marked("write", NULL, "@got"), "0 0 4");
    /* A pattern without the mark names the program's own function. */
    assert_string_equal(match("malloc", NULL), "5 0 0");
    assert_string_equal(match_marked("getpid", NULL, "@plt"), "0 2 0");
    parse_ok("-operator new@plt,operator delete(void*\\, unsigned long)@plt");
    assert_string_equal(match_marked("_Znwm", "operator new(unsigned long)",
                                     "@plt"), "0 1 0");
    assert_string_equal(match_marked("_ZdlPvm",
                                     "operator delete(void*, unsigned long)",
                                     "@plt"), "2 0 0");
    assert_string_equal(match_marked("_Znwm", "operator new(unsigned long)",
                                     "@got"), "0 0 0");
}

static void test_escaped_comma(void **state)
{
    (void)state;
    parse_ok("re:^f(a\\,b)?$,g");
    assert_int_equal(spec->nrules, 2);
    assert_string_equal(spec->rules[0].pattern, "^f(a,b)?$");
    assert_string_equal(match("fa,b", NULL), "1 0 0");
    assert_string_equal(spec->text, "re:^f(a\\,b)?$,g");
}

static void bad(const char *text, const char *want)
{
    ct_fspec_free(spec);
    assert_int_equal(ct_fspec_parse(text, spec, err, sizeof err), -1);
    assert_string_equal(err, want);
    assert_int_equal(spec->nrules, 0);
}

static void test_bad(void **state)
{
    (void)state;
    bad("re:(", "'re:(': Unmatched ( or \\(");
    bad("depth=0", "'depth=0': expected depth=N, N from 1 to 4096");
    bad("min=10 parsecs", "'min=10 parsecs': expected min=DURATION such as "
        "10us (units ns, us, ms, s)");
    bad("f@0", "'f@0': expected PATTERN@N, N from 1 to 4096");
    bad("-", "empty pattern");
    bad(":on", "empty pattern");
}

static void test_durations(void **state)
{
    (void)state;
    uint64_t ns;
    assert_int_equal(ct_fspec_duration("10us", &ns), 0);
    assert_int_equal(ns, 10000);
    assert_int_equal(ct_fspec_duration("1.5ms", &ns), 0);
    assert_int_equal(ns, 1500000);
    assert_int_equal(ct_fspec_duration("2s", &ns), 0);
    assert_int_equal(ns, 2000000000);
    assert_int_equal(ct_fspec_duration("250", &ns), 0);
    assert_int_equal(ns, 250);
    assert_int_equal(ct_fspec_duration("us", &ns), -1);
    assert_int_equal(ct_fspec_duration("-1us", &ns), -1);
    assert_int_equal(ct_fspec_duration("3h", &ns), -1);
}

static const char *vars[8][2];
static char warned[4][512];
static int nwarned;

static const char *fake_get(const char *name)
{
    for (int i = 0; vars[i][0]; i++)
        if (!strcmp(vars[i][0], name))
            return vars[i][1];
    return NULL;
}

static void fake_warn(const char *line)
{
    if (nwarned < 4)
        snprintf(warned[nwarned], sizeof warned[0], "%s", line);
    nwarned++;
}

static void test_env(void **state)
{
    (void)state;
    char text[CT_FILTER_TEXT_MAX];
    memset(vars, 0, sizeof vars);
    nwarned = 0;
    vars[0][0] = "CALLTRACE_FILTER", vars[0][1] = "parse*,-lex";
    vars[1][0] = "CALLTRACE_DEPTH", vars[1][1] = "4";
    vars[2][0] = "CALLTRACE_MIN_DURATION", vars[2][1] = "5us";
    vars[3][0] = "CALLTRACE_TRIGGER", vars[3][1] = "go:on";
    assert_int_not_equal(ct_fspec_from_env(text, sizeof text, fake_get,
                                           fake_warn), 0);
    assert_string_equal(text, "parse*,-lex,depth=4,min=5us,go:on");
    assert_int_equal(nwarned, 0);

    /* One bad variable: one line, the others kept. */
    vars[0][1] = "re:[";
    vars[1][1] = "4,foo";
    vars[3][1] = "go";
    ct_fspec_from_env(text, sizeof text, fake_get, fake_warn);
    assert_string_equal(text, "min=5us");
    assert_int_equal(nwarned, 3);
    assert_string_equal(warned[0], "calltrace: CALLTRACE_FILTER='re:[': "
                        "'re:[': Invalid regular expression; tracing "
                        "without it");
    assert_string_equal(warned[1], "calltrace: CALLTRACE_DEPTH='4,foo': "
                        "expected a depth from 1 to 4096; tracing without "
                        "it");
    assert_string_equal(warned[2], "calltrace: CALLTRACE_TRIGGER='go': "
                        "expected FUNCTION:ACTION items (on, off, trace_on, "
                        "trace_off, notrace, caller, trace, depth=N, "
                        "time=T, finish, backtrace); tracing without it");

    /* The filtering actions go in either variable, :on and :off only in
     * CALLTRACE_TRIGGER. */
    nwarned = 0;
    vars[0][1] = "skip:notrace,f:caller,g,g:depth=2";
    vars[1][1] = NULL;
    vars[2][1] = NULL;
    vars[3][1] = "h:finish,k:trace_on:time=1ms";
    ct_fspec_from_env(text, sizeof text, fake_get, fake_warn);
    assert_string_equal(text, "skip:notrace,f:caller,g,g:depth=2,h:finish,"
                        "k:trace_on:time=1ms");
    assert_int_equal(nwarned, 0);
    vars[0][1] = "go:on";
    ct_fspec_from_env(text, sizeof text, fake_get, fake_warn);
    assert_int_equal(nwarned, 1);
}

/* uftrace's trigger actions, after the pattern, in any number. */
static void test_actions(void **state)
{
    (void)state;
    parse_ok("ns::f::g:trace_on:depth=3,a:notrace,b:caller,c:time=0,"
             "d:trace-off:backtrace,e:finish:trace,x:filter,y:on");
    assert_int_equal(spec->nrules, 8);
    assert_int_equal(spec->rules[0].kind, CT_FRULE_ACTION);
    assert_string_equal(spec->rules[0].pattern, "ns::f::g");
    assert_int_equal(spec->rules[0].acts, CT_FACT_ON | CT_FACT_DEPTH);
    assert_int_equal(spec->rules[0].depth, 3);
    assert_int_equal(spec->rules[1].acts, CT_FACT_NOTRACE);
    assert_int_equal(spec->rules[2].acts, CT_FACT_CALLER);
    assert_int_equal(spec->rules[3].acts, CT_FACT_TIME);
    assert_int_equal(spec->rules[3].time_ns, 0);
    assert_int_equal(spec->rules[4].acts, CT_FACT_OFF | CT_FACT_BACKTRACE);
    assert_int_equal(spec->rules[5].acts, CT_FACT_FINISH | CT_FACT_TRACE);
    assert_int_equal(spec->rules[6].acts, CT_FACT_INCLUDE);
    assert_int_equal(spec->rules[7].kind, CT_FRULE_ON);
    /* trace_on does not start with recording off; :on does. */
    assert_true(spec->have_on);
    assert_true(spec->have_include);
    char t[300];
    ct_fspec_rule_text(&spec->rules[4], t, sizeof t);
    assert_string_equal(t, "d:trace-off:backtrace");
    /* "x:filter" includes x, and its trigger is the same rule. */
    assert_string_equal(match("x", NULL), "7 0 7");
    assert_string_equal(match("ns::f::g", NULL), "0 0 1");
    parse_ok("a:trace_on");
    assert_false(spec->have_on);
    parse_ok("a:on:depth=2");
    assert_true(spec->have_on);
    /* A C++ scope is not an action; a bad argument is an error. */
    parse_ok("ns::on");
    assert_int_equal(spec->rules[0].kind, CT_FRULE_INCLUDE);
    assert_int_not_equal(ct_fspec_parse("f:depth=0", spec, err, sizeof err),
                         0);
    assert_int_not_equal(ct_fspec_parse("f:time=x", spec, err, sizeof err),
                         0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_items, setup, teardown),
        cmocka_unit_test_setup_teardown(test_empty, setup, teardown),
        cmocka_unit_test_setup_teardown(test_match_glob_and_order, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_match_cxx, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hits_and_text, setup, teardown),
        cmocka_unit_test_setup_teardown(test_size_rules, setup, teardown),
        cmocka_unit_test_setup_teardown(test_match_libcalls, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_escaped_comma, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad, setup, teardown),
        cmocka_unit_test(test_durations),
        cmocka_unit_test(test_env),
        cmocka_unit_test_setup_teardown(test_actions, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
