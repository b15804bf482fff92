/*
 * ct_site_enter_tramp: what the GOT slot of __cyg_profile_func_enter
 * points at in an object whose functions keep arguments (site.c).  It
 * keeps every register as the instrumented function's call of the hook
 * left it, in a struct ct_site_regs (args.h) on the stack: the sixteen
 * integer registers by DWARF number, %rsp as it was before the call
 * pushed its return address, then the low 8 bytes of %xmm0-7 (a float or
 * a double; nothing wider is read); and calls
 * ct_site_enter(fn, site, regs).  The registers a call may change are not
 * given back: the function called a hook, which may change them.
 */
        .section .note.GNU-stack, "", @progbits
        .text
        .p2align 4
        .globl  ct_site_enter_tramp
        .hidden ct_site_enter_tramp
        .type   ct_site_enter_tramp, @function
ct_site_enter_tramp:
        .cfi_startproc
        endbr64
        /* 192 bytes of registers, and 8 so that the call below finds
         * the stack 16-byte aligned */
        subq    $200, %rsp
        .cfi_adjust_cfa_offset 200
        movq    %rax, 0(%rsp)
        movq    %rdx, 8(%rsp)
        movq    %rcx, 16(%rsp)
        movq    %rbx, 24(%rsp)
        movq    %rsi, 32(%rsp)
        movq    %rdi, 40(%rsp)
        movq    %rbp, 48(%rsp)
        leaq    208(%rsp), %rax
        movq    %rax, 56(%rsp)
        movq    %r8, 64(%rsp)
        movq    %r9, 72(%rsp)
        movq    %r10, 80(%rsp)
        movq    %r11, 88(%rsp)
        movq    %r12, 96(%rsp)
        movq    %r13, 104(%rsp)
        movq    %r14, 112(%rsp)
        movq    %r15, 120(%rsp)
        movq    %xmm0, 128(%rsp)
        movq    %xmm1, 136(%rsp)
        movq    %xmm2, 144(%rsp)
        movq    %xmm3, 152(%rsp)
        movq    %xmm4, 160(%rsp)
        movq    %xmm5, 168(%rsp)
        movq    %xmm6, 176(%rsp)
        movq    %xmm7, 184(%rsp)
        movq    %rsp, %rdx
        call    ct_site_enter
        addq    $200, %rsp
        .cfi_adjust_cfa_offset -200
        ret
        .cfi_endproc
        .size   ct_site_enter_tramp, . - ct_site_enter_tramp
