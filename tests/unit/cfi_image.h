/*
 * A constructed object for the sampler's fast stack walk (sample_cfi.c):
 * an .eh_frame_hdr, CIEs and FDEs written byte by byte into img[], whose
 * functions' rules are known, and the dl_iterate_phdr and readable
 * callbacks that show it.  Shared by tests/unit/test_preload_cfi.c and
 * the fuzz harness tests/fuzz/fuzz_cfi.c (which flips its bytes).
 */
#ifndef CT_TEST_CFI_IMAGE_H
#define CT_TEST_CFI_IMAGE_H

#include <link.h>
#include <stdint.h>
#include <string.h>

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

#endif /* CT_TEST_CFI_IMAGE_H */
