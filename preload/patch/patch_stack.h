/*
 * The per-thread stack of patched frames: each patched call still running
 * has its return address's slot, the real return address and its
 * function here, newest last.  patch.c keeps it (every case: first use,
 * frames left by a jump, tail calls, signal handlers, coroutines,
 * unwinders); the trampolines' fast paths (hot/hot.c) push and pop its
 * top in the plain case and leave everything else to patch.c.
 */
#ifndef CT_PATCH_STACK_H
#define CT_PATCH_STACK_H
#include <stdint.h>

#pragma GCC visibility push(hidden)

#define CT_PATCH_FRAMES 4096u

struct ct_pframe {
    uintptr_t slot;   /* where the function's return address is         */
    uintptr_t ret;    /* the return address itself                      */
    uintptr_t fn;
};

/* Frames taken off as left (by a jump no wrapper saw) are kept a while
 * in a ring: a stack switch no wrapper saw either (a coroutine library of
 * its own) makes frames that still run look left, and when one of them
 * returns after all, its real return address is found there. */
#define CT_PATCH_GONE 128u

struct ct_pstack {
    uint32_t n;
    uint32_t busy;    /* an entry is being pushed: a signal handler's
                         calls push above it and forget nothing        */
    uint32_t ngone;   /* frames ever put in the ring                    */
    struct ct_pframe gone[CT_PATCH_GONE];
    struct ct_pframe f[CT_PATCH_FRAMES];
    /* Beside each frame whose return goes through the args trampoline,
     * its CALLTRACE_ARGS rule, by which that trampoline's fast way writes
     * the return (0: not known there, the full way); apart from the
     * frames, so that a plain call's frame stays three words and its
     * entry writes nothing more.  A plain frame's is never read. */
    uint32_t rule[CT_PATCH_FRAMES];
};

/* The calling thread's stack, NULL until its first patched call. */
extern __thread struct ct_pstack *ct_pstk
    __attribute__((tls_model("initial-exec")));

#pragma GCC visibility pop
#endif
