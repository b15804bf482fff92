/*
 * ct_stack_call(fn, arg, top): calls fn(arg) with the stack pointer at top
 * (16-byte aligned), then returns on the caller's stack.  It takes 16
 * bytes of the caller's stack (the return address and %rbp): the deep
 * work of the tracer (block switch, a sample's stack walk) runs on a
 * stack of the tracer's own, not the program's (thread.c, sample.c).
 * The frame is described by CFI with %rbp as the CFA register, so an
 * unwinder walks from the tracer's stack back onto the program's.
 */
        .section .note.GNU-stack, "", @progbits
        .text
        .p2align 4
        .globl  ct_stack_call
        .hidden ct_stack_call
        .type   ct_stack_call, @function
ct_stack_call:
        .cfi_startproc
        endbr64
        pushq   %rbp
        .cfi_adjust_cfa_offset 8
        .cfi_rel_offset %rbp, 0
        movq    %rsp, %rbp
        .cfi_def_cfa_register %rbp
        movq    %rdx, %rsp
        movq    %rdi, %rax
        movq    %rsi, %rdi
        call    *%rax
        movq    %rbp, %rsp
        popq    %rbp
        .cfi_def_cfa %rsp, 8
        ret
        .cfi_endproc
        .size   ct_stack_call, . - ct_stack_call
