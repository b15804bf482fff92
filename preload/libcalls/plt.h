/*
 * Library calls: calls made through the PLT of instrumented objects are
 * recorded by pointing their GOT slots at stubs (plt_tramp.S) that record
 * the call and swap the return address for a trampoline that records the
 * return (plt.c).  Included from assembly too: only macros before the
 * __ASSEMBLER__ guard.
 */
#ifndef CT_PLT_H
#define CT_PLT_H

/* GOT slots that can be patched in one process (16 bytes of stub each). */
#define CT_PLT_MAX_SLOTS 8192
/* Library calls open at once on one thread. */
#define CT_PLT_MAX_FRAMES 1024

#ifndef __ASSEMBLER__
#include <stdint.h>

#include "settings/config.h"  /* CT_LIBCALLS_* */

#pragma GCC visibility push(hidden)

/* Patches the objects loaded now (at start) and those loaded since (after
 * a dlopen).  No-ops when CALLTRACE_LIBCALLS=none. */
void ct_plt_start(int mode);
void ct_plt_after_load(void);
/* Points the GOT slots through which the object info describes calls
 * name (JUMP_SLOT, and GLOB_DAT for -fno-plt) at to, opening RELRO for
 * the write; the number of slots written. */
struct dl_phdr_info;
int ct_plt_point_import(struct dl_phdr_info *info, const char *name,
                        uintptr_t to);
/* A clone() child without CLONE_VM: no library call of the parent's is
 * open on its new stack. */
void ct_plt_clone_fresh(void);

/* Called by the stubs and the trampoline (plt_tramp.S): the fast ways
 * first, with only the general registers saved (0: not taken, nothing
 * done; else where to go), then the full ones. */
uintptr_t ct_plt_enter_fast(uint32_t slot, uintptr_t *retp);
uintptr_t ct_plt_exit_fast(uintptr_t sp);
/* The same once the trampoline stored the vector registers' low halves,
 * which the fast ways say they need by returning 1. */
uintptr_t ct_plt_enter_fast_vec(uint32_t slot, uintptr_t *retp);
uintptr_t ct_plt_exit_fast_vec(uintptr_t sp);
uintptr_t ct_plt_enter(uint32_t slot, uintptr_t *retp);
uintptr_t ct_plt_exit(uintptr_t sp);

/* Puts back the real return addresses of this thread's open library
 * calls, before anything walks the stack (an unwinder). */
void ct_plt_disarm(void);
/* After a catch or a stack walk: library calls whose return address slot
 * is below sp are gone and get their exits; those above get the
 * trampoline back. */
void ct_plt_rearm(uintptr_t sp);

/* For a stack walk that met the trampoline as a return address, with sp
 * the stack pointer after that return: the real return address, or 0.
 * Reads this thread's frames only (safe in a signal handler). */
uintptr_t ct_plt_real_return(uintptr_t sp);
/* The same for another thread, from its ct_plt_thread_slot() (taken on
 * that thread): safe to call while it runs or after it ended. */
const void *ct_plt_thread_slot(void);
uintptr_t ct_plt_real_return_of(const void *slot, uintptr_t sp);

/* Around the tracer's own calls into libraries (nested mode would record
 * them): returns whether it began a quiet stretch, for ct_plt_quiet_end. */
int ct_plt_quiet_begin(void);
void ct_plt_quiet_end(int began);

/* libgcc_s's lookups of unwind information (plt_unwind.c): the hook for
 * a name it imports, or 0; and where the real function was. */
uintptr_t ct_plt_unwinder_hook_for(const char *name);
void ct_plt_unwinder_next(const char *name, uintptr_t real);

/* Whether library calls are recorded (CALLTRACE_LIBCALLS is not none). */
int ct_plt_recording(void);
/* A jump glibc makes itself, which no longjmp wrapper sees (a thread's
 * cancellation or pthread_exit landing at a pthread_cleanup_push buffer):
 * ends, now, the frames below the stack pointer jmpbuf (a __jmp_buf)
 * holds (jump.c). */
