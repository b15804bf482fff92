/*
 * The cost of a recorded library call, measured at start as bias.c
 * measures a hooked call's, for the analyzer (docs/analysis.md, "The
 * tracer's bias"): a library call goes through a stub, the stub's frame
 * keeping and the return trampoline, which cost more than the two hooks
 * of an instrumented function, and the figure taken off each call is the
 * hooks'.  The calls go through a slot of the stubs' table of their own,
 * whose target is a function of the tracer's that does nothing but note
 * the enter record's clock read: the same stub, trampolines and records
 * as a call the program makes through its PLT.  In the profile mode the
 * calls take the profile's path, as the run's do (profile_bias.c).
 */
#include <stdint.h>

#include "preload/libcalls/plt.h"
#include "preload/profile/profile_mode.h"
#include "preload/tracer.h"

/* The enter record's clock read in the last call. */
static volatile uint64_t lib_in;

/* The library function: a leaf, as the smallest one is. */
__attribute__((noinline)) static uintptr_t lib_target(uintptr_t x)
{
    lib_in = ct_self->prev_ticks;
    __asm__("" : "+r"(x));
    return x + 1;
}

/* Where the program's call would go: the slot's stub. */
static uintptr_t (*lib_stub)(uintptr_t);

/* The caller: a call through the stub, as a call through the PLT is
 * (not a tail call, which would return past the caller). */
__attribute__((noinline)) static uintptr_t lib_call(uintptr_t x)
{
    x = lib_stub(x);
    __asm__ volatile("" : "+r"(x));
    return x;
}

void ct_plt_measure_bias(void)
{
    if (!ct_plt_recording() || ct_proc.bias_lib_ps)
        return;
    uintptr_t stub = ct_plt_pointer_slot((uintptr_t)lib_target, NULL);
    if (!stub)
        return;
    lib_stub = (uintptr_t (*)(uintptr_t))stub;
    const struct ct_bias_call call = {lib_call, &lib_in};
    struct ct_bias_figures f;
    /* under the path the run's calls take: the profile's, or the trace's */
    if ((ct_profile_stop ? ct_profile_bias_measure(lib_call, &f)
                         : ct_bias_measure(&call, &f)) != 0)
        return;
    ct_proc.bias_lib_ps = f.pair_ps;
    ct_proc.bias_lib_self_ps = f.self_ps;
    /* The header is mapped by now, unless the file is made at the first
     * block (then it is filled from ct_proc). */
    if (ct_proc.hdr) {
        ct_proc.hdr->bias_lib_ps = f.pair_ps;
        ct_proc.hdr->bias_lib_self_ps = f.self_ps;
    }
}
