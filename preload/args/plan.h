/*
 * One-pass plans of CALLTRACE_ARGS rules (plan.c): a call and its ARGS,
 * or a return and its RETVAL, written under one test of the hooks' gate.
 */
#ifndef CT_ARGS_PLAN_H
#define CT_ARGS_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#include "preload/args/args.h"
#include "settings/args_spec.h"

#pragma GCC visibility push(hidden)
/* Rule r, of id `id`, made into a plan if it can be, and its return
 * value's too (keeps_return: it keeps a hooked call's return value, whose
 * return the plan takes at the call): called once per id (more calls
 * change nothing), before the id is given to any call. */
void ct_args_plan_make(uint32_t id, const struct ct_args_rule *r,
                       bool keeps_return);
/* The call of fn from site, the caller's stack pointer sp, and its ARGS
 * from the registers g, written in one pass by the rule's plan; -1 with
 * nothing written when the rule has none for these registers, a place
 * is outside the stack window, or the hooks' fast path is shut; at a
 * hook's call also for a copy the rule's `at+N` does not name and, for a
 * rule that keeps the return value, a return address outside the stack
 * window (when it is inside, the plan takes the return as the general
 * path does, before the ENTRY). */
int ct_args_plan_write(uint32_t rule, void *fn, void *site, uintptr_t sp,
                       const struct ct_arg_regs *g);
/* What of rule's values a library call's stub may keep by its fast way,
 * which saves only the general registers (CT_ARGS_FAST_ARGS: integers
 * and strings' addresses in them; CT_ARGS_FAST_RETURN: an integer
 * return value) or, once the trampoline stored them, the vector
 * registers' low halves too (CT_ARGS_FAST_VEC_*: floating-point
 * values): by ct_args_plan_write_saved and ct_args_plan_return. */
uint32_t ct_args_plan_fast(uint32_t rule);
/* The same for a call whose trampoline saved the general registers
 * (ints, step: as struct ct_arg_regs has them) and the vector registers'
 * low halves at xmm, or none (NULL: -1 when the plan reads a
 * floating-point value). */
int ct_args_plan_write_general(uint32_t rule, void *fn, void *site,
                               uintptr_t sp, const uintptr_t *ints, long step,
                               const uint8_t *xmm);
/* Its plans of integers alone from the general registers (every item an
 * integer argument in a register: ct_args_plan_int_only[rule] is 1), by
 * a writer of their own, whose frame and registers are few. */
int ct_args_plan_write_ints(uint32_t rule, void *fn, void *site, uintptr_t sp,
                            const uintptr_t *ints, long step);
extern uint8_t ct_args_plan_int_only[];
/* Such a plan's ARGS record alone, encoded at rec, which holds
 * CT_ARGS_PLAN_INTS_MAX bytes: its length (hot.c's patched entries, which
 * write the ENTRY in line and copy it after). */
#define CT_ARGS_PLAN_INTS_MAX 96
size_t ct_args_plan_put_ints(uint32_t rule, uint8_t *rec, const uintptr_t *ints,
                             long step);
/* The RETVAL record of rule's plan for the integer return value rax,
 * encoded at rec, which holds CT_ARGS_PLAN_RET_MAX bytes: its length, or
 * 0 when the plan has none for %rax (a floating-point value, or no
 * plan) (hot.c's patched returns, which write the EXIT in line). */
#define CT_ARGS_PLAN_RET_MAX 16
size_t ct_args_plan_put_return(uint32_t rule, uint64_t rax, uint8_t *rec);
/* 1 for a rule that keeps no return value: its return is a plain EXIT. */
extern uint8_t ct_args_plan_no_return[];

/* The choice between the two, made in the caller (a stub's or an entry's
 * fast way), so that neither writer runs the other's prologue. */
static inline __attribute__((always_inline)) int
ct_args_plan_write_saved(uint32_t rule, void *fn, void *site, uintptr_t sp,
                         const uintptr_t *ints, long step, const uint8_t *xmm)
{
    if (__atomic_load_n(&ct_args_plan_int_only[rule], __ATOMIC_ACQUIRE))
        return ct_args_plan_write_ints(rule, fn, site, sp, ints, step);
    return ct_args_plan_write_general(rule, fn, site, sp, ints, step, xmm);
}
/* A return with the return value its rule keeps (a rule that keeps none:
 * its plain EXIT), from the %rax or %xmm0
 * (xmm0; NULL when the stub saved none, and then -1 for a floating-point
 * value) a library call's stub or a taken return's trampoline saved: its
 * RETVAL and its EXIT written in one pass, the frame at depth (its
 * caller's depth) closed; -1 with
 * nothing written when the rule's return value has no plan, the call is
 * not the thread's top frame, or the fast path is shut. */
int ct_args_plan_return(uint32_t rule, uint64_t rax, const uint8_t *xmm0,
                        uint32_t depth, void *fn);
#pragma GCC visibility pop

#endif /* CT_ARGS_PLAN_H */