void ct_jump_landing(const void *jmpbuf);
/* The unwinder is about to land at a cleanup or handler of the frame whose
 * stack pointer is sp: ends the frames below it, library calls made from
 * it included (jump.c). */
void ct_landing_pad(uintptr_t sp);

/* Pointers dlsym returned (plt_dlsym.c).  A stub of the table for a
 * function called through a pointer, or 0 when the table is full.  A
 * NULL name makes a slot no filter, rule or MAPS block names (the
 * calibration's, plt_bias.c). */
uintptr_t ct_plt_pointer_slot(uintptr_t target, const char *name);
/* A library call's cost through the stubs, measured at start
 * (plt_bias.c) into ct_proc.bias_lib_ps and bias_lib_self_ps, and the
 * header's; nothing when library calls are not recorded. */
void ct_plt_measure_bias(void);
/* The slots from number `from` on, each with its symbol's name, its mark
 * ("@plt", "@dlsym", "@got") and the function its calls are recorded as;
 * returns the number of slots, where the next call may start. */
typedef void (*ct_slot_name_fn)(void *arg, const char *name,
                                const char *mark, uintptr_t fn);
uint32_t ct_plt_slot_names(uint32_t from, ct_slot_name_fn fn, void *arg);
/* Puts a MAPS block's CT_MAP_LIBCALLS entry (maps.c) into [p, end): the
 * functions the slots' calls are recorded as; returns past it. */
uint8_t *ct_plt_libcalls_put(uint8_t *p, const uint8_t *end);
/* How many slots there are: a MAPS block is due when it grew. */
uint32_t ct_plt_slot_count(void);
/* A coroutine switch (context.c): the calling thread's open library
 * calls belong to the context it leaves.  ct_plt_frames_out copies up to
 * cap of them into buf (ct_plt_frame_bytes each) and returns how many
 * there are; ct_plt_frames_in makes n of them the open ones. */
size_t ct_plt_frame_bytes(void);
/* Before such a switch: a lazy slot whose first call has not returned
 * (it switched away) gets its stub back now, so the other context's calls
 * through it are recorded. */
void ct_plt_settle(void);
uint32_t ct_plt_frames_out(void *buf, uint32_t cap);
void ct_plt_frames_in(const void *buf, uint32_t n);
/* The thread's open library calls forgotten when they cannot be kept:
 * their trampolines taken off the stack, their returns counted lost. */
void ct_plt_frames_drop(void);
/* Calls to these are never recorded (they return twice, or look at their
 * caller). */
int ct_plt_never_patched(const char *name);
/* The PLT entry a direct call returning to site went through, when it is
 * a getcontext or swapcontext entry of an object whose library calls are
 * recorded (context.c writes those calls); 0 otherwise. */
uintptr_t ct_plt_wrapped_call(uintptr_t site);
/* Was the object with this load bias (l_addr) there when tracing
 * started? */
int ct_plt_loaded_at_start(uintptr_t base);
/* What a dlsym/dlvsym GOT slot of a recorded object points at (0 for
 * other names). */
uintptr_t ct_plt_hook_for(const char *name);
/* The hooks' C side: may the tracer call dlsym for this caller? */
int ct_dlsym_takes(void *handle, uintptr_t caller);
void *ct_dlsym_stubbed(void *handle, const char *name);
void *ct_dlvsym_stubbed(void *handle, const char *name, const char *version);
/* Names a stub in the MAPS blocks: name and mark (`@got`). */
void ct_plt_name_stub(uintptr_t stub, uintptr_t target, const char *name,
                      const char *mark);
/* Appends a CT_MAP_NAME entry per named stub to a MAPS payload. */
uint8_t *ct_dlsym_names_put(uint8_t *p, const uint8_t *end);

extern char ct_plt_stubs[];
extern char ct_dlsym_hook[];
extern char ct_dlvsym_hook[];
extern char ct_plt_return[];

#pragma GCC visibility pop
#endif
#endif
