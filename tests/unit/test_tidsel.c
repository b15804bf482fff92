/* --tid (analyzer/model/tidsel.c): the lists it takes and refuses, the
 * events it passes on (every kind, of the threads named only), and what
 * it says after the read. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyzer/model/tidsel.h"

static void test_parse(void **state)
{
    (void)state;
    uint64_t *t = NULL;
    size_t n = 0;
    assert_int_equal(ct_tid_parse("42", &t, &n), 0);
    assert_int_equal(ct_tid_parse("7,4294967295", &t, &n), 0);
    assert_int_equal(n, 3);
    assert_true(t[0] == 42 && t[1] == 7 && t[2] == 4294967295u);
    static const char *const bad[] = {
        "", ",", "1,", ",1", "1,,2", "x", "1x", "0", "-1", "+1", " 1",
        "4294967296", "99999999999999999999999",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(ct_tid_parse(bad[i], &t, &n), -1);
        assert_int_equal(n, 3); /* a bad list adds nothing */
    }
    free(t);
}

struct seen {
    struct ct_sink sink;
    uint32_t thread[16];
    size_t n;
};

static int record(struct ct_sink *self, const struct ct_event *ev)
{
    struct seen *s = (struct seen *)self;
    assert_true(s->n < 16);
    s->thread[s->n++] = ev->thread;
    return 0;
}

static void test_filter(void **state)
{
    (void)state;
    struct ct_trace_info info;
    ct_trace_info_init(&info, "test.trace", "calltrace");
    uint32_t a = ct_trace_thread(&info, 100);
    uint32_t b = ct_trace_thread(&info, 200);
    uint32_t a2 = ct_trace_thread_new(&info, 100); /* tid reused */
    struct seen s = {.sink = {record}};
    uint64_t tids[] = {100, 300};
    struct ct_tid_filter f;
    ct_tid_filter_init(&f, &s.sink, &info, tids, 2);
    static const enum ct_ev_kind kinds[] = {
        CT_EV_CALL, CT_EV_SAMPLE, CT_EV_LOST, CT_EV_RETURN, CT_EV_THREAD_END,
    };
    for (size_t i = 0; i < 5; i++)
        for (uint32_t th = 0; th < 3; th++) {
            struct ct_event ev = {.kind = kinds[i], .thread = th,
                                  .func = CT_FUNC_NONE};
            assert_int_equal(f.sink.event(&f.sink, &ev), 0);
        }
    assert_int_equal(s.n, 10);
    for (size_t i = 0; i < s.n; i++)
        assert_true(s.thread[i] == a || s.thread[i] == a2);
    assert_int_equal(f.passed, 10);
    /* 300 names no thread: one of the two tids found */
    assert_int_equal(ct_tid_filter_finish(&f), 1);
    assert_false(info.threads[a].excluded);
    assert_true(info.threads[b].excluded);
    assert_false(info.threads[a2].excluded);
    ct_trace_info_free(&info);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_filter),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
