/* The protobuf encoder: the encodings of the protobuf specification's own
 * examples, and nested messages whose length grows past one byte. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "analyzer/writers/protobuf.h"

static void expect_bytes(const struct pb_buf *b, const uint8_t *want,
                         size_t n)
{
    assert_int_equal(b->len, n);
    assert_memory_equal(b->data, want, n);
}

static void scalars(void **state)
{
    (void)state;
    struct pb_buf b = {0};
    pb_uint(&b, 1, 150);            /* the spec's example: 08 96 01 */
    pb_string(&b, 2, "testing");
    pb_sint(&b, 3, -2);             /* zigzag: 3 */
    pb_int(&b, 4, -1);              /* ten bytes */
    pb_fixed64(&b, 5, 0x0102030405060708ull);
    pb_uint(&b, 16, 1);             /* a two-byte tag */
    const uint8_t want[] = {
        0x08, 0x96, 0x01,
        0x12, 0x07, 't', 'e', 's', 't', 'i', 'n', 'g',
        0x18, 0x03,
        0x20, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01,
        0x29, 8, 7, 6, 5, 4, 3, 2, 1,
        0x80, 0x01, 0x01,
    };
    expect_bytes(&b, want, sizeof want);
    pb_reset(&b);
    assert_int_equal(b.len, 0);
    pb_double(&b, 1, 1.0);
    const uint8_t one[] = {0x09, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f};
    expect_bytes(&b, one, sizeof one);
    pb_free(&b);
}

static void nested(void **state)
{
    (void)state;
    struct pb_buf b = {0};
    size_t outer = pb_begin(&b, 1);
    size_t inner = pb_begin(&b, 3);
    pb_uint(&b, 1, 150);
    pb_end(&b, inner);
    pb_end(&b, outer);
    const uint8_t want[] = {0x0a, 0x05, 0x1a, 0x03, 0x08, 0x96, 0x01};
    expect_bytes(&b, want, sizeof want);
    pb_free(&b);
}

static void long_body_moves(void **state)
{
    (void)state;
    struct pb_buf b = {0};
    char text[300];
    memset(text, 'x', sizeof text - 1);
    text[sizeof text - 1] = 0;
    size_t outer = pb_begin(&b, 1);      /* body 3 + 302 = 305 bytes */
    size_t inner = pb_begin(&b, 2);      /* body 3 + 299 = 302 bytes */
    pb_string(&b, 1, text);
    pb_end(&b, inner);
    pb_end(&b, outer);
    /* 1 tag + 2 len + (1 tag + 2 len + (1 tag + 2 len + 299)) */
    assert_int_equal(b.len, 3 + 3 + 3 + 299);
    const uint8_t head[] = {0x0a, 0xb1, 0x02, 0x12, 0xae, 0x02, 0x0a, 0xab,
                            0x02, 'x'};
    assert_memory_equal(b.data, head, sizeof head);
    assert_int_equal(b.data[b.len - 1], 'x');
    assert_int_equal(pb_varint_size(0), 1);
    assert_int_equal(pb_varint_size(127), 1);
    assert_int_equal(pb_varint_size(128), 2);
    assert_int_equal(pb_varint_size(UINT64_MAX), 10);
    pb_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(scalars),
        cmocka_unit_test(nested),
        cmocka_unit_test(long_body_moves),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
