/* The tracer's share of the address space (budget.c): an eighth of what
 * the limit leaves beside the program, blocks shrinking by halves to fit,
 * and a hold on block sizes after a block could not be mapped. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdint.h>

#include "preload/base/budget.h"

#define K 1024u
#define M (1024u * 1024)

static void no_limit_takes_what_is_asked(void **state)
{
    (void)state;
    assert_int_equal(ct_budget_fit_in(0, 0, 0, 1 * M, 64 * K), 1 * M);
    assert_int_equal(ct_budget_fit_in(0, 5 * M, 900 * M, 1 * M, 64 * K), 1 * M);
}

static void an_eighth_of_the_room(void **state)
{
    (void)state;
    /* 8 MiB limit, 4 MiB used by the program: 512 KiB for the tracer. */
    assert_int_equal(ct_budget_fit_in(8 * M, 4 * M, 0, 1 * M, 16 * K), 512 * K);
    assert_int_equal(ct_budget_fit_in(8 * M, 4 * M, 0, 512 * K, 16 * K), 512 * K);
    /* The tracer's own part is not the program's: with 256 KiB of the
     * 4 MiB its own, the share is (8 - 3.75) / 8 MiB, 256 KiB of it free. */
    assert_int_equal(ct_budget_fit_in(8 * M, 4 * M, 256 * K, 1 * M, 16 * K),
                     256 * K);
    /* Halves, never under least, and 0 when least does not fit. */
    assert_int_equal(ct_budget_fit_in(8 * M, 4 * M, 500 * K, 1 * M, 4 * K),
                     64 * K);  /* 74.5 KiB left */
    assert_int_equal(ct_budget_fit_in(8 * M, 4 * M, 570 * K, 1 * M, 4 * K),
                     8 * K);   /* 13.25 KiB left */
    assert_int_equal(ct_budget_fit_in(8 * M, 4 * M, 570 * K, 1 * M, 20 * K), 0);
    /* Sizes are whole pages. */
    assert_int_equal(ct_budget_fit_in(8 * M, 4 * M, 0, 1 * M, 5000) % 4096, 0);
    assert_int_equal(ct_budget_fit_in(8 * M, 4 * M, 400 * K, 1 * M, 5000),
                     128 * K);  /* 162 KiB left */
}

static void nothing_past_the_limit(void **state)
{
    (void)state;
    assert_int_equal(ct_budget_fit_in(8 * M, 8 * M, 0, 64 * K, 4 * K), 0);
    assert_int_equal(ct_budget_fit_in(8 * M, 9 * M, 0, 64 * K, 4 * K), 0);
    /* The process's size unknown: a thirty-second of the limit in all. */
    assert_int_equal(ct_budget_fit_in(8 * M, 0, 0, 1 * M, 4 * K), 256 * K);
    assert_int_equal(ct_budget_fit_in(8 * M, 0, 256 * K, 1 * M, 4 * K), 0);
}

static void blocks_held_after_a_failure(void **state)
{
    (void)state;
    /* No limit in this process: only the hold acts. */
    assert_int_equal(ct_budget_block(1 * M, 8 * K), 1 * M);
    ct_budget_block_result(1 * M, 0);
    assert_int_equal(ct_budget_block(1 * M, 8 * K), 512 * K);
    ct_budget_block_result(512 * K, 0);
    assert_int_equal(ct_budget_block(1 * M, 8 * K), 256 * K);
    assert_int_equal(ct_budget_block(1 * M, 300 * K), 300 * K);  /* least */
    assert_int_equal(ct_budget_block(64 * K, 8 * K), 64 * K);
    /* Had again: the hold doubles until it is gone. */
    ct_budget_block_result(256 * K, 1);
    assert_int_equal(ct_budget_block(1 * M, 8 * K), 512 * K);
    ct_budget_block_result(512 * K, 1);
    assert_int_equal(ct_budget_block(1 * M, 8 * K), 1 * M);
    for (int i = 0; i < 12; i++)
        ct_budget_block_result(ct_budget_block(1u << 30, 8 * K), 1);
    assert_int_equal(ct_budget_block(1u << 30, 8 * K), 1u << 30);
}

static void counted(void **state)
{
    (void)state;
    uint64_t before = ct_budget_used();
    ct_budget_add(64 * K);
    assert_int_equal(ct_budget_used(), before + 64 * K);
    ct_budget_add(-(int64_t)(64 * K));
    assert_int_equal(ct_budget_used(), before);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(no_limit_takes_what_is_asked),
        cmocka_unit_test(an_eighth_of_the_room),
        cmocka_unit_test(nothing_past_the_limit),
        cmocka_unit_test(blocks_held_after_a_failure),
        cmocka_unit_test(counted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
