/* The caller's own library search path (runpath.c): how one entry of a
 * RUNPATH or RPATH becomes a file name, and the names the loader searches
 * no folder for. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <string.h>

#include "preload/tracer.h"

static const char *entry(const char *e, const char *origin, const char *name)
{
    static char out[256];
    return ct_runpath_entry(e, strlen(e), origin, name, out, sizeof out) == 0
               ? out
               : NULL;
}

static void origin_is_expanded(void **state)
{
    (void)state;
    assert_string_equal(entry("$ORIGIN/plug", "/opt/app/bin", "libp.so"),
                        "/opt/app/bin/plug/libp.so");
    assert_string_equal(entry("${ORIGIN}/../lib", "/opt/app/bin", "libp.so"),
                        "/opt/app/bin/../lib/libp.so");
    assert_string_equal(entry("$ORIGIN", "/", "libp.so"), "//libp.so");
    assert_string_equal(entry("/usr/lib/app", "/x", "libp.so"),
                        "/usr/lib/app/libp.so");
    assert_string_equal(entry("$ORIGIN:$ORIGIN", "/a", "l.so"),
                        "/a:/a/l.so");  /* the caller splits on ':' first */
}

static void empty_entry_is_the_current_folder(void **state)
{
    (void)state;
    assert_string_equal(entry("", "/a", "libp.so"), "./libp.so");
}

static void other_tokens_and_unknown_origin_are_left_out(void **state)
{
    (void)state;
    assert_null(entry("$LIB/plug", "/a", "libp.so"));
    assert_null(entry("/opt/$PLATFORM", "/a", "libp.so"));
    assert_null(entry("$ORIGIN/plug", "", "libp.so"));
    assert_null(entry("${LIB}/plug", "/a", "libp.so"));
    /* Not a token: kept as written, as the loader keeps it. */
    assert_string_equal(entry("$ORIGINAL", "/a", "libp.so"), "$ORIGINAL/libp.so");
    assert_string_equal(entry("$ORIGIN_X", "/a", "libp.so"), "$ORIGIN_X/libp.so");
    assert_string_equal(entry("$ORIGIN-x", "/a", "libp.so"), "/a-x/libp.so");
}

static void too_long_is_refused(void **state)
{
    (void)state;
    char out[16];
    assert_int_equal(ct_runpath_entry("/0123456789", 11, "/a", "libp.so", out,
                                      sizeof out),
                     -1);
    assert_int_equal(ct_runpath_entry("$ORIGIN", 7, "/a/very/long/origin",
                                      "l.so", out, sizeof out),
                     -1);
    assert_int_equal(ct_runpath_entry("/ab", 3, "/", "l.so", out, sizeof out), 0);
    assert_string_equal(out, "/ab/l.so");
}

static int never_loaded(const char *name, void *arg)
{
    (void)name;
    (void)arg;
    return 0;
}

static void paths_and_bare_names_without_search_path(void **state)
{
    (void)state;
    /* A path is the loader's alone; this test program has no RUNPATH. */
    assert_null(ct_runpath_resolve((const void *)entry, "/lib/libm.so.6",
                                   never_loaded, NULL));
    assert_null(ct_runpath_resolve((const void *)entry, "libm.so.6",
                                   never_loaded, NULL));
    assert_null(ct_runpath_resolve((const void *)entry, NULL, never_loaded,
                                   NULL));
    assert_null(ct_runpath_resolve((const void *)entry, "", never_loaded,
                                   NULL));
    ct_runpath_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(origin_is_expanded),
        cmocka_unit_test(empty_entry_is_the_current_folder),
        cmocka_unit_test(other_tokens_and_unknown_origin_are_left_out),
        cmocka_unit_test(too_long_is_refused),
        cmocka_unit_test(paths_and_bare_names_without_search_path),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
