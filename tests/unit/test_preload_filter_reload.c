/* ct_filter_reload, the entry the control channel uses: a good spec is
 * put in force for every thread (their hooks go to the slow path), a bad
 * one changes nothing and says why, an empty one lifts the rules. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <string.h>

#include "preload/filters/filter.h"
#include "preload/tracer.h"

static void test_reload(void **state)
{
    (void)state;
    char err[256];
    uint64_t w0 = ct_global_word;
    assert_int_equal(ct_filter_stop, 0);

    assert_int_equal(ct_filter_reload("parse*,-lex_*,depth=4", err,
                                      sizeof err), 0);
    assert_string_equal(err, "");
    assert_int_equal(ct_filter_stop, CT_STOP_FILTER);
    /* A new generation of the global word: every thread comes to its
     * slow path and picks the filter up; the on/off bit is untouched. */
    assert_int_equal(ct_global_word, w0 + 2);

    assert_int_equal(ct_filter_reload("re:(", err, sizeof err), -1);
    assert_string_equal(err, "'re:(': Unmatched ( or \\(");
    assert_int_equal(ct_filter_stop, CT_STOP_FILTER);
    assert_int_equal(ct_global_word, w0 + 2);

    assert_int_equal(ct_filter_reload("", err, sizeof err), 0);
    assert_int_equal(ct_filter_stop, 0);
    assert_int_equal(ct_global_word, w0 + 4);

    /* Triggers alone also need the slow path. */
    assert_int_equal(ct_filter_reload("main_loop:on", err, sizeof err), 0);
    assert_int_equal(ct_filter_stop, CT_STOP_FILTER);
    assert_int_equal(ct_filter_reload(NULL, err, sizeof err), 0);
    assert_int_equal(ct_filter_stop, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reload),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
