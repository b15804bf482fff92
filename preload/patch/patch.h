/*
 * The patchable-entry mode (preload/patch/patch.c): programs built with
 * `calltrace cflags --patchable` (-fpatchable-function-entry=5,0) have
 * their functions' NOP entries patched at start to record each call.
 */
#ifndef CT_PATCH_H
#define CT_PATCH_H

#include <stdint.h>

#pragma GCC visibility push(hidden)

/* Set once the main program's entries are patched. */
extern int ct_patch_active;

/* At start, after the trace file exists: patches the entries of the main
 * program, if it was built with them; says why not when it cannot. */
void ct_patch_start(void);

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

/* The trampolines' C side (patch_tramp.S). */
void ct_patch_enter(uintptr_t body, uintptr_t *slot);
uintptr_t ct_patch_leave(uintptr_t sp);

#pragma GCC visibility pop

#endif
