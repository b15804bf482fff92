/*
 * The environment a child gets (preload/wrap/wrap_spawn.c) from the settings
 * captured at start (preload/control/env.c): what is added, where, and that
 * nothing already there is duplicated or changed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "preload/tracer.h"
#include "preload/wrap/wrap_spawn.h"

extern char **environ;
static char ld_self[CT_PATH_MAX + 16];

static int setup(void **state)
{
    (void)state;
    setenv("CALLTRACE_OUTPUT", "/tmp/t-%p.raw", 1);
    setenv("CALLTRACE_BUFSIZE", "64K", 1);
    ct_env_capture();
    ct_proc.started = 2;
    ct_proc.cfg.follow = 1;
    snprintf(ld_self, sizeof ld_self, "LD_PRELOAD=%s", ct_env_self_path());
    return 0;
}

/* The child's environment for envp, joined by '|'; "=" when unchanged. */
static const char *child(char *const envp[])
{
    static char out[8192];
    struct ct_child_env plan;
    if (!ct_child_env_plan(envp, &plan))
        return "=";
    char *slots[plan.slots];
    char ld[plan.ld_len ? plan.ld_len : 1];
    char **env = ct_child_env_build(envp, &plan, slots, ld);
    size_t n = 0;
    out[0] = '\0';
    for (size_t i = 0; env[i]; i++)
        n += (size_t)snprintf(out + n, sizeof out - n, "%s%s", i ? "|" : "", env[i]);
    assert_int_equal(n < sizeof out, 1);
    return out;
}

static void test_self_known(void **state)
{
    (void)state;
    assert_true(ct_env_self_path()[0] != '\0');
    assert_int_equal(ct_env_count(), 2);
}

static void test_scrubbed_gets_everything(void **state)
{
    (void)state;
    char *envp[] = {"A=1", "B=x y", NULL};
    char want[8192];
    snprintf(want, sizeof want, "A=1|B=x y|%s|CALLTRACE_OUTPUT=/tmp/t-%%p.raw|"
             "CALLTRACE_BUFSIZE=64K", ld_self);
    const char *got = child(envp);
    /* captured in environ's order, which setenv decides */
    if (strcmp(got, want) != 0)
        snprintf(want, sizeof want, "A=1|B=x y|%s|CALLTRACE_BUFSIZE=64K|"
                 "CALLTRACE_OUTPUT=/tmp/t-%%p.raw", ld_self);
    assert_string_equal(got, want);
    /* No environment at all (execve's NULL): the same entries alone. */
    assert_string_equal(child(NULL), want + strlen("A=1|B=x y|"));
}

static void test_nothing_duplicated(void **state)
{
    (void)state;
    char *envp[] = {"CALLTRACE_OUTPUT=mine", ld_self, "A=1",
                    "CALLTRACE_BUFSIZE=4M", NULL};
    assert_string_equal(child(envp), "=");
}

static void test_other_preload_kept(void **state)
{
    (void)state;
    char *envp[] = {"LD_PRELOAD=/x/other.so", "CALLTRACE_OUTPUT=mine",
                    "CALLTRACE_BUFSIZE=1M", "Z=", NULL};
    char want[8192];
    snprintf(want, sizeof want, "LD_PRELOAD=/x/other.so:%s|CALLTRACE_OUTPUT=mine|"
             "CALLTRACE_BUFSIZE=1M|Z=", ct_env_self_path());
    assert_string_equal(child(envp), want);
    char self_among[8192];
    snprintf(self_among, sizeof self_among, "LD_PRELOAD=/x/a.so %s:/x/b.so",
             ct_env_self_path());
    char *envp2[] = {self_among, "CALLTRACE_OUTPUT=m", "CALLTRACE_BUFSIZE=1M", NULL};
    assert_string_equal(child(envp2), "=");
}

static void test_follow_off(void **state)
{
    (void)state;
    char *envp[] = {"A=1", NULL};
    ct_proc.cfg.follow = 0;
    assert_string_equal(child(envp), "=");
    ct_proc.cfg.follow = 1;
    ct_proc.started = 0;
    assert_string_equal(child(envp), "=");
    ct_proc.started = 2;
}

/* Before libc has an environment, settings come from the captured copy. */
static void test_get_without_environ(void **state)
{
    (void)state;
    char **saved = environ;
    environ = NULL;
    const char *v = ct_env_get("CALLTRACE_BUFSIZE");
    const char *none = ct_env_get("CALLTRACE_CLOCK");
    environ = saved;
    assert_non_null(v);
    assert_string_equal(v, "64K");
    assert_null(none);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_self_known),
        cmocka_unit_test(test_scrubbed_gets_everything),
        cmocka_unit_test(test_nothing_duplicated),
        cmocka_unit_test(test_other_preload_kept),
        cmocka_unit_test(test_follow_off),
        cmocka_unit_test(test_get_without_environ),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
