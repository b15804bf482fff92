/*
 * sample_cfi.c: the sampler's fast stack walk, by the .eh_frame rules of
 * the common frames, cached per pc.  libunwind's remote walk
 * (sample_remote.c) takes a sample whenever one of its frames needs more.
 */
#ifndef CT_SAMPLE_CFI_H
#define CT_SAMPLE_CFI_H

#include <stddef.h>
#include <stdint.h>

struct ct_perf_regs;
struct dl_phdr_info;

/* Forgets every object and rule: objects were loaded or unloaded.
 * iterate is dl_iterate_phdr (a test's own list in the unit tests);
 * readable says whether [addr, addr + len) lies in a loaded object's
 * readable segments, where the unwind tables are read. */
void ct_cfi_objects_changed(
    int (*iterate)(int (*)(struct dl_phdr_info *, size_t, void *), void *),
    int (*readable)(uintptr_t addr, size_t len));

/* The walk of one sample: the registers, the copy of the stack from the
 * sampled rsp (stack_len bytes), and the return address that stands for
 * the library-call trampoline's (0: none) with its look-up.  Returns the
 * number of pcs written, leaf first, at most max; 0 when a frame needs
 * libunwind (nothing is to be taken from pcs then).  *used: the bytes of
 * the copy the walk read up to, or SIZE_MAX when it ended at the copy's
 * end (the stack goes on past it). */
unsigned ct_cfi_walk(const struct ct_perf_regs *regs, const uint8_t *stack,
                     size_t stack_len, uintptr_t tramp,
                     uintptr_t (*real_return)(const void *, uintptr_t),
                     const void *plt_slot, uintptr_t *pcs, unsigned max,
                     size_t *used);

#endif /* CT_SAMPLE_CFI_H */
