/*
 * Library-call stubs (x86-64): what a patched GOT slot points at, and the
 * return trampoline a recorded call returns through.  The C side is
 * preload/libcalls/plt.c.
 *
 * Each stub is 16 bytes and loads its own number into %r11, which is free
 * at a PLT call (a scratch register that carries no argument; the PLT and
 * the lazy resolver clobber it too).  The stubs never touch the stack, so
 * the callee later finds its arguments and return address where the
 * caller left them.
 */
#include "preload/base/tramp_regs.h"
#include "preload/libcalls/plt.h"

        .section .note.GNU-stack, "", @progbits
        .text

/* The stub table: endbr64; mov $i, %r11d; jmp plt_entry (rel32); nop. */
        .p2align 4
        .globl  ct_plt_stubs
        .hidden ct_plt_stubs
        .type   ct_plt_stubs, @function
ct_plt_stubs:
        .set    stub_index, 0
        .rept   CT_PLT_MAX_SLOTS
        .byte   0xf3, 0x0f, 0x1e, 0xfa
        .byte   0x41, 0xbb
        .long   stub_index
        .byte   0xe9
        .long   plt_entry - (. + 4)
        .byte   0x90
        .set    stub_index, stub_index + 1
        .endr
        .size   ct_plt_stubs, . - ct_plt_stubs

/*
 * Called with the caller's return address at (%rsp) and every argument
 * register live.  Saves the general ones and tries ct_plt_enter_fast,
 * which touches no vector register (when the rule's plan reads vector
 * registers, it says 1: their low halves are stored and
 * ct_plt_enter_fast_vec tries); when it declines, saves the vector
 * ones too and asks ct_plt_enter.  Either says where to go (and may have
 * swapped the return address for ct_plt_return); the registers come back
 * and the call jumps there.  The slot's number waits at 8(%rsp) for the
 * full way (the fast call clobbers %r11).
 */
        .p2align 4
        .type   plt_entry, @function
plt_entry:
        .cfi_startproc
        /* Tracing off (paused, not started, stopped): straight to the
         * target when the slot allows it, so a paused program's library
         * calls cost a few instructions (ct_plt_direct in plt.c). */
        testb   $1, ct_global_word(%rip)
        jnz     2f
1:      pushq   %rax                    /* vector-register count (varargs) */
        .cfi_adjust_cfa_offset 8
        pushq   %rdi
        .cfi_adjust_cfa_offset 8
        pushq   %rsi
        .cfi_adjust_cfa_offset 8
        pushq   %rdx
        .cfi_adjust_cfa_offset 8
        pushq   %rcx
        .cfi_adjust_cfa_offset 8
        pushq   %r8
        .cfi_adjust_cfa_offset 8
        pushq   %r9
        .cfi_adjust_cfa_offset 8
        subq    $272, %rsp              /* movups: a caller may misalign */
        .cfi_adjust_cfa_offset 272
        movq    %r11, 8(%rsp)
        /* The profile mode's calls all take the hooks' slow path, which
         * the fast way cannot: straight to the full one. */
        cmpl    $0, ct_profile_stop(%rip)
        jnz     6f
        movl    %r11d, %edi             /* slot number */
        leaq    328(%rsp), %rsi         /* where the return address is */
        call    ct_plt_enter_fast
        cmpq    $1, %rax
        ja      4f                      /* recorded: where to go */
        je      7f                      /* its plan reads vector registers */
6:
        ct_save_vector_args 144         /* retp - 184, as args.c reads them */
        ct_save_upper_halves 16, 7, 0
        movl    8(%rsp), %edi           /* slot number */
        leaq    328(%rsp), %rsi         /* where the return address is */
        call    ct_plt_enter
        movq    %rax, %r11              /* where to go */
        ct_load_vector_args 144
        ct_load_upper_halves 16, 7, 0
        jmp     5f
        /* The low halves stored where the full way keeps them, for the
         * plan to read; the fast way touches none, so the registers
         * themselves, upper halves and all, are still the caller's. */
7:      ct_save_vector_args 144
        movl    8(%rsp), %edi
        leaq    328(%rsp), %rsi
        call    ct_plt_enter_fast_vec
        testq   %rax, %rax
        jz      6b
