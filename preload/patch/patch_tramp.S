/*
 * Trampolines of the patchable-entry mode (x86-64; the C side is
 * preload/patch/patch.c).  A patched function's first five bytes jump to
 * its own stub (patch_objects.c), which puts its entry's table slot in
 * %r11 and jumps to ct_patch_entry with every argument register live.
 * ct_patch_enter_fast (hot/hot.c) records the call and keeps its frame
 * (in any case but the plain one, ct_patch_enter keeps the frame and the
 * hook records the call; with a CALLTRACE_ARGS rule,
 * ct_patch_enter_args_fast or ct_patch_enter_args); the trampoline then *calls* the body with the
 * stack pointer where the function's own return address was, so the
 * call's push puts ct_patch_return in that slot.  The function returns
 * there, where ct_patch_leave_fast (or ct_patch_leave and the hook)
 * records the return and gives the real return address, which the last
 * `ret` goes to.
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

/* The registers a patched function's entry may carry arguments in, from
 * 0(%rsp): %rdi, %rsi, %rdx, %rcx, %r8, %r9, %rax (how many vector
 * registers a variadic call passes) and %r10 (a nested function's chain);
 * %r11 (the entry) beside them at 64(%rsp).  72(%rsp) is where
 * ct_patch_enter leaves the call's site, the vector registers follow
 * from 80(%rsp) and, with AVX, their upper halves from 208(%rsp), whether
 * they were kept at 336(%rsp): 360 bytes in all. */
        .macro  save_args
        movq    %rdi, 0(%rsp)
        movq    %rsi, 8(%rsp)
        movq    %rdx, 16(%rsp)
        movq    %rcx, 24(%rsp)
        movq    %r8, 32(%rsp)
        movq    %r9, 40(%rsp)
        movq    %rax, 48(%rsp)
        movq    %r10, 56(%rsp)
        movq    %r11, 64(%rsp)
        .endm

/* The same, %r11 left as it is. */
        .macro  load_args
        movq    0(%rsp), %rdi
        movq    8(%rsp), %rsi
        movq    16(%rsp), %rdx
        movq    24(%rsp), %rcx
        movq    32(%rsp), %r8
        movq    40(%rsp), %r9
        movq    48(%rsp), %rax
        movq    56(%rsp), %r10
        .endm

        .macro  load_entry
        load_args
        movq    64(%rsp), %r11
        ct_load_vector_args 80
        ct_load_upper_halves 208, 7, 336
        .endm

/*
 * An entry trampoline, \name, with its C side \keep.  At entry: (%rsp)
 * is the patched function's return address (%rsp is 8 mod 16, as at any
 * function's entry), %r11 its entry's table slot (struct ct_sled).
 *
 * \fast (ct_patch_enter_fast or ct_patch_enter_args_fast, hot/hot.c) is
 * tried first, once the general registers an entry may carry arguments
 * in (and %r11) are saved: it uses no vector register.  When it recorded
 * the call and kept its frame, it gives the body's address, which is
 * called at once.  When it says 1 (a rule's plan reads vector
 * registers), their low halves are stored and \fastvec tries.
 *
 * Otherwise the full way, in the same frame: the vector registers saved
 * too, \keep keeps the frame, puts the body in the saved %r11 and says
 * which function it is (0: no room, the call is not recorded).  With
 * \hook 1 the hook is then called from here (ct_enter_at), so that no C
 * function keeps registers across a call; ct_patch_enter_args calls it
 * itself, as its ARGS record must follow the ENTRY.
 *
 * Both ways end at the one call of the body, with the stack pointer on
 * the slot: the call writes the address of the instruction after it, the
 * return trampoline, into the slot.
 */
        .macro  entry_trampoline name, keep, fast, hook, fastvec
        .p2align 4
        .globl  \name
        .hidden \name
        .type   \name, @function
\name:
        .cfi_startproc
        subq    $360, %rsp
        .cfi_adjust_cfa_offset 360
        save_args
        .ifnb   \fast
        movq    %r11, %rdi              /* the entry                    */
        leaq    360(%rsp), %rsi         /* its return address's slot    */
        .ifnb   \fastvec
        movq    %rsp, %rdx              /* the registers saved          */
        .endif
        call    \fast
        .ifnb   \fastvec
        cmpq    $1, %rax
        jne     4f
        /* The rule's plan reads vector registers: their low halves
         * stored where the full way keeps them (the fast path touches
         * none, so the registers are still the caller's). */
        ct_save_vector_args 80
        movq    64(%rsp), %rdi
        leaq    360(%rsp), %rsi
        movq    %rsp, %rdx
        call    \fastvec
4:
        .endif
        testq   %rax, %rax
        jz      1f
        movq    %rax, %r11              /* the body                     */
        load_args
        jmp     3f
1:
        .endif
        ct_save_vector_args 80
        ct_save_upper_halves 208, 7, 336
        movq    64(%rsp), %rdi          /* the entry                    */
        leaq    360(%rsp), %rsi         /* its return address's slot    */
        movq    %rsp, %rdx              /* the registers saved          */
        call    \keep
        testq   %rax, %rax
        jnz     2f
        /* Not recorded: the function runs as if unpatched. */
        load_entry                      /* %r11: the body               */
        .cfi_remember_state
        leaq    360(%rsp), %rsp
        .cfi_adjust_cfa_offset -360
        jmp     *%r11
