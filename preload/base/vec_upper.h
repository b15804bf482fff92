/*
 * Whether the tracer's trampolines keep the upper halves of the vector
 * argument and return registers (base/tramp_regs.h, ct_save_upper_halves):
 * on a CPU with AVX, whose %ymm registers a library call's or a patched
 * function's __m256 arguments and return value travel in.
 */
#ifndef CT_VEC_UPPER_H
#define CT_VEC_UPPER_H

#include <stdint.h>

/* 1 when the CPU and the kernel enable AVX; read by the trampolines. */
extern uint8_t ct_vec_upper;
/* Sets it; at start, before any stub or patched entry is used. */
void ct_vec_upper_init(void);

#endif /* CT_VEC_UPPER_H */
