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
 * a spec being applied wants for it.  Its stub hands the trampoline the
 * entry itself. */
struct ct_sled {
    uintptr_t at;
    uintptr_t fn;
    uint32_t args;
    uint8_t on;
    uint8_t want;
    uint8_t args_fast;  /* what the entry's fast path can write of args:
                           CT_SLED_FAST_*                              */
};
/* ct_sled.args_fast: nothing (the full way), the ENTRY alone (a rule of
 * the return value, which the return trampoline keeps), or the ENTRY and
 * the ARGS by its plan (args/plan.c): from the general registers, or
 * with the vector registers' low halves stored too. */
#define CT_SLED_FAST_NONE 0
#define CT_SLED_FAST_ENTRY 1
#define CT_SLED_FAST_ARGS 2
#define CT_SLED_FAST_VEC 3  /* the ARGS need the vector registers stored */

/* Set once an object's entries are written (patch_objects.c). */
extern int ct_patch_active;
/* At start, after the trace file exists: patches the entries that
 * CALLTRACE_PATCH selects (all by default) of the program and of every
 * shared library built with them; says why not when it cannot
 * (patch_objects.c). */
void ct_patch_start(void);
/* After a dlopen: the same for the objects it loaded.  After a dlclose
 * that succeeded: the tables of the objects it unloaded go. */
void ct_patch_after_load(void);
void ct_patch_after_unload(void);
/* Whether the object loaded at base has patched entries (the filters
 * name its functions though it calls no hook). */
int ct_patch_has_object(uintptr_t base);
/* `calltrace control PID patch SPEC` while the program runs: SPEC's items
 * ([+|-]GLOB, comma-separated, in order) patch or unpatch the functions
 * they name.  0 with a summary in msg, or -1 with the reason. */
int ct_patch_apply(const char *spec, char *msg, size_t len);

/* The return of a hooked call whose return value is kept (args/site.c):
 * its frame kept as a patched call's, with the slot of its return
 * address at slot, which gets the return trampoline (so its RETVAL and
 * EXIT are written when it returns); 0 when there is no room.  Set
 * ct_patch_returns_taken first, so that unwinders find the real return
 * addresses.  ct_patch_return_taken says whether the exit hook of fn,
 * called with site, is that of the newest such call (its EXIT is then
 * the trampoline's to write). */
extern int ct_patch_returns_taken;
int ct_patch_take_return(uintptr_t fn, uint32_t rule, uintptr_t *slot);
int ct_patch_return_taken(uintptr_t fn, uintptr_t site);

/* Before an unwinder walks this thread's stack (plt_unwind.c): the real
 * return addresses go back, and the frames open are forgotten. */
void ct_patch_disarm(void);
/* A catch whose frame's stack pointer is sp: the frames still running
 * above it return through the trampoline again. */
void ct_patch_rearm(uintptr_t sp);

/* A coroutine switch (hot/context.c): the patched frames open are the
 * context's left, kept in buf (copied when cap allows; returns how many
 * there are), and those of the context entered are taken up; a context
 * whose frames cannot be kept has them dropped: their real return
 * addresses put back, their returns counted lost. */
size_t ct_patch_frame_bytes(void);
uint32_t ct_patch_frames_out(void *buf, uint32_t cap);
void ct_patch_frames_in(const void *buf, uint32_t n);
void ct_patch_frames_drop(void);

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
/* The same, left by a jump: for a return address swapped in memory. */
void ct_patch_return_swapped(void);
/* The frame of the call of entry s, kept: its function, which the
 * trampoline records (ct_enter_at) before it calls the body; 0 when there
 * is no room (the trampoline jumps to the body, the call not recorded).
 * The body goes into the saved %r11 (saved[8]) either way, and when kept
 * the call's real return address, its site, into saved[9] (the padding
 * after %r11). */
uintptr_t ct_patch_enter(const struct ct_sled *s, uintptr_t *slot,
                         uintptr_t *saved);
/* The trampolines' fast paths (hot/hot.c), for the plain case: the call
 * of entry s recorded and its frame kept, the body's address returned; the
 * return of the newest frame (sp just past its slot) recorded and the
 * frame popped, its real return address returned.  0, with nothing
 * written, for every other case, which the functions below then take.
 * They use no vector register. */
uintptr_t ct_patch_enter_fast(const struct ct_sled *s, uintptr_t *slot);
uintptr_t ct_patch_leave_fast(uintptr_t sp);
/* The same at the entry of a function with a CALLTRACE_ARGS rule whose
 * values the fast path can write (args_fast): its ARGS record with the
 * ENTRY, from the general registers saved at `saved` (as below). */
uintptr_t ct_patch_enter_args_fast(const struct ct_sled *s, uintptr_t *slot,
                                   const uintptr_t *saved);
/* ... which says 1 for a plan that reads the vector registers: once
 * their low halves are stored from byte 80 of `saved`, this writes it. */
uintptr_t ct_patch_enter_args_fast_vec(const struct ct_sled *s,
                                       uintptr_t *slot,
                                       const uintptr_t *saved);
/* The return of a function whose rule keeps its return value: its
 * RETVAL, from %rax (rax), and EXIT by the rule's plan, the frame popped
 * (its real return address returned); 0, with nothing written, for a
 * value the plan cannot take from %rax, and every case the plain return
 * does not cover. */
uintptr_t ct_patch_leave_args_fast(uintptr_t sp, uint64_t rax);
/* The frame returning with stack pointer sp, taken off: its function and
 * real return address in out, which the trampoline records
 * (ct_exit_at) and returns to. */
void ct_patch_leave(uintptr_t sp, uintptr_t out[2]);
/* ct_patch_enter, the call's ENTRY and its ARGS record from the registers
 * saved at `saved` (%rdi..%r9 from 0, %xmm0-7 from byte 80). */
uintptr_t ct_patch_enter_args(const struct ct_sled *s, uintptr_t *slot,
                              uintptr_t *saved);
/* fn returns with the return values saved at rv (%xmm0 at 0, %rax at
 * 40, base/tramp_regs.h): its RETVAL record, before its EXIT; 1 when
 * its EXIT was written with it (the rule's plan, args/plan.c), else 0
 * and the trampoline writes it. */
int ct_patch_exit_args(uintptr_t fn, const uint8_t *rv);

#pragma GCC visibility pop

#endif
