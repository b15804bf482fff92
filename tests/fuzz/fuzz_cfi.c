/* libFuzzer harness: the sampler's fast stack walk (preload/sampling/
 * sample_cfi.c), which reads .eh_frame_hdr, CIEs and FDEs from the loaded
 * objects: a corrupt table in a program must never make it read outside
 * the object's readable segments or loop.  The input flips bytes of the
 * constructed object of the unit tests (tests/unit/cfi_image.h: an empty
 * input leaves it valid) and, past its 4 KiB, of the stack copy; each
 * input is walked from a pc in every function and from one it names. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "preload/sampling/sample.h"
#include "preload/sampling/sample_cfi.h"

#include "../unit/cfi_image.h"

static uint64_t stack[64];

static uintptr_t no_return(const void *slot, uintptr_t sp)
{
    (void)slot;
    return sp & 1 ? 0 : addr(FN_C + 4);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    build();
    size_t n = size < sizeof img ? size : sizeof img;
    for (size_t i = 0; i < n; i++)
        img[i] ^= data[i];
    /* a stack of frames of A, B and C, as the unit tests walk */
    memset(stack, 0, sizeof stack);
    stack[3] = addr(FN_B + 0x10);
    stack[6] = (uintptr_t)&stack[10];
    stack[7] = addr(FN_C + 0x10);
    for (size_t i = sizeof img; i < size && i - sizeof img < sizeof stack; i++)
        ((uint8_t *)stack)[i - sizeof img] ^= data[i];
    ct_cfi_objects_changed(iterate, readable);

    struct ct_perf_regs regs;
    memset(&regs, 0, sizeof regs);
    regs.r[7] = (uintptr_t)stack;
    regs.r[6] = (uintptr_t)&stack[6];
    uintptr_t pcs[32];
    size_t named = 0, used;
    if (size >= 2)
        named = (size_t)(data[0] | data[1] << 8) % (TEXT_END - TEXT + 64);
    const size_t starts[] = {FN_A + 8, FN_B + 0x10, FN_B + 0x28, FN_C, FN_D + 1,
                             FN_E + 2, FN_F + 3, FN_G + 4, TEXT + named};
    for (size_t i = 0; i < sizeof starts / sizeof starts[0]; i++) {
        regs.r[16] = addr(starts[i]);
        unsigned got = ct_cfi_walk(&regs, (const uint8_t *)stack, sizeof stack,
                                   addr(FN_A + 0x20), no_return, NULL, pcs, 32,
                                   &used);
        if (got > 32)
            __builtin_trap();
    }
    return 0;
}
