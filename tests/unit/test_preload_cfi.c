/*
 * The sampler's fast stack walk (preload/sampling/sample_cfi.c) over a
 * constructed object: an .eh_frame_hdr, CIEs and FDEs written byte by
 * byte, and stacks whose frames are known, so each walk's pcs are known
 * exactly.  The walk must follow the rules it knows and give up (0) on
 * every other, so that libunwind walks those samples.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "preload/sampling/sample.h"
#include "preload/sampling/sample_cfi.h"

#include "cfi_image.h"

/* A stack copy and the sample's registers; what the last walk read. */
static uint64_t stack[32];
static struct ct_perf_regs regs;
static size_t used;

static void frame0(size_t pc, unsigned bp_slot)
{
    memset(stack, 0, sizeof stack);
    memset(&regs, 0, sizeof regs);
    regs.r[16] = addr(pc);
    regs.r[7] = (uintptr_t)stack;
    regs.r[6] = (uintptr_t)&stack[bp_slot];
}

static unsigned walk_len(size_t len, uintptr_t *pcs)
{
    return ct_cfi_walk(&regs, (const uint8_t *)stack, len, 0, NULL, NULL,
                       pcs, 16, &used);
}

static unsigned walk(uintptr_t *pcs)
{
    return walk_len(sizeof stack, pcs);
}

static int setup(void **state)
{
    (void)state;
    build();
    ct_cfi_objects_changed(iterate, readable);
    return 0;
}

/* A (rsp + 32) called from B (rbp frame) called from C (outermost). */
static void test_three_frames(void **state)
{
    (void)state;
    frame0(FN_A + 8, 6);
    stack[3] = addr(FN_B + 0x10);   /* A's CFA is stack + 32    */
    stack[6] = (uintptr_t)&stack[10]; /* B's caller's rbp, at rbp */
    stack[7] = addr(FN_C + 0x10);   /* B's CFA is rbp + 16      */
    uintptr_t pcs[16];
    assert_int_equal(walk(pcs), 3);
    assert_int_equal(pcs[0], addr(FN_A + 8));
    assert_int_equal(pcs[1], addr(FN_B + 0x10));
    assert_int_equal(pcs[2], addr(FN_C + 0x10));
    assert_int_equal(used, 8 * 8);   /* B's return address, the last read */
    /* the same walk again: now from the cache */
    assert_int_equal(walk(pcs), 3);
    assert_int_equal(pcs[2], addr(FN_C + 0x10));
}

/* Each row of A: the CFA offset changes where the return address is. */
static void test_rows(void **state)
{
    (void)state;
    uintptr_t pcs[16];
    static const struct { size_t pc; unsigned slot; } rows[] = {
        {FN_A + 0, 0}, {FN_A + 1, 1}, {FN_A + 4, 1}, {FN_A + 5, 3}, {FN_A + 0x3f, 3},
    };
    for (unsigned i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        frame0(rows[i].pc, 20);
        stack[rows[i].slot] = addr(FN_C + 8);
        assert_int_equal(walk(pcs), 2);
        assert_int_equal(pcs[1], addr(FN_C + 8));
    }
}

/* B's epilogue (rsp + 8, rbp kept), then the remembered row again. */
static void test_remember_restore(void **state)
{
    (void)state;
    uintptr_t pcs[16];
    frame0(FN_B + 0x20, 20);
    stack[0] = addr(FN_C + 4);
    assert_int_equal(walk(pcs), 2);
    assert_int_equal(pcs[1], addr(FN_C + 4));

    frame0(FN_B + 0x28, 4);   /* rbp frame again: CFA = stack + 48 */
    stack[5] = addr(FN_C + 4);
    assert_int_equal(walk(pcs), 2);
    assert_int_equal(pcs[1], addr(FN_C + 4));
}

/* A caller's rule is looked up at its return address less one: a call
 * that ends C returns just past it, into D's range. */
static void test_return_address_less_one(void **state)
{
    (void)state;
    uintptr_t pcs[16];
    frame0(FN_A + 8, 20);
    stack[3] = addr(FN_C + 0x40);
    assert_int_equal(walk(pcs), 2);
    assert_int_equal(pcs[1], addr(FN_D));
    /* the leaf's own pc is looked up as it is: D's expression */
    frame0(FN_D, 20);
    assert_int_equal(walk(pcs), 0);
}

