/*
 * The AVX check for the trampolines (vec_upper.h): the CPU says it has
 * AVX and the kernel saves its state (XCR0's SSE and AVX bits), which
 * __builtin_cpu_supports("avx") checks both of.
 */
#include "preload/base/vec_upper.h"

uint8_t ct_vec_upper __attribute__((visibility("hidden")));

void ct_vec_upper_init(void)
{
    __builtin_cpu_init();
    __atomic_store_n(&ct_vec_upper, __builtin_cpu_supports("avx") ? 1 : 0,
                     __ATOMIC_RELAXED);
}
