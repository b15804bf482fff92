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

#include <link.h>

#include "preload/sampling/sample.h"
#include "preload/sampling/sample_cfi.h"

/* The object: tables first, then the "text" (addresses only: never run). */
static uint8_t img[4096] __attribute__((aligned(16)));
static size_t at;   /* where the next byte goes */
#define TEXT 0x800
#define FN_A (TEXT + 0x00)   /* rsp-based, grows by 8 then 24        */
#define FN_B (TEXT + 0x40)   /* rbp frame, remember/restore state     */
#define FN_C (TEXT + 0x80)   /* outermost: return address undefined   */
#define FN_D (TEXT + 0xc0)   /* CFA by an expression                  */
#define FN_E (TEXT + 0x100)  /* a signal frame's CIE                  */
#define FN_F (TEXT + 0x140)  /* CFA in r10                            */
#define FN_G (TEXT + 0x180)  /* rbp saved above the CFA               */
#define TEXT_END (TEXT + 0x1c0)

static uintptr_t addr(size_t off) { return (uintptr_t)img + off; }

static void put(const void *p, size_t n)
{
    memcpy(img + at, p, n);
    at += n;
}
static void put8(uint8_t v) { put(&v, 1); }
static void put32(uint32_t v) { put(&v, 4); }

/* A CIE: "zR" (or "zRS"), code 1, data -8, return address r16, FDE
 * pointers pc-relative sdata4; CFA = rsp + 8, return address at CFA - 8. */
static size_t cie(int signal)
{
    size_t start = at;
    put32(0);   /* length, below */
    put32(0);   /* CIE id */
    put8(1);
    put(signal ? "zRS" : "zR", signal ? 4 : 3);
    put8(1);      /* code alignment */
    put8(0x78);   /* data alignment -8 */
    put8(16);     /* return address column */
    put8(1);      /* augmentation data: the R encoding */
    put8(0x1b);
    static const uint8_t init[] = {0x0c, 7, 8, 0x90, 1};
    put(init, sizeof init);
    while ((at - start) % 8)
        put8(0);
    uint32_t len = (uint32_t)(at - start - 4);
    memcpy(img + start, &len, 4);
    return start;
}

static size_t fde(size_t cie_at, size_t fn, uint32_t size,
                  const uint8_t *insns, size_t n)
{
    size_t start = at;
    put32(0);
    put32((uint32_t)(at - cie_at));   /* back to the CIE */
    int32_t rel = (int32_t)(addr(fn) - addr(at));
    put(&rel, 4);
    put32(size);
    put8(0);   /* no augmentation data */
    put(insns, n);
    while ((at - start) % 8)
        put8(0);
    uint32_t len = (uint32_t)(at - start - 4);
    memcpy(img + start, &len, 4);
    return start;
}

