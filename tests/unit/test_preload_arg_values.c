/* The tracer's encoding of kept values (preload/args/encode.h): a float
 * made a double with integers alone, as the library-call stub's fast way
 * needs (plan.c is built with -mgeneral-regs-only), against the CPU's own
 * conversion, over every subnormal, a spread of every exponent's
 * mantissas, zeros, infinities and NaNs, signalling ones made quiet as
 * the CPU makes them; and an integer's fixed form (the plans' integers
 * alone) against put_int_as, byte for byte, over every format, width and
 * edge of a width. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "preload/args/encode.h"

/* What the CPU gives (this file is built as usual, with SSE). */
static uint64_t cpu_bits(uint32_t fbits)
{
    float f;
    memcpy(&f, &fbits, 4);
    volatile double d = f;
    double x = d;
    uint64_t b;
    memcpy(&b, &x, 8);
    return b;
}

static void check(uint32_t f)
{
    uint64_t want = cpu_bits(f), got = ct_float_to_double_bits(f);
    if (want != got)
        fail_msg("float %#x: %#llx, the CPU's %#llx", f,
                 (unsigned long long)got, (unsigned long long)want);
}

static void test_float_to_double(void **state)
{
    (void)state;
    for (uint32_t sign = 0; sign < 2; sign++) {
        uint32_t s = sign << 31;
        for (uint32_t m = 0; m < (1u << 23); m++)  /* zero, subnormals */
            check(s | m);
        for (uint32_t e = 1; e < 256; e++)  /* normals, inf, NaNs */
            for (uint32_t m = 0; m < (1u << 23); m += 2039)
                check(s | e << 23 | m);
        const uint32_t edge[] = {0x7f7fffff, 0x00800000, 0x007fffff, 0x00000001,
                                 0x7f800000, 0x7f800001, 0x7fbfffff, 0x7fc00000,
                                 0x7fffffff, 0x3f800000, 0x3effffff};
        for (size_t i = 0; i < sizeof edge / sizeof *edge; i++)
            check(s | edge[i]);
    }
}

/* The double's bytes after the tag, as put_fp_bits writes them. */
static void test_put_fp_bits(void **state)
{
    (void)state;
    uint8_t b[32];
    struct pay p = {b, 0};
    put_fp_bits(&p, 4, 0xffffffff00000000ull | 0x40490fdb);  /* pi as float */
    put_fp_bits(&p, 8, 0x400921fb54442d18ull);                /* pi */
    assert_int_equal(p.n, 18);
    assert_int_equal(b[0], CT_VAL_DOUBLE);
    assert_int_equal(b[9], CT_VAL_DOUBLE);
    double d1, d2;
    memcpy(&d1, b + 1, 8);
    memcpy(&d2, b + 10, 8);
    assert_true(d1 == (double)3.14159274101257324219f);
    assert_true(d2 == 3.141592653589793);
}

/* put_int_fixed by the form int_fixed_form makes gives put_int_as's
 * bytes for every fixed format, width and edge value; AUTO and what is
 * not an integer have no form. */
static void test_int_fixed_form(void **state)
{
    (void)state;
    const unsigned fmts[] = {CT_FMT_SIGNED, CT_FMT_UNSIGNED, CT_FMT_HEX,
                             CT_FMT_PTR, CT_FMT_CHAR, CT_FMT_OCT};
    const unsigned widths[] = {1, 2, 4, 8};
    const uint64_t base[] = {0, 1, 2, 0x7f, 0x80, 0xff, 0x100, 0x7fff, 0x8000,
                             0xffff, 0x7fffffff, 0x80000000, 0xffffffff,
                             0x100000000ull, 0x7fffffffffffffffull,
                             0x123456789abcdef0ull, 0xfedcba9876543210ull};
    unsigned tried = 0;
    for (size_t f = 0; f < sizeof fmts / sizeof *fmts; f++)
        for (size_t w = 0; w < sizeof widths / sizeof *widths; w++)
            for (size_t i = 0; i < sizeof base / sizeof *base; i++)
                for (int neg = 0; neg < 2; neg++) {
                    uint64_t v = neg ? -base[i] : base[i];
                    struct int_form form;
                    assert_true(int_fixed_form(fmts[f], widths[w], &form));
                    uint8_t a[16], b[16];
                    struct pay pa = {a, 0}, pb = {b, 0};
                    put_int_as(&pa, fmts[f], widths[w], v);
                    put_int_fixed(&pb, form, v);
                    if (pa.n != pb.n || memcmp(a, b, pa.n) != 0)
                        fail_msg("format %u, width %u, value %#llx: %zu "
                                 "bytes, put_int_as's %zu", fmts[f],
                                 widths[w], (unsigned long long)v, pb.n, pa.n);
                    tried++;
                }
    assert_int_equal(tried, 6 * 4 * 17 * 2);
    struct int_form form;
    const unsigned none[] = {CT_FMT_AUTO, CT_FMT_STR, CT_FMT_FLOAT,
                             CT_FMT_STRUCT, CT_FMT_ENUM};
    for (size_t i = 0; i < sizeof none / sizeof *none; i++)
        assert_false(int_fixed_form(none[i], 4, &form));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_float_to_double),
        cmocka_unit_test(test_put_fp_bits),
        cmocka_unit_test(test_int_fixed_form),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
