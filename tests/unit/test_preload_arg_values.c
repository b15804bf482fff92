/* The tracer's encoding of kept values (preload/args/encode.h): a float
 * made a double with integers alone, as the library-call stub's fast way
 * needs (plan.c is built with -mgeneral-regs-only), against the CPU's own
 * conversion, over every subnormal, a spread of every exponent's
 * mantissas, zeros, infinities and NaNs, signalling ones made quiet as
 * the CPU makes them. */
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_float_to_double),
        cmocka_unit_test(test_put_fp_bits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
