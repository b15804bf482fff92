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

/* The return values, 48 bytes from 0(%rsp): %xmm0 at 0, %xmm1 at 16,
 * %rdx at 32 and %rax at 40, so that with 48(%rsp) the stack pointer on
 * arrival, %rax is just below it (libcalls/args.c reads them there).  The
 * general ones and the vector ones can be saved apart (a trampoline that
 * first tries C code which uses no vector register). */
        .macro  ct_save_return_gprs
        movq    %rdx, 32(%rsp)
        movq    %rax, 40(%rsp)
        .endm

        .macro  ct_load_return_gprs
        movq    32(%rsp), %rdx
        movq    40(%rsp), %rax
        .endm

        .macro  ct_save_return_vectors
        movups  %xmm0, 0(%rsp)
        movups  %xmm1, 16(%rsp)
        .endm

        .macro  ct_save_return_values
        ct_save_return_vectors
        ct_save_return_gprs
        .endm

        .macro  ct_load_return_values
        movups  0(%rsp), %xmm0
        movups  16(%rsp), %xmm1
        ct_load_return_gprs
        .endm

#endif
#endif
