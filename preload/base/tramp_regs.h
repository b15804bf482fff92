/*
 * Register saves shared by the tracer's trampolines (assembler macros,
 * x86-64): the library-call stubs (libcalls/plt_tramp.S) and the
 * patchable-entry trampolines (patch/patch_tramp.S) both keep the vector
 * argument registers around a call into C, and both keep a function's
 * return values around the call that records its return.  movups, since
 * a caller may leave the stack misaligned; the x87 stack is not used by
 * the tracer's C code and is left alone.
 */
#ifndef CT_TRAMP_REGS_H
#define CT_TRAMP_REGS_H
#ifdef __ASSEMBLER__

/* %xmm0-%xmm7, 128 bytes from \off(%rsp). */
        .macro  ct_save_vector_args off
        movups  %xmm0, \off+0(%rsp)
        movups  %xmm1, \off+16(%rsp)
        movups  %xmm2, \off+32(%rsp)
        movups  %xmm3, \off+48(%rsp)
        movups  %xmm4, \off+64(%rsp)
        movups  %xmm5, \off+80(%rsp)
        movups  %xmm6, \off+96(%rsp)
        movups  %xmm7, \off+112(%rsp)
        .endm

        .macro  ct_load_vector_args off
        movups  \off+0(%rsp), %xmm0
        movups  \off+16(%rsp), %xmm1
        movups  \off+32(%rsp), %xmm2
        movups  \off+48(%rsp), %xmm3
        movups  \off+64(%rsp), %xmm4
        movups  \off+80(%rsp), %xmm5
        movups  \off+96(%rsp), %xmm6
        movups  \off+112(%rsp), %xmm7
        .endm

/* The return values, 48 bytes from \off(%rsp) (0 unless given): %xmm0 at
 * 0, %xmm1 at 16, %rdx at 32 and %rax at 40, so that with \off+48(%rsp)
 * the stack pointer on arrival, %rax is just below it (libcalls/args.c
 * reads them there).  The general ones and the vector ones can be saved
 * apart (a trampoline that first tries C code which uses no vector
 * register). */
        .macro  ct_save_return_gprs off=0
        movq    %rdx, \off+32(%rsp)
        movq    %rax, \off+40(%rsp)
        .endm

        .macro  ct_load_return_gprs off=0
        movq    \off+32(%rsp), %rdx
        movq    \off+40(%rsp), %rax
        .endm

        .macro  ct_save_return_vectors off=0
        movups  %xmm0, \off+0(%rsp)
        movups  %xmm1, \off+16(%rsp)
        .endm

        .macro  ct_load_return_vectors off=0
        movups  \off+0(%rsp), %xmm0
        movups  \off+16(%rsp), %xmm1
        .endm

        .macro  ct_save_return_values off=0
        ct_save_return_vectors \off
        ct_save_return_gprs \off
        .endm

        .macro  ct_load_return_values off=0
        ct_load_return_vectors \off
        ct_load_return_gprs \off
        .endm

/* The upper halves of %ymm0-%ymm\last (bits 128-255), 16 bytes each
 * from \off(%rsp), when the CPU has AVX (ct_vec_upper, base/vec_upper.c);
 * the byte at \flag(%rsp) says whether one of them is not zero, and only
 * then are they put back.  The C library's AVX2 string and memory
 * functions, which the tracer's C code may reach, end in vzeroupper,
 * which clears the halves: a library call's or a patched function's
 * __m256 arguments, or its __m256 return value, would reach it cut.  A
 * program that uses no AVX keeps its registers clean: the halves are
 * stored to memory (a vextractf128 into a register, or a write of an
 * upper half, would make every SSE instruction after it pay for dirty
 * upper halves, the program's and the tracer's, many times the call's
 * cost) and tested there with the general registers.  Clobbers %rax,
 * which the trampolines keep before.  ct_load_upper_halves comes after
 * the movups that restore the low halves, which leave the upper ones
 * alone. */
        .macro  ct_save_upper_halves off, last, flag
        movb    $0, \flag(%rsp)
        testb   $1, ct_vec_upper(%rip)
        jz      8f
        vextractf128 $1, %ymm0, \off+0(%rsp)
        .if \last >= 1
        vextractf128 $1, %ymm1, \off+16(%rsp)
        .endif
        .if \last >= 7
        vextractf128 $1, %ymm2, \off+32(%rsp)
        vextractf128 $1, %ymm3, \off+48(%rsp)
        vextractf128 $1, %ymm4, \off+64(%rsp)
        vextractf128 $1, %ymm5, \off+80(%rsp)
        vextractf128 $1, %ymm6, \off+96(%rsp)
        vextractf128 $1, %ymm7, \off+112(%rsp)
        .endif
        movq    \off+0(%rsp), %rax
        orq     \off+8(%rsp), %rax
        .if \last >= 1
        orq     \off+16(%rsp), %rax
        orq     \off+24(%rsp), %rax
        .endif
        .if \last >= 7
        orq     \off+32(%rsp), %rax
        orq     \off+40(%rsp), %rax
        orq     \off+48(%rsp), %rax
        orq     \off+56(%rsp), %rax
        orq     \off+64(%rsp), %rax
        orq     \off+72(%rsp), %rax
        orq     \off+80(%rsp), %rax
        orq     \off+88(%rsp), %rax
        orq     \off+96(%rsp), %rax
        orq     \off+104(%rsp), %rax
        orq     \off+112(%rsp), %rax
        orq     \off+120(%rsp), %rax
        .endif
        setnz   \flag(%rsp)
8:
        .endm

        .macro  ct_load_upper_halves off, last, flag
        testb   $1, \flag(%rsp)
        jz      8f
        vinsertf128 $1, \off+0(%rsp), %ymm0, %ymm0
        .if \last >= 1
        vinsertf128 $1, \off+16(%rsp), %ymm1, %ymm1
        .endif
        .if \last >= 7
        vinsertf128 $1, \off+32(%rsp), %ymm2, %ymm2
        vinsertf128 $1, \off+48(%rsp), %ymm3, %ymm3
        vinsertf128 $1, \off+64(%rsp), %ymm4, %ymm4
        vinsertf128 $1, \off+80(%rsp), %ymm5, %ymm5
        vinsertf128 $1, \off+96(%rsp), %ymm6, %ymm6
        vinsertf128 $1, \off+112(%rsp), %ymm7, %ymm7
        .endif
8:
        .endm

#endif
#endif
