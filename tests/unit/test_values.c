/* ARGS and RETVAL payloads as text (analyzer/model/values.c): every tag in
 * uftrace's spelling, escapes, cut strings, bad pointers, damage and an
 * output buffer too small. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "calltrace_format.h"
#include "analyzer/model/trace.h"
#include "analyzer/model/values.h"

struct pay {
    uint8_t b[512];
    size_t n;
};

static void tag_v(struct pay *p, uint8_t tag, uint64_t v)
{
    p->b[p->n++] = tag;
    p->n = (size_t)(ct_put_varint(p->b + p->n, v) - p->b);
}

static void tag_s(struct pay *p, uint8_t tag, const char *s)
{
    size_t n = strlen(s);
    tag_v(p, tag, n);
    memcpy(p->b + p->n, s, n);
    p->n += n;
}

static void expect(const struct pay *p, const char *want)
{
    char out[CT_VALUES_TEXT_MAX];
    size_t n = ct_values_text(p->b, p->n, out, sizeof out);
    assert_string_equal(out, want);
    assert_int_equal(n, strlen(want));
}

static void test_integers(void **state)
{
    (void)state;
    struct pay p = {0};
    tag_v(&p, CT_VAL_SIGNED, ct_zigzag(-1));
    tag_v(&p, CT_VAL_UNSIGNED, 4096);
    tag_v(&p, CT_VAL_HEX, 0xfe);
    tag_v(&p, CT_VAL_PTR, 0);
    tag_v(&p, CT_VAL_PTR, 0x7f0012345678);
    tag_v(&p, CT_VAL_SIGNED, ct_zigzag(INT64_MIN));
    tag_v(&p, CT_VAL_UNSIGNED, UINT64_MAX);
    tag_v(&p, CT_VAL_CHAR, ct_zigzag('c'));
    expect(&p, "-1, 4096, 0xfe, 0, 0x7f0012345678, -9223372036854775808, "
               "18446744073709551615, 'c'");
}

/* A NUL char is '\0', as uftrace shows it (its t062); in a string, \0
 * unless an octal digit follows, where \x00 cannot be misread. */
static void test_char_escapes(void **state)
{
    (void)state;
    struct pay p = {0};
    tag_v(&p, CT_VAL_CHAR, ct_zigzag(0));
    tag_v(&p, CT_VAL_CHAR, ct_zigzag('\r'));
    tag_v(&p, CT_VAL_CHAR, ct_zigzag('\''));
    tag_v(&p, CT_VAL_CHAR, ct_zigzag(7));
    tag_v(&p, CT_VAL_STR, 5);
    memcpy(p.b + p.n, "a\0b\0" "7", 5);
    p.n += 5;
    expect(&p, "'\\0', '\\r', '\\'', '\\x07', \"a\\0b\\x007\"");
}

static void test_strings(void **state)
{
    (void)state;
    struct pay p = {0};
    tag_s(&p, CT_VAL_STR, "GET /");
    tag_s(&p, CT_VAL_STR, "a\"b\\c\n\x01");
    tag_s(&p, CT_VAL_STR_CUT, "long");
    p.b[p.n++] = CT_VAL_NULLSTR;
    tag_v(&p, CT_VAL_BADPTR, 0x10);
    p.b[p.n++] = CT_VAL_UNAVAIL;
    tag_s(&p, CT_VAL_STR, "");
    expect(&p, "\"GET /\", \"a\\\"b\\\\c\\n\\x01\", \"long\"..., NULL, "
               "<bad pointer 0x10>, <unavailable>, \"\"");
}

/* A pointer at the start of a function reads &name where the trace can
 * name it (ct_trace_info.addr_name); any other pointer, NULL, and every
 * integer stay numbers. */
static bool fake_name(void *ctx, uint64_t addr, char *buf, size_t cap)
{
    (void)ctx;
    if (addr != 0x401000)
        return false;
    snprintf(buf, cap, "on_event");
    return true;
}

