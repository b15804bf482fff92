/*
 * Trampolines of the patchable-entry mode (x86-64; the C side is
 * preload/patch/patch.c).  A patched function's first five bytes jump to
 * its own stub (patch_objects.c), which puts its entry's table slot in
 * %r11 and jumps to ct_patch_entry with every argument register live.
 * ct_patch_enter keeps the call's frame and the hook records it; the
 * trampoline then *calls* the body with the stack pointer where the
 * function's own return address was, so the call's push puts
 * ct_patch_return in that slot.  The function returns there, where
 * ct_patch_leave records the return and gives the real return address,
 * which the last `ret` goes to.
 *
 * Why a call and not a swapped slot: the CPU predicts each `ret` from a
 * stack of the calls it saw.  With the slot overwritten in memory, the
 * function's return and the trampoline's both missed, and every return
 * above them after (the predictor's stack stayed one off): a patched call
 * cost twice a hooked one.  Entered by a jump and left by a call and a
 * ret, the predictor's stack matches the real one at every return.
 */
#include "preload/base/tramp_regs.h"

        .section .note.GNU-stack, "", @progbits
        .text

/* The registers a patched function's entry may carry arguments in (and
 * %r11), 216 bytes from 0(%rsp); 72(%rsp), between %r11 and the vector
 * registers, is where ct_patch_enter leaves the call's site. */
        .macro  save_entry
        movq    %rdi, 0(%rsp)
        movq    %rsi, 8(%rsp)
        movq    %rdx, 16(%rsp)
        movq    %rcx, 24(%rsp)
        movq    %r8, 32(%rsp)
        movq    %r9, 40(%rsp)
        movq    %rax, 48(%rsp)
        movq    %r10, 56(%rsp)
        movq    %r11, 64(%rsp)
        ct_save_vector_args 80
        .endm

        .macro  load_entry
        movq    0(%rsp), %rdi
        movq    8(%rsp), %rsi
        movq    16(%rsp), %rdx
        movq    24(%rsp), %rcx
        movq    32(%rsp), %r8
        movq    40(%rsp), %r9
        movq    48(%rsp), %rax
        movq    56(%rsp), %r10
        movq    64(%rsp), %r11
        ct_load_vector_args 80
        .endm

/*
 * An entry trampoline, \name, with its C side \keep.  At entry: (%rsp)
 * is the patched function's return address (%rsp is 8 mod 16, as at any
 * function's entry), %r11 its entry's table slot (struct ct_sled).  \keep
 * keeps the frame, puts the body in the saved %r11 and says which
 * function it is (0: no room, the call is not recorded).  With \hook 1
 * the hook is called from here (ct_enter_at), so that no C function keeps
 * registers across a call; ct_patch_enter_args calls it itself, as its
 * ARGS record must follow the ENTRY.  The trampoline then calls the body
 * with the stack pointer on the slot: the call writes the address of the
 * instruction after it, the return trampoline, into the slot.
 */
        .macro  entry_trampoline name, keep, hook
        .p2align 4
        .globl  \name
        .hidden \name
        .type   \name, @function
\name:
        .cfi_startproc
        subq    $216, %rsp
        .cfi_adjust_cfa_offset 216
        save_entry
        movq    %r11, %rdi              /* the entry                    */
        leaq    216(%rsp), %rsi         /* its return address's slot    */
        movq    %rsp, %rdx              /* the registers saved          */
        call    \keep
        testq   %rax, %rax
        jnz     2f
        /* Not recorded: the function runs as if unpatched. */
        load_entry                      /* %r11: the body               */
        .cfi_remember_state
        leaq    216(%rsp), %rsp
        .cfi_adjust_cfa_offset -216
        jmp     *%r11
2:      .cfi_restore_state
        .if \hook
        movq    %rax, %rdi              /* the function                 */
        movq    72(%rsp), %rsi          /* where it returns to          */
        leaq    216(%rsp), %rdx         /* its caller's stack pointer   */
        call    ct_enter_at
        .endif
        load_entry
        leaq    224(%rsp), %rsp
        .cfi_adjust_cfa_offset -224
        call    *%r11
        .cfi_endproc
        .size   \name, . - \name
        .endm

/*
 * A return trampoline, \name, right after its entry trampoline (no
 * padding between: the entry's call returns to this label).  %rsp is
 * 16-byte aligned (the function's return address was popped).  The
 * return values are %rax, %rdx, %xmm0, %xmm1 (x87's are not touched by
 * the tracer's C code), kept from 0(%rsp); ct_patch_leave gives the
 * frame's function (0: a frame found in the ring, its return not to be
 * recorded) and return address at 48(%rsp), and the return address goes
 * into the slot at 72(%rsp), which the last ret pops.  With \args 1 the
 * RETVAL record comes first (ct_patch_exit_args).
 */
        .macro  return_trampoline name, args
        .globl  \name
        .hidden \name
        .type   \name, @function
\name:
        subq    $80, %rsp
        ct_save_return_values
        leaq    80(%rsp), %rdi          /* the stack pointer at return  */
        leaq    48(%rsp), %rsi
        call    ct_patch_leave
        movq    56(%rsp), %rsi
        movq    %rsi, 72(%rsp)
        movq    48(%rsp), %rdi          /* the function                 */
        testq   %rdi, %rdi
        jz      1f
        .if \args
        movq    %rsp, %rsi              /* its return values            */
        call    ct_patch_exit_args
        movq    48(%rsp), %rdi
        movq    56(%rsp), %rsi
        .endif
        call    ct_exit_at
1:      ct_load_return_values
        addq    $72, %rsp
        ret
        .size   \name, . - \name
        .endm

        entry_trampoline ct_patch_entry, ct_patch_enter, 1
        return_trampoline ct_patch_return, 0

/* The same pair for a function whose arguments or return value are kept
 * (CALLTRACE_ARGS): ct_patch_enter_args keeps the frame, writes the ENTRY
 * and the ARGS record from the registers saved here. */
        entry_trampoline ct_patch_entry_args, ct_patch_enter_args, 0
        return_trampoline ct_patch_return_args, 1