static void build(void)
{
    memset(img, 0, sizeof img);
    at = 0x100;   /* the header goes at 0 */
    size_t c = cie(0), cs = cie(1);
    static const uint8_t a[] = {
        0x41, 0x0e, 16,           /* +1: CFA rsp + 16             */
        0x44, 0x0e, 32,           /* +5: CFA rsp + 32             */
    };
    static const uint8_t b[] = {
        0x41, 0x0e, 16, 0x86, 2,  /* +1: rsp + 16, rbp at CFA - 16 */
        0x43, 0x0d, 6,            /* +4: CFA rbp + 16             */
        0x0a,                     /* remember                     */
        0x5c, 0x0c, 7, 8, 0xc6,   /* +0x20: rsp + 8, rbp restored */
        0x41, 0x0b,               /* +0x21: the remembered row    */
    };
    static const uint8_t cc[] = {0x07, 16};              /* RA undefined */
    static const uint8_t d[] = {0x0f, 2, 0x77, 0};       /* breg7 0      */
    static const uint8_t e[] = {0x00};
    static const uint8_t f[] = {0x0c, 10, 0};            /* CFA r10 + 0  */
    static const uint8_t g[] = {0x11, 6, 0x7f};          /* rbp at CFA+8 */
    size_t fa = fde(c, FN_A, 0x40, a, sizeof a);
    size_t fb = fde(c, FN_B, 0x40, b, sizeof b);
    size_t fc = fde(c, FN_C, 0x40, cc, sizeof cc);
    size_t fd = fde(c, FN_D, 0x40, d, sizeof d);
    size_t fe = fde(cs, FN_E, 0x40, e, sizeof e);
    size_t ff = fde(c, FN_F, 0x40, f, sizeof f);
    size_t fg = fde(c, FN_G, 0x40, g, sizeof g);
    put32(0);   /* .eh_frame's terminator */
    assert_true(at < TEXT);
    /* .eh_frame_hdr: version, pcrel sdata4 frame pointer, udata4 count,
     * datarel sdata4 table */
    size_t fdes[] = {fa, fb, fc, fd, fe, ff, fg};
    size_t fns[] = {FN_A, FN_B, FN_C, FN_D, FN_E, FN_F, FN_G};
    size_t save = at;
    at = 0;
    put8(1), put8(0x1b), put8(0x03), put8(0x3b);
    int32_t rel = (int32_t)(0x100 - 4);
    put(&rel, 4);
    put32(7);
    for (int i = 0; i < 7; i++) {
        int32_t loc = (int32_t)fns[i], where = (int32_t)fdes[i];
        put(&loc, 4);
        put(&where, 4);
    }
    at = save;
}

static int iterate(int (*cb)(struct dl_phdr_info *, size_t, void *), void *data)
{
    ElfW(Phdr) ph[2];
    memset(ph, 0, sizeof ph);
    ph[0].p_type = PT_GNU_EH_FRAME;
    ph[0].p_vaddr = addr(0);
    ph[1].p_type = PT_LOAD;
    ph[1].p_flags = PF_R | PF_X;
    ph[1].p_vaddr = addr(TEXT);
    ph[1].p_memsz = TEXT_END - TEXT;
    struct dl_phdr_info info;
    memset(&info, 0, sizeof info);
    info.dlpi_name = "constructed";
    info.dlpi_phdr = ph;
    info.dlpi_phnum = 2;
    return cb(&info, sizeof info, data);
}

static int readable(uintptr_t a, size_t len)
{
    return a >= addr(0) && a + len <= addr(TEXT) && a + len >= a;
}

/* A stack copy and the sample's registers. */
static uint64_t stack[32];
static struct ct_perf_regs regs;

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
                       pcs, 16);
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
    assert_int_equal(walk_len(8 * 8, pcs), 3);
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
    assert_int_equal(walk_len(sizeof stack, pcs), 3);   /* read: followed */
    assert_int_equal(pcs[2], addr(FN_C + 4));
    /* a saved rbp that points elsewhere: its frame's walk ends there */
    stack[2] = 8;
    assert_int_equal(walk_len(sizeof stack, pcs), 2);
    /* a return address of 0 */
    frame0(FN_A + 8, 20);
    stack[3] = 0;
    assert_int_equal(walk(pcs), 1);
    /* max frames */
    frame0(FN_A + 8, 6);
    stack[3] = addr(FN_B + 0x10);
    stack[7] = addr(FN_C + 0x10);
    assert_int_equal(ct_cfi_walk(&regs, (const uint8_t *)stack, sizeof stack,
                                 0, NULL, NULL, pcs, 2), 2);
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
                                 tramp, real_return, NULL, pcs, 16), 2);
    assert_int_equal(pcs[1], addr(FN_C + 0x10));
    real_at = 0;   /* not found: libunwind's */
    assert_int_equal(ct_cfi_walk(&regs, (const uint8_t *)stack, sizeof stack,
                                 tramp, real_return, NULL, pcs, 16), 0);
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
