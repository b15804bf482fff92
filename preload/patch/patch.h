/*
 * The patchable-entry mode (preload/patch/patch.c): programs built with
 * `calltrace cflags --patchable` (-fpatchable-function-entry=5,0) have
 * their functions' NOP entries patched at start to record each call.
 */
#ifndef CT_PATCH_H
#define CT_PATCH_H

#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

/* One entry (patch_sleds.c): where its five bytes are, its function's
 * address (the symbol's: the entry, or the endbr64 before it), its
 * CALLTRACE_ARGS rule (0: none), whether it is patched now, and the state
 * a spec being applied wants for it.  Its stub hands a trampoline the
 * entry itself when the rule is not 0. */
struct ct_sled {
    uintptr_t at;
    uintptr_t fn;
    uint32_t args;
    uint8_t on;
    uint8_t want;
};

/* Set once the main program's entries are written (patch_sleds.c). */
extern int ct_patch_active;
/* The main program's text: its first byte. */
extern uintptr_t ct_patch_text_lo;
/* The function whose entry's sled is at `at`: its address, the endbr64
 * before the sled where there is one (the symbol's address).  Inline:
 * every patched call asks. */
static inline uintptr_t ct_patch_function_at(uintptr_t at)
{
    uint32_t before;
    if (at < ct_patch_text_lo + 4)
        return at;
    __builtin_memcpy(&before, (const void *)(at - 4), 4);
    return before == 0xfa1e0ff3u ? at - 4 : at;
}

/* At start, after the trace file exists: patches the entries of the main
 * program that CALLTRACE_PATCH selects (all by default), if it was built
 * with them; says why not when it cannot. */
void ct_patch_start(void);
/* `calltrace control PID patch SPEC` while the program runs: SPEC's items
 * ([+|-]GLOB, comma-separated, in order) patch or unpatch the functions
 * they name.  0 with a summary in msg, or -1 with the reason. */
int ct_patch_apply(const char *spec, char *msg, size_t len);

/* Before an unwinder walks this thread's stack (plt_unwind.c): the real
 * return addresses go back, and the frames open are forgotten. */
void ct_patch_disarm(void);
/* A catch whose frame's stack pointer is sp: the frames still running
 * above it return through the trampoline again. */
void ct_patch_rearm(uintptr_t sp);

/* At the end of a thread (its key's destructor, hot/thread.c): its stack
 * of patched frames is unmapped.  No frame on it can still return: the
 * start routine has returned, or pthread_exit unwound the rest. */
void ct_patch_thread_release(void);

/* The CALLTRACE_ARGS rule of the patched function fn, 0 if none. */
uint32_t ct_patch_rule_of(uintptr_t fn);

/* The trampolines (patch_tramp.S) and their C side. */
void ct_patch_entry(void);
void ct_patch_return(void);
/* The same for functions whose arguments or return value are kept. */
void ct_patch_entry_args(void);
void ct_patch_return_args(void);
/* The frame of a patched function's call, kept: its function, which the
 * trampoline records (ct_enter_at) before it calls the body; 0 when there
 * is no room (the trampoline jumps to the body, the call not recorded). */
uintptr_t ct_patch_enter(uintptr_t body, uintptr_t *slot);
/* The frame returning with stack pointer sp, taken off: its function and
 * real return address in out, which the trampoline records
 * (ct_exit_at) and returns to. */
void ct_patch_leave(uintptr_t sp, uintptr_t out[2]);
/* ct_patch_enter, the call's ENTRY and its ARGS record from the registers
 * saved at `saved` (%rdi..%r9 from 0, %xmm0-7 from byte 80), for the
 * entry s; the body goes into the saved %r11 (saved[8]) either way. */
uintptr_t ct_patch_enter_args(const struct ct_sled *s, uintptr_t *slot,
                              uintptr_t *saved);
/* fn returns with the return values saved at rv (%xmm0 at 0, %rax at
 * 40, base/tramp_regs.h): its RETVAL record, before its EXIT. */
void ct_patch_exit_args(uintptr_t fn, const uint8_t *rv);

#pragma GCC visibility pop

#endif
