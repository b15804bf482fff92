/*
 * The patchable-entry mode: a program built with
 * -fpatchable-function-entry=5,0 (`calltrace cflags --patchable`) has five
 * NOP bytes at the entry of every function, and their addresses in its
 * __patchable_function_entries section.  At start each of the main
 * program's is patched into a jump to its own stub, which goes on to
 * ct_patch_entry (patch_tramp.S): the call is recorded with the hot path's
 * hook (ct_enter_at), the function's return address is kept on a
 * per-thread stack of the tracer's (patch_stack.h) and the trampoline
 * calls the body, so that the function returns into ct_patch_return and
 * the return is recorded too (ct_exit_at).  The plain case of both is
 * hot/hot.c's fast paths'; this file keeps the stack in every other.
 * The trace is the -finstrument-functions mode's, with CT_FILE_PATCHED in
 * its header.
 *
 * Frames a longjmp skips are forgotten when a later call or return finds
 * them below it (their ends are the hooks' business, as in the other
 * mode: jump.c); an unwinder (a C++ exception, pthread_exit) first gets
 * the real return addresses back (ct_patch_disarm, from plt_unwind.c), so
 * it never meets the trampoline, and a catch (ct_patch_rearm, from
 * plt.c's ct_plt_rearm) swaps them again in the frames still running.
 *
 * Which entries are patched, at start and while the program runs, and
 * how they are written: patch_sleds.c.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <unistd.h>

#include "preload/args/plan.h"
#include "preload/base/budget.h"
#include "preload/args/args.h"
#include "preload/patch/patch.h"
#include "preload/patch/patch_objects.h"
#include "preload/patch/patch_stack.h"
#include "preload/tracer.h"

#define SLED CT_PATCH_SLED

/* A function's CALLTRACE_ARGS rule: a patched entry's, or one whose
 * return ct_patch_take_return took at a hook's call (args/site.c). */
static uint32_t rule_for(uintptr_t fn)
{
    uint32_t rule = ct_patch_rule_of(fn);
    return rule ? rule : ct_args_site_rule(fn);
}

static void bury(struct ct_pstack *ps, const struct ct_pframe *f)
{
    ps->gone[ps->ngone++ % CT_PATCH_GONE] = *f;
}

__thread struct ct_pstack *ct_pstk __attribute__((tls_model("initial-exec")));

/* The calling thread's stack of patched frames, mapped at its first
 * patched call and counted in the tracer's address-space budget (115 KiB:
 * under a limit with no room the call is counted lost). */
