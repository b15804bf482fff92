/* The perfetto exporter: the exact bytes of a one-call trace (checked
 * against Perfetto's definitions with protoc when written down: see the
 * decoded form beside each packet), a mark as a debug annotation, and
 * messages made valid UTF-8. */
#include "export_fixture.h"
#include "analyzer/writers/textesc.h"

static void exact_bytes(void **state)
{
    (void)state;
    struct ex e;
    ex_init(&e, "perfetto");
    ex_ev(&e, CT_EV_CALL, 0, 1000, "main");
    ex_ev(&e, CT_EV_RETURN, 0, 1300, NULL);
    assert_int_equal(ex_finish(&e), 0);
    static const uint8_t want[] = {
        /* packet { trusted_packet_sequence_id: 1, sequence_flags: 1
         *   (SEQ_INCREMENTAL_STATE_CLEARED), interned_data {
         *   event_categories 1 "call", 2 "sample", 3 "calltrace-overhead",
         *   4 "user", 5 "calltrace-lost"; event_names 1 "calltrace
         *   overhead" }, track_descriptor { uuid: 1, process { pid: 42,
         *   process_name: "test.trace" } } } */
        0x0a, 0x7f, 0x50, 0x01, 0x68, 0x01, 0x62, 0x64, 0x0a, 0x08, 0x08,
        0x01, 0x12, 0x04, 'c', 'a', 'l', 'l', 0x0a, 0x0a, 0x08, 0x02, 0x12,
        0x06, 's', 'a', 'm', 'p', 'l', 'e', 0x0a, 0x16, 0x08, 0x03, 0x12,
        0x12, 'c', 'a', 'l', 'l', 't', 'r', 'a', 'c', 'e', '-', 'o', 'v',
        'e', 'r', 'h', 'e', 'a', 'd', 0x0a, 0x08, 0x08, 0x04, 0x12, 0x04,
        'u', 's', 'e', 'r', 0x0a, 0x12, 0x08, 0x05, 0x12, 0x0e, 'c', 'a',
        'l', 'l', 't', 'r', 'a', 'c', 'e', '-', 'l', 'o', 's', 't', 0x12,
        0x16, 0x08, 0x01, 0x12, 0x12, 'c', 'a', 'l', 'l', 't', 'r', 'a',
        'c', 'e', ' ', 'o', 'v', 'e', 'r', 'h', 'e', 'a', 'd', 0xe2, 0x03,
        0x12, 0x08, 0x01, 0x1a, 0x0e, 0x08, 0x2a, 0x32, 0x0a, 't', 'e',
        's', 't', '.', 't', 'r', 'a', 'c', 'e',
        /* packet { trusted_packet_sequence_id: 1, track_descriptor {
         *   uuid: 2, parent_uuid: 1, thread { pid: 42, tid: 100 } } } */
        0x0a, 0x0f, 0x50, 0x01, 0xe2, 0x03, 0x0a, 0x08, 0x02, 0x28, 0x01,
        0x22, 0x04, 0x08, 0x2a, 0x10, 0x64,
        /* packet { timestamp: 0, trusted_packet_sequence_id: 1,
         *   sequence_flags: 2 (SEQ_NEEDS_INCREMENTAL_STATE),
         *   interned_data { event_names { iid: 2, name: "main" } },
         *   track_event { type: TYPE_SLICE_BEGIN, track_uuid: 2,
         *   name_iid: 2, category_iids: 1 } } */
        0x0a, 0x1c, 0x40, 0x00, 0x50, 0x01, 0x68, 0x02, 0x62, 0x0a, 0x12,
        0x08, 0x08, 0x02, 0x12, 0x04, 'm', 'a', 'i', 'n', 0x5a, 0x08, 0x48,
        0x01, 0x58, 0x02, 0x50, 0x02, 0x18, 0x01,
        /* packet { timestamp: 300, trusted_packet_sequence_id: 1,
         *   sequence_flags: 2, track_event { type: TYPE_SLICE_END,
         *   track_uuid: 2 } } */
        0x0a, 0x0d, 0x40, 0xac, 0x02, 0x50, 0x01, 0x68, 0x02, 0x5a, 0x04,
        0x48, 0x02, 0x58, 0x02,
        /* packet { trusted_packet_sequence_id: 1, track_descriptor {
         *   uuid: 2, parent_uuid: 1, thread { pid: 42, tid: 100,
         *   thread_name: "thread 100" } } } */
        0x0a, 0x1b, 0x50, 0x01, 0xe2, 0x03, 0x16, 0x08, 0x02, 0x28, 0x01,
        0x22, 0x10, 0x08, 0x2a, 0x10, 0x64, 0x2a, 0x0a, 't', 'h', 'r', 'e',
        'a', 'd', ' ', '1', '0', '0',
    };
    assert_int_equal(e.len, sizeof want);
    assert_memory_equal(e.buf, want, sizeof want);
    ex_free(&e);
}

static bool contains(const char *buf, size_t len, const void *what, size_t n)
{
    return memmem(buf, len, what, n) != NULL;
}

static void marks_and_messages(void **state)
{
    (void)state;
    struct ex e;
    ex_init(&e, "perfetto");
    static const char msg[] = "bad \xff byte";
    ex_ev(&e, CT_EV_CALL, 0, 0, "main");
    ex_text(&e, CT_EV_USER, 0, 5, msg, sizeof msg - 1, 0);
    assert_int_equal(ex_finish(&e), 0);  /* main never returns */
    /* the instant: type 3 and its name, made valid UTF-8 */
    static const char clean[] = "\xba\x01\x0c" "bad \xef\xbf\xbd byte";
    assert_true(contains(e.buf, e.len, clean, sizeof clean - 1));
    /* the end of main: debug_annotations { name: "never_returned",
     * bool_value: true } */
    static const char mark[] = "\x22\x12\x52\x0enever_returned\x10\x01";
    assert_true(contains(e.buf, e.len, mark, sizeof mark - 1));
    ex_free(&e);

    size_t n;
    char *c = ct_utf8_clean("a\xc3\xa9\xe2\x82", 5, &n);
    assert_int_equal(n, 9);
    assert_string_equal(c, "a\xc3\xa9\xef\xbf\xbd\xef\xbf\xbd");
    free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(exact_bytes),
        cmocka_unit_test(marks_and_messages),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
