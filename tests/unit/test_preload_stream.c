/* Streaming (preload/stream/stream.c): the settings, the output names that
 * stream, and the record walk the sender uses to count dropped events and
 * to cut snapshots at whole records. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "preload/stream/stream.h"
#include "preload/tracer.h"

static const char *backlog, *timeout;
static char warning[512];
static int warn_n;

static const char *fake_getenv(const char *name)
{
    if (strcmp(name, "CALLTRACE_STREAM_BACKLOG") == 0)
        return backlog;
    if (strcmp(name, "CALLTRACE_STREAM_TIMEOUT") == 0)
        return timeout;
    return NULL;
}

static void fake_warn(const char *line)
{
    snprintf(warning, sizeof warning, "%s", line);
    warn_n++;
}

static void test_settings(void **state)
{
    (void)state;
    struct ct_config c;
    backlog = timeout = NULL;
    warn_n = 0;
    ct_config_load(&c, fake_getenv, fake_warn);
    assert_int_equal(c.stream_backlog, 64u << 20);
    assert_int_equal(c.stream_timeout_ms, 10000);
    backlog = "1M";
    timeout = "250";
    ct_config_load(&c, fake_getenv, fake_warn);
    assert_int_equal(warn_n, 0);
    assert_int_equal(c.stream_backlog, 1u << 20);
    assert_int_equal(c.stream_timeout_ms, 250);
    backlog = "1K";
    timeout = "20";
    ct_config_load(&c, fake_getenv, fake_warn);
    assert_int_equal(warn_n, 2);
    assert_string_equal(warning, "calltrace: CALLTRACE_STREAM_TIMEOUT='20': "
                        "expected milliseconds from 100 to 3600000; using 10000");
    assert_int_equal(c.stream_backlog, 64u << 20);
    assert_int_equal(c.stream_timeout_ms, 10000);
}

static void test_wanted(void **state)
{
    (void)state;
    assert_true(ct_stream_wanted("tcp:127.0.0.1:4444"));
    assert_true(ct_stream_wanted("unix:/run/ct.sock"));
    assert_false(ct_stream_wanted("calltrace-%p.raw"));
    assert_false(ct_stream_wanted("tcp"));
    assert_false(ct_stream_wanted("./tcp:x"));
}

static void test_count_events(void **state)
{
    (void)state;
    uint8_t buf[256];
    memset(buf, 0, sizeof buf);
    uint8_t *p = buf;
    p = ct_enc_ext_head(p, 0, CT_EXT_STACK, 1);   /* STACK, depth 0 */
    *p++ = 0;
    p = ct_enc_ext_head(p, 3, CT_EXT_OVERHEAD_END, 0);
    p = ct_enc_entry(p, 5, 0x401000, 0, 0x401100, 0);
    p = ct_enc_exit(p, 7);
    size_t sw = (size_t)(p - buf);
    p = ct_enc_ext_head(p, 1, CT_EXT_SWITCH, 4);
    memset(p, 0, 4);                               /* prev = 0 */
    p += 4;
    p = ct_enc_ext_head(p, 2, CT_EXT_USER, 2);
    *p++ = 'h';
    *p++ = 'i';
    p = ct_enc_entry(p, 300, 0x402000, 0x401000, 0x401180, 0x401100);
    size_t whole = (size_t)(p - buf);
    size_t complete;
    uint32_t last_switch;
    /* calls, returns, user events: 4 */
    assert_int_equal(ct_stream_count_events(buf, whole, &complete, &last_switch), 4);
    assert_int_equal(complete, whole);
    assert_int_equal(last_switch, sw + 1);
    /* A last record cut short is not whole: the snapshot stops before it. */
    assert_int_equal(ct_stream_count_events(buf, whole - 1, &complete, NULL), 3);
    assert_true(complete < whole - 1);
    /* The zero after the records ends them, whatever the length says. */
    assert_int_equal(ct_stream_count_events(buf, sizeof buf, &complete, NULL), 4);
    assert_int_equal(complete, whole);
    /* A damaged type stops the walk. */
    buf[0] = 0x08;
    assert_int_equal(ct_stream_count_events(buf, whole, &complete, NULL), 0);
    assert_int_equal(complete, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_settings),
        cmocka_unit_test(test_wanted),
        cmocka_unit_test(test_count_events),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