static struct ct_pstack *pstack_get(void)
{
    if (ct_likely(ct_pstk != NULL))
        return ct_pstk;
    if (!ct_budget_fit(sizeof(struct ct_pstack), sizeof(struct ct_pstack)))
        return NULL;
    int saved = errno;
    void *m = mmap(NULL, sizeof(struct ct_pstack), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    errno = saved;
    if (m == MAP_FAILED)
        return NULL;
    ct_budget_add((int64_t)sizeof(struct ct_pstack));
    ct_pstk = m;
    return m;
}

void ct_patch_thread_release(void)
{
    struct ct_pstack *ps = ct_pstk;
    if (!ps)
        return;
    ct_pstk = NULL;
    ct_signal_fence();
    munmap(ps, sizeof *ps);
    ct_budget_add(-(int64_t)sizeof *ps);
}

/* A return address that is one of the trampolines': the frame at that
 * slot is a patched call's, still running. */
static int is_trampoline(uintptr_t v)
{
    return v == (uintptr_t)ct_patch_return ||
           v == (uintptr_t)ct_patch_return_args ||
           v == (uintptr_t)ct_patch_return_swapped;
}

/* Keeps a frame of fn, whose return address is at slot, on the thread's
 * stack; its real return address (the call's site: after a tail call the
 * slot holds the trampoline, not the caller's address), or 0 when there
 * is no room (counted lost).  errno is left alone: the hooks keep it, and
 * so does pstack_get. */
static uintptr_t keep(uintptr_t fn, uint32_t rule, uintptr_t *slot)
{
    struct ct_pstack *ps = pstack_get();
    if (!ps) {
        ct_count_lost_global(1);
        return 0;
    }
    int nested = ps->busy;
    ps->busy = 1;
    ct_signal_fence();
    uint32_t n = ps->n;
    uintptr_t ret = *slot;
    /* Frames at or below this one's slot on this stack are gone (a
     * longjmp left them): forgotten.  Not by a signal handler that
     * interrupted a push, which might take the entry being made. */
    while (!nested && n > 0 && ps->f[n - 1].slot <= (uintptr_t)slot &&
           (ps->f[n - 1].slot == (uintptr_t)slot ||  /* no system call */
            ct_same_stack(ps->f[n - 1].slot, (uintptr_t)slot))) {
        n--;
        if (ps->f[n].slot != (uintptr_t)slot)
            bury(ps, &ps->f[n]);
        if (ps->f[n].slot == (uintptr_t)slot && is_trampoline(ret)) {
            /* A tail call: the frame whose return address is in this
             * slot jumped here, so it ends now (as XRay's tail-call
             * sleds say), and this call returns where it would have. */
            struct ct_pframe gone = ps->f[n];
            ps->n = n;
            ct_signal_fence();
            ret = gone.ret;
            ct_exit_at((void *)gone.fn, (void *)gone.ret);
        }
    }
    if (n >= CT_PATCH_FRAMES) {
        ps->n = n;
        ps->busy = nested;
        ct_count_lost_global(1);
        return 0;
    }
    /* The slot is taken before it is filled: a signal handler that
     * interrupts here pushes above it. */
    ps->n = n + 1;
    ct_signal_fence();
    ps->f[n] = (struct ct_pframe){(uintptr_t)slot, ret, fn};
    ps->rule[n] = rule;
    ct_signal_fence();
    ps->busy = nested;
    return ret;
}

uintptr_t ct_patch_enter(const struct ct_sled *s, uintptr_t *slot,
                         uintptr_t *saved)
{
    saved[8] = s->at + SLED;
    uintptr_t ret = keep(s->fn, s->args, slot);
    if (!ret)
        return 0;
    saved[9] = ret;
    return s->fn;
}

int ct_patch_returns_taken;

int ct_patch_take_return(uintptr_t fn, uint32_t rule, uintptr_t *slot)
{
    if (!keep(fn, rule, slot))
        return 0;
    __atomic_store_n(slot, (uintptr_t)ct_patch_return_swapped,
                     __ATOMIC_RELAXED);
    return 1;
}

int ct_patch_return_taken(uintptr_t fn, uintptr_t site)
{
    const struct ct_pstack *ps = ct_pstk;
    if (!ps || !ps->n)
        return 0;
    const struct ct_pframe *f = &ps->f[ps->n - 1];
    return f->fn == fn && (is_trampoline(site) || site == f->ret);
}

/* A return whose frame was taken off as left: its real return address
 * from the ring, and out[0] 0: not recorded, as the hooks ended that call
 * already, by the same rule, when the call that seemed to leave it came.
 * None there cannot be: only a frame kept returns through the
 * trampoline. */
static void unbury(struct ct_pstack *ps, uintptr_t slot, uintptr_t out[2])
{
    uint32_t n = ps->ngone < CT_PATCH_GONE ? ps->ngone : CT_PATCH_GONE;
    for (uint32_t i = 0; i < n; i++) {
        struct ct_pframe *g = &ps->gone[(ps->ngone - 1 - i) % CT_PATCH_GONE];
        if (g->slot == slot) {
            out[0] = 0;
            out[1] = g->ret;
            g->slot = 0;
            return;
        }
    }
    ct_message("calltrace: patched return with no frame; aborting");
    abort();
}

void ct_patch_leave(uintptr_t sp, uintptr_t out[2])
{
    struct ct_pstack *ps = ct_pstk;
    uintptr_t slot = sp - 8;
    uint32_t k = ps->n;
    /* The newest frame of this slot; those above it were left. */
    while (k > 0 && ps->f[k - 1].slot != slot)
        k--;
    if (ct_unlikely(k == 0)) {
        unbury(ps, slot, out);
        return;
    }
    for (uint32_t i = ps->n; i > k; i--)
        bury(ps, &ps->f[i - 1]);
    /* Copied out before the pop: a signal handler's call may take the
     * entry once it is free. */
    out[0] = ps->f[k - 1].fn;
    out[1] = ps->f[k - 1].ret;
    ct_signal_fence();
    ps->n = k - 1;
}

uintptr_t ct_patch_enter_args(const struct ct_sled *s, uintptr_t *slot,
                              uintptr_t *saved)
{
    uintptr_t fn = ct_patch_enter(s, slot, saved);
    if (!fn)
        return 0;
    struct ct_arg_regs g = {saved, 1, (const uint8_t *)(saved + 10),
                            slot + 1, NULL};
    ct_args_call(s->args, (void *)fn, (void *)saved[9], (uintptr_t)slot, &g);
    return fn;
}

int ct_patch_exit_args(uintptr_t fn, const uint8_t *rv)
{
    struct ct_thread *t = ct_self;
    uint32_t rule = rule_for(fn);
    uint64_t rax;
    memcpy(&rax, rv + 40, 8);
    if (!rule || !t || t->depth == 0)
        return 0;
    if (ct_args_plan_return(rule, rax, rv, t->depth - 1, (void *)fn) == 0)
        return 1;
    ct_args_exit(rule, rax, rv, t->depth - 1, fn);
    return 0;
}

/* Each context (hot/context.c) has patched calls of its own open: one
 * that switched away returns only when its context runs again, and must
 * find its frame then.  Frames the thread holds for another context
 * would be taken, as frames left by a jump, by a call made in this one. */
size_t ct_patch_frame_bytes(void)
{
    return sizeof(struct ct_pframe);
}

uint32_t ct_patch_frames_out(void *buf, uint32_t cap)
{
    const struct ct_pstack *ps = ct_pstk;
    if (!ps)
        return 0;
    struct ct_pframe *out = buf;
    for (uint32_t i = 0; out && i < ps->n && i < cap; i++)
        out[i] = ps->f[i];
    return ps->n;
}

/* A frame the tracer can no longer keep: its real return address goes
 * back (the call returns straight to its caller) and its return is
 * counted lost; left with the trampoline, its return would find no
 * frame. */
static void disarm_frame(const struct ct_pframe *f)
{
    uintptr_t *slot = (uintptr_t *)f->slot;
    if (is_trampoline(*slot))
        *slot = f->ret;
    ct_count_unseen_exit();
}

void ct_patch_frames_drop(void)
{
    struct ct_pstack *ps = ct_pstk;
    if (!ps)
        return;
    for (uint32_t i = ps->n; i > 0; i--)
        disarm_frame(&ps->f[i - 1]);
    ps->n = 0;
}

void ct_patch_frames_in(const void *buf, uint32_t n)
{
    struct ct_pstack *ps = n ? pstack_get() : ct_pstk;
    const struct ct_pframe *in = buf;
    uint32_t i = 0;
    for (; ps && i < n && i < CT_PATCH_FRAMES; i++) {
        ps->f[i] = in[i];
        ps->rule[i] = 0;  /* the full way looks it up */
    }
    if (ps)
        ps->n = i;
    for (uint32_t j = n; j > i; j--)
        disarm_frame(&in[j - 1]);
}

void ct_patch_disarm(void)
{
    struct ct_pstack *ps = ct_pstk;
    if ((!ct_patch_active && !ct_patch_returns_taken) || !ps)
        return;
    /* Newest first: a slot a later frame reused is put back once. */
    for (uint32_t i = ps->n; i-- > 0;) {
        uintptr_t *slot = (uintptr_t *)ps->f[i].slot;
        if (is_trampoline(*slot))
            *slot = ps->f[i].ret;
    }
}

void ct_patch_rearm(uintptr_t sp)
{
    struct ct_pstack *ps = ct_pstk;
    if ((!ct_patch_active && !ct_patch_returns_taken) || !ps)
        return;
    uint32_t n = ps->n;
    while (n > 0 && ps->f[n - 1].slot < sp)
        n--;  /* unwound */
    ps->n = n;
    for (uint32_t i = 0; i < n; i++) {
        uintptr_t *slot = (uintptr_t *)ps->f[i].slot;
        if (*slot == ps->f[i].ret) {
            uint32_t rule = rule_for(ps->f[i].fn);
            ps->rule[i] = rule;
            ct_signal_fence();
            *slot = rule ? (uintptr_t)ct_patch_return_args
                         : (uintptr_t)ct_patch_return;
        }
    }
}
