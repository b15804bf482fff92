/*
 * vfork(): the child borrows the caller's memory, stack and TLS, so its
 * ct_self too, until it calls exec or _exit.  ct_vfork_begin (wrap_clone.c)
 * puts the caller's thread state in the shared mode first, so the child's
 * events are counted lost, and the real vfork is then reached by a jump:
 * it must return to the program's own caller, with nothing of ours left
 * on the stack the child will use.
 */
        .section .note.GNU-stack, "", @progbits
        .text
        .globl  vfork
        .type   vfork, @function
vfork:
        .cfi_startproc
        endbr64
        sub     $8, %rsp
        .cfi_adjust_cfa_offset 8
        call    ct_vfork_begin
        add     $8, %rsp
        .cfi_adjust_cfa_offset -8
        jmp     *ct_vfork_next(%rip)
        .cfi_endproc
        .size   vfork, .-vfork