2:      .cfi_restore_state
        .if \hook
        movq    %rax, %rdi              /* the function                 */
        movq    72(%rsp), %rsi          /* where it returns to          */
        leaq    360(%rsp), %rdx         /* its caller's stack pointer   */
        call    ct_enter_at
        .endif
        load_entry
3:      leaq    368(%rsp), %rsp
        .cfi_adjust_cfa_offset -368
        call    *%r11
        .cfi_endproc
        .size   \name, . - \name
        .endm

/*
 * A return trampoline, \name, right after its entry trampoline (no
 * padding between: the entry's call returns to this label).  %rsp is
 * 16-byte aligned (the function's return address was popped).
 *
 * ct_patch_leave_fast (hot/hot.c; with \args 1 ct_patch_leave_args_fast,
 * which writes the RETVAL of an integer return value from %rax by the
 * rule's plan too) is tried first, once %rax and %rdx are saved: it uses
 * no vector register.  When it recorded the return and popped the frame,
 * it gave the real return address, which goes into the slot the function
 * returned from, and the last ret takes it.
 *
 * Otherwise the full way.  The return values are %rax, %rdx, %xmm0,
 * %xmm1 (x87's are not touched by the tracer's C code), kept from
 * 0(%rsp), with AVX the upper halves of %ymm0 and %ymm1 from 64(%rsp)
 * (whether they were kept at 96(%rsp));
 * ct_patch_leave gives the frame's function (0: a frame found in the
 * ring, its return not to be recorded) and return address at 48(%rsp),
 * and the return address goes into the slot at 104(%rsp), which the last
 * ret pops.  With \args 1 the RETVAL record comes first
 * (ct_patch_exit_args), which writes the EXIT too when the rule's plan
 * can (then ct_exit_at is not called).
 */
        .macro  return_trampoline name, args, swapped=0
        .globl  \name
        .hidden \name
        .type   \name, @function
\name:
        subq    $112, %rsp
        ct_save_return_gprs
        leaq    112(%rsp), %rdi         /* the stack pointer at return  */
        .if \args
        movq    %rax, %rsi              /* the return value             */
        call    ct_patch_leave_args_fast
        .else
        call    ct_patch_leave_fast
        .endif
        testq   %rax, %rax
        jz      2f
        .if \swapped
        movq    %rax, %r11
        ct_load_return_gprs
        addq    $112, %rsp
        jmp     *%r11
        .else
        movq    %rax, 104(%rsp)         /* into the slot                */
        ct_load_return_gprs
        addq    $104, %rsp
        ret
        .endif
2:      ct_save_return_vectors
        ct_save_upper_halves 64, 1, 96
        leaq    112(%rsp), %rdi         /* the stack pointer at return  */
        leaq    48(%rsp), %rsi
        call    ct_patch_leave
        movq    56(%rsp), %rsi
        movq    %rsi, 104(%rsp)
        movq    48(%rsp), %rdi          /* the function                 */
        testq   %rdi, %rdi
        jz      1f
        .if \args
        movq    %rsp, %rsi              /* its return values            */
        call    ct_patch_exit_args
        testl   %eax, %eax              /* its EXIT written with them   */
        jnz     1f
        movq    48(%rsp), %rdi
        movq    56(%rsp), %rsi
        .endif
        call    ct_exit_at
1:      ct_load_return_values
        ct_load_upper_halves 64, 1, 96
        .if \swapped
        movq    104(%rsp), %r11
        addq    $112, %rsp
        jmp     *%r11
        .else
        addq    $104, %rsp
        ret
        .endif
        .size   \name, . - \name
        .endm

        entry_trampoline ct_patch_entry, ct_patch_enter, ct_patch_enter_fast, 1
        return_trampoline ct_patch_return, 0

/* The same pair for a function whose arguments or return value are kept
 * (CALLTRACE_ARGS): ct_patch_enter_args_fast writes the ENTRY and the
 * integers of its rule's plan from the general registers saved here;
 * otherwise ct_patch_enter_args keeps the frame and writes the ENTRY and
 * the ARGS record itself (no hook call after it). */
        entry_trampoline ct_patch_entry_args, ct_patch_enter_args, ct_patch_enter_args_fast, 0, ct_patch_enter_args_fast_vec
        return_trampoline ct_patch_return_args, 1

/* The args pair's return trampoline for a return address swapped in
 * memory (ct_patch_take_return: a hooked call whose return value a rule
 * keeps, args/site.c).  The function's ret to it missed the CPU's
 * prediction, which took the entry of the call that made the frame from
 * the predictor's stack; a ret from here would take the entry below it,
 * and every return above would miss after it.  So it leaves by a jump
 * (through %r11, which no return value is in and a caller may not keep
 * across a call), and the predictor's stack matches the real one again. */
        return_trampoline ct_patch_return_swapped, 1, 1
