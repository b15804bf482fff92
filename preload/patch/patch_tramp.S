/*
 * Trampolines of the patchable-entry mode (x86-64; the C side is
 * preload/patch/patch.c).  A patched function's first five bytes call, through
 * a near stub, ct_patch_entry with every argument register live; it asks
 * ct_patch_enter to record the call and swap the function's return
 * address for ct_patch_return, and goes back into the function.  The
 * function then returns into ct_patch_return, which asks ct_patch_leave
 * for the real return address (recording the return) and goes there with
 * the return values untouched.
 */
#include "preload/base/tramp_regs.h"

        .section .note.GNU-stack, "", @progbits
        .text

/* At entry: (%rsp) is the patched function's body, 8(%rsp) its return
 * address; %rsp is 16-byte aligned (the function's call pushed 8, ours 8). */
        .p2align 4
        .globl  ct_patch_entry
        .hidden ct_patch_entry
        .type   ct_patch_entry, @function
ct_patch_entry:
        .cfi_startproc
        subq    $208, %rsp
        .cfi_adjust_cfa_offset 208
        movq    %rdi, 0(%rsp)
        movq    %rsi, 8(%rsp)
        movq    %rdx, 16(%rsp)
        movq    %rcx, 24(%rsp)
        movq    %r8, 32(%rsp)
        movq    %r9, 40(%rsp)
        movq    %rax, 48(%rsp)
        movq    %r10, 56(%rsp)
        ct_save_vector_args 64
        movq    208(%rsp), %rdi         /* where the function goes on   */
        leaq    216(%rsp), %rsi         /* its return address's slot    */
        call    ct_patch_enter
        movq    0(%rsp), %rdi
        movq    8(%rsp), %rsi
        movq    16(%rsp), %rdx
        movq    24(%rsp), %rcx
        movq    32(%rsp), %r8
        movq    40(%rsp), %r9
        movq    48(%rsp), %rax
        movq    56(%rsp), %r10
        ct_load_vector_args 64
        addq    $208, %rsp
        .cfi_adjust_cfa_offset -208
        ret
        .cfi_endproc
        .size   ct_patch_entry, . - ct_patch_entry

/* Where a patched function returns: %rsp is 16-byte aligned (its return
 * address was popped).  The return values are %rax, %rdx, %xmm0, %xmm1
 * (x87's are not touched by the tracer's C code); the real return
 * address goes into the slot at 56(%rsp), which the last ret pops. */
        .p2align 4
        .globl  ct_patch_return
        .hidden ct_patch_return
        .type   ct_patch_return, @function
ct_patch_return:
        subq    $64, %rsp
        ct_save_return_values
        leaq    64(%rsp), %rdi          /* the stack pointer at return  */
        call    ct_patch_leave
        movq    %rax, 56(%rsp)
        ct_load_return_values
        addq    $56, %rsp
        ret
        .size   ct_patch_return, . - ct_patch_return