/* Rules the fast walk does not follow: libunwind's (0). */
static void test_gives_up(void **state)
{
    (void)state;
    uintptr_t pcs[16];
    frame0(FN_D + 4, 20);            /* CFA expression */
    assert_int_equal(walk(pcs), 0);
    frame0(FN_E + 4, 20);            /* signal frame */
    assert_int_equal(walk(pcs), 0);
    frame0(FN_F + 4, 20);            /* CFA in r10 */
    assert_int_equal(walk(pcs), 0);
    frame0(TEXT_END + 4, 20);        /* no object */
    assert_int_equal(walk(pcs), 0);
    frame0(FN_A + 8, 20);            /* a caller with an expression */
    stack[3] = addr(FN_D + 9);
    assert_int_equal(walk(pcs), 0);
}

/* The walk ends, with the frames so far, where libunwind's would. */
static void test_ends(void **state)
{
    (void)state;
    uintptr_t pcs[16];
    /* the return address beyond the copy */
    frame0(FN_A + 8, 6);
    stack[3] = addr(FN_B + 0x10);
    stack[7] = addr(FN_C + 0x10);
    assert_int_equal(walk_len(7 * 8 + 7, pcs), 2);
    assert_int_equal(used, SIZE_MAX);   /* a larger copy would go on */
    assert_int_equal(walk_len(8 * 8, pcs), 3);
    assert_int_equal(used, 8 * 8);
    /* G's saved rbp beyond the copy, then needed by G's caller (B) */
    frame0(FN_G + 4, 20);
    /* the sample's rbp, if B's rule used it, would find stack[1] */
    regs.r[6] = (uintptr_t)stack;
    stack[0] = addr(FN_B + 0x10);
    stack[1] = addr(FN_C + 4);
    stack[2] = (uintptr_t)&stack[8];
    stack[9] = addr(FN_C + 4);
    assert_int_equal(walk_len(16, pcs), 2);
    assert_int_equal(pcs[1], addr(FN_B + 0x10));
    assert_int_equal(used, SIZE_MAX);   /* G's rbp past the end */
    assert_int_equal(walk_len(sizeof stack, pcs), 3);   /* read: followed */
    assert_int_equal(pcs[2], addr(FN_C + 4));
    /* a saved rbp that points elsewhere: its frame's walk ends there */
    stack[2] = 8;
    assert_int_equal(walk_len(sizeof stack, pcs), 2);
    assert_true(used != SIZE_MAX);   /* no copy would have helped */
    /* a return address of 0 */
    frame0(FN_A + 8, 20);
    stack[3] = 0;
    assert_int_equal(walk(pcs), 1);
    /* max frames */
    frame0(FN_A + 8, 6);
    stack[3] = addr(FN_B + 0x10);
    stack[7] = addr(FN_C + 0x10);
    assert_int_equal(ct_cfi_walk(&regs, (const uint8_t *)stack, sizeof stack,
                                 0, NULL, NULL, pcs, 2, &used), 2);
}

/* The library-call trampoline's return address stands for the real one. */
static uintptr_t real_at;
static uintptr_t real_return(const void *slot, uintptr_t sp)
{
    (void)slot;
    return sp == (uintptr_t)&stack[4] ? real_at : 0;
}

static void test_trampoline(void **state)
{
    (void)state;
    uintptr_t pcs[16], tramp = addr(FN_A + 0x20);
    frame0(FN_A + 8, 20);
    stack[3] = tramp;
    real_at = addr(FN_C + 0x10);
    assert_int_equal(ct_cfi_walk(&regs, (const uint8_t *)stack, sizeof stack,
                                 tramp, real_return, NULL, pcs, 16, &used), 2);
    assert_int_equal(pcs[1], addr(FN_C + 0x10));
    real_at = 0;   /* not found: libunwind's */
    assert_int_equal(ct_cfi_walk(&regs, (const uint8_t *)stack, sizeof stack,
                                 tramp, real_return, NULL, pcs, 16, &used), 0);
}

/* Objects changed: the cache is forgotten with them. */
static void test_objects_changed(void **state)
{
    (void)state;
    uintptr_t pcs[16];
    frame0(FN_A + 8, 20);
    stack[3] = addr(FN_C + 8);
    assert_int_equal(walk(pcs), 2);
    img[0] = 2;   /* a header version no one writes */
    ct_cfi_objects_changed(iterate, readable);
    assert_int_equal(walk(pcs), 0);
    img[0] = 1;
    ct_cfi_objects_changed(iterate, readable);
    assert_int_equal(walk(pcs), 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_three_frames),
        cmocka_unit_test(test_rows),
        cmocka_unit_test(test_remember_restore),
        cmocka_unit_test(test_return_address_less_one),
        cmocka_unit_test(test_gives_up),
        cmocka_unit_test(test_ends),
        cmocka_unit_test(test_trampoline),
        cmocka_unit_test(test_objects_changed),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