static void test_pointer_names(void **state)
{
    (void)state;
    struct pay p = {0};
    tag_v(&p, CT_VAL_PTR, 0x401000);
    tag_v(&p, CT_VAL_PTR, 0x401001);
    tag_v(&p, CT_VAL_PTR, 0);
    tag_v(&p, CT_VAL_HEX, 0x401000);
    struct ct_trace_info info;
    memset(&info, 0, sizeof info);
    char out[CT_VALUES_TEXT_MAX];
    ct_values_text_of(&info, p.b, p.n, out, sizeof out);
    assert_string_equal(out, "0x401000, 0x401001, 0, 0x401000");
    info.addr_name = fake_name;
    ct_values_text_of(&info, p.b, p.n, out, sizeof out);
    assert_string_equal(out, "&on_event, 0x401001, 0, 0x401000");
    expect(&p, "0x401000, 0x401001, 0, 0x401000");
}

static void test_double(void **state)
{
    (void)state;
    struct pay p = {0};
    double d = -1.5;
    p.b[p.n++] = CT_VAL_DOUBLE;
    memcpy(p.b + p.n, &d, 8);
    p.n += 8;
    expect(&p, "-1.500000");
}

static void tag_struct(struct pay *p, uint64_t size, const char *name,
                       size_t n)
{
    p->b[p->n++] = CT_VAL_STRUCT;
    p->n = (size_t)(ct_put_varint(p->b + p->n, size) - p->b);
    p->n = (size_t)(ct_put_varint(p->b + p->n, n) - p->b);
    memcpy(p->b + p->n, name, n);
    p->n += n;
}

/* A struct by value as uftrace shows one: its name and {...}, {} when
 * empty, {...} alone without a name, a damaged name's bytes as ?; an
 * enum's value by its name, else its number; a mode in octal. */
static void test_struct_and_octal(void **state)
{
    (void)state;
    struct pay p = {0};
    tag_struct(&p, 16, "pair", 4);
    tag_struct(&p, 0, "StringRef", 9);
    tag_struct(&p, 24, "", 0);
    tag_struct(&p, 8, "a b\x01", 4);
    p.b[p.n++] = CT_VAL_ENUM;  /* a name, then a value no name has */
    p.n = (size_t)(ct_put_varint(p.b + p.n, ct_zigzag(2)) - p.b);
    p.n = (size_t)(ct_put_varint(p.b + p.n, 4) - p.b);
    memcpy(p.b + p.n, "W_OK", 4);
    p.n += 4;
    p.b[p.n++] = CT_VAL_ENUM;
    p.n = (size_t)(ct_put_varint(p.b + p.n, ct_zigzag(-2)) - p.b);
    p.b[p.n++] = 0;
    tag_v(&p, CT_VAL_OCT, 0755);
    tag_v(&p, CT_VAL_OCT, 0);
    expect(&p, "pair{...}, StringRef{}, {...}, a?b?{...}, W_OK, -2, 0755, 0");
    struct pay q = {0};
    tag_struct(&q, 16, "pair", 4);
    q.n -= 2;  /* the name cut short */
    expect(&q, "?");
}

/* A tag of a later version, or a payload cut short: `?` and no read
 * past the end. */
static void test_damage(void **state)
{
    (void)state;
    struct pay p = {0};
    tag_v(&p, CT_VAL_SIGNED, ct_zigzag(3));
    tag_v(&p, 99, 1);
    expect(&p, "3, ?");
    struct pay q = {0};
    tag_s(&q, CT_VAL_STR, "abcdef");
    q.n -= 2;
    expect(&q, "?");
    struct pay r = {0};
    r.b[r.n++] = CT_VAL_DOUBLE;
    r.b[r.n++] = 0;
    expect(&r, "?");
    struct pay e = {0};
    expect(&e, "");
}

static void test_small_buffer(void **state)
{
    (void)state;
    struct pay p = {0};
    tag_s(&p, CT_VAL_STR, "abcdefghijklmnopqrstuvwxyz");
    char out[16];
    size_t n = ct_values_text(p.b, p.n, out, sizeof out);
    assert_true(n < sizeof out);
    assert_int_equal(strlen(out), n);
    assert_string_equal(out, "\"abcdefghijk...");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_integers),
        cmocka_unit_test(test_strings),
        cmocka_unit_test(test_char_escapes),
        cmocka_unit_test(test_pointer_names),
        cmocka_unit_test(test_double),
        cmocka_unit_test(test_struct_and_octal),
        cmocka_unit_test(test_damage),
        cmocka_unit_test(test_small_buffer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
