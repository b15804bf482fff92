/* calltrace_event's length bound: a message that does not fit keeps its
 * first bytes and ends in a visible mark with the count of bytes cut,
 * never splitting a UTF-8 sequence. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "preload/tracer.h"

static void test_short_message_kept(void **state)
{
    (void)state;
    char msg[16] = "hello";
    assert_int_equal(ct_user_message_cut(msg, sizeof msg, 5), 5);
    assert_string_equal(msg, "hello");
    char full[16] = "exactly fifteen";
    assert_int_equal(ct_user_message_cut(full, sizeof full, 15), 15);
}

static void test_long_message_marked(void **state)
{
    (void)state;
    char big[3000];
    memset(big, 'a', sizeof big);
    char msg[CT_USER_MSG_MAX];
    int n = snprintf(msg, sizeof msg, "%.*s", (int)sizeof big, big);
    size_t len = ct_user_message_cut(msg, sizeof msg, (size_t)n);
    assert_int_equal(len, strlen(msg));
    assert_true(len <= sizeof msg - 1);
    const char *mark = strstr(msg, "...[");
    assert_non_null(mark);
    size_t kept = (size_t)(mark - msg);
    char want[48];
    snprintf(want, sizeof want, "...[%zu more bytes]", 3000 - kept);
    assert_string_equal(mark, want);
    assert_int_equal(len, sizeof msg - 1);  /* no byte of room wasted */
}

static void test_cut_keeps_utf8_whole(void **state)
{
    (void)state;
    /* "é" is two bytes; fill so the cut would fall inside one. */
    char src[64];
    size_t n = 0;
    while (n + 2 <= sizeof src - 1) {
        src[n++] = (char)0xc3;
        src[n++] = (char)0xa9;
    }
    src[n] = '\0';
    for (size_t cap = 24; cap < 34; cap++) {
        char msg[64];
        memcpy(msg, src, cap - 1);
        msg[cap - 1] = '\0';
        size_t len = ct_user_message_cut(msg, cap, n);
        const char *mark = strstr(msg, "...[");
        assert_non_null(mark);
        assert_int_equal((mark - msg) % 2, 0);
        assert_true(len <= cap - 1);
        char want[48];
        snprintf(want, sizeof want, "...[%zu more bytes]", n - (size_t)(mark - msg));
        assert_string_equal(mark, want);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_short_message_kept),
        cmocka_unit_test(test_long_message_marked),
        cmocka_unit_test(test_cut_keeps_utf8_whole),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