4:      movq    %rax, %r11              /* where to go */
5:      addq    $272, %rsp
        .cfi_adjust_cfa_offset -272
        popq    %r9
        .cfi_adjust_cfa_offset -8
        popq    %r8
        .cfi_adjust_cfa_offset -8
        popq    %rcx
        .cfi_adjust_cfa_offset -8
        popq    %rdx
        .cfi_adjust_cfa_offset -8
        popq    %rsi
        .cfi_adjust_cfa_offset -8
        popq    %rdi
        .cfi_adjust_cfa_offset -8
        popq    %rax
        .cfi_adjust_cfa_offset -8
        jmp     *%r11
2:      pushq   %rax
        .cfi_adjust_cfa_offset 8
        movq    ct_plt_direct(%rip), %rax   /* the table, mapped with the first slot */
        movq    (%rax,%r11,8), %rax
        testq   %rax, %rax
        jz      3f
        movq    %rax, %r11
        popq    %rax
        .cfi_adjust_cfa_offset -8
        jmp     *%r11
3:      .cfi_adjust_cfa_offset 8
        popq    %rax
        .cfi_adjust_cfa_offset -8
        jmp     1b
        .cfi_endproc
        .size   plt_entry, . - plt_entry

/*
 * A recorded library call returns here (its return address was swapped).
 * Keeps %rax and %rdx and tries ct_plt_exit_fast, which touches no vector
 * register; when it declines, keeps the other return values too (%xmm0,
 * %xmm1 and, with AVX, the upper halves of %ymm0 and %ymm1; the x87
 * stack is not used by the tracer) and asks ct_plt_exit.  Either gives
 * the real return address, where the call goes back to.
 * The values 48 bytes up (base/tramp_regs.h), so that %rax is just below
 * the stack pointer on arrival and %xmm0 48 below it (args.c reads them
 * there).
 */
        .p2align 4
        .globl  ct_plt_return
        .hidden ct_plt_return
        .type   ct_plt_return, @function
ct_plt_return:
        endbr64
        subq    $96, %rsp
        ct_save_return_gprs 48
        cmpl    $0, ct_profile_stop(%rip)   /* as at the entry */
        jnz     2f
        leaq    96(%rsp), %rdi          /* the stack pointer on arrival */
        call    ct_plt_exit_fast
        cmpq    $1, %rax
        ja      1f                      /* recorded: the return address */
        jne     2f
        movups  %xmm0, 48(%rsp)         /* its plan reads %xmm0 */
        leaq    96(%rsp), %rdi
        call    ct_plt_exit_fast_vec
        testq   %rax, %rax
        jnz     1f
2:
        ct_save_return_vectors 48
        ct_save_upper_halves 0, 1, 32
        leaq    96(%rsp), %rdi
        call    ct_plt_exit
        ct_load_return_vectors 48
        ct_load_upper_halves 0, 1, 32
1:      movq    %rax, %r11
        ct_load_return_gprs 48
        addq    $96, %rsp
        jmp     *%r11
        .size   ct_plt_return, . - ct_plt_return

/*
 * What the dlsym and dlvsym GOT slots of recorded objects point at
 * (plt_dlsym.c).  ct_dlsym_takes says whether the tracer may look the name
 * up itself (an explicit handle, or RTLD_DEFAULT from an object loaded at
 * start); if so, ct_dlsym_stubbed does, with the caller's return address
 * still on the stack.  If not (RTLD_NEXT: found relative to the caller),
 * dlsym itself is reached by a jump, so it sees the caller as its own.
 */
        .macro  dlsym_hook name, stubbed, real
        .p2align 4
        .globl  \name
        .hidden \name
        .type   \name, @function
\name:
        .cfi_startproc
        endbr64
        pushq   %rdi
        .cfi_adjust_cfa_offset 8
        pushq   %rsi
        .cfi_adjust_cfa_offset 8
        pushq   %rdx
        .cfi_adjust_cfa_offset 8
        movq    24(%rsp), %rsi          /* the caller's return address */
        call    ct_dlsym_takes
        popq    %rdx
        .cfi_adjust_cfa_offset -8
        popq    %rsi
        .cfi_adjust_cfa_offset -8
        popq    %rdi
        .cfi_adjust_cfa_offset -8
        testl   %eax, %eax
        jz      1f
        jmp     \stubbed
1:      jmp     \real@PLT
        .cfi_endproc
        .size   \name, . - \name
        .endm

        dlsym_hook ct_dlsym_hook, ct_dlsym_stubbed, dlsym
        dlsym_hook ct_dlvsym_hook, ct_dlvsym_stubbed, dlvsym
