/*
 * The AVX check for the trampolines (vec_upper.h): the CPU says it has
 * AVX and the kernel saves its state (XCR0's SSE and AVX bits), which
 * __builtin_cpu_supports("avx") checks both of, and XGETBV reads the
 * state's use (CPUID leaf 0xd, sub-leaf 1, EAX bit 2), by which the
 * trampolines leave a program that uses no AVX alone.  Without that (a
 * CPU before Skylake or Zen) the halves are not kept, as before: any
 * other test of them is a 256-bit instruction, which would make every
 * SSE instruction of a program without AVX pay for dirty upper halves.
 */
#include <cpuid.h>

#include "preload/base/vec_upper.h"

uint8_t ct_vec_upper __attribute__((visibility("hidden")));

void ct_vec_upper_init(void)
{
    unsigned a = 0, b = 0, c = 0, d = 0;
    __builtin_cpu_init();
    int xgetbv1 = __get_cpuid_count(0xd, 1, &a, &b, &c, &d) && (a & 4);
    __atomic_store_n(&ct_vec_upper,
                     __builtin_cpu_supports("avx") && xgetbv1 ? 1 : 0,
                     __ATOMIC_RELAXED);
}
