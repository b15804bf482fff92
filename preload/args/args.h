/*
 * CALLTRACE_ARGS: what keeps the arguments and return values of library
 * calls and of patched entries (args.c); the language and its parser are in
 * settings/args_spec.h, shared with the front end.
 */
#ifndef CT_ARGS_H
#define CT_ARGS_H

#include <stddef.h>
#include <stdint.h>

#include "settings/args_spec.h"

#pragma GCC visibility push(hidden)
/* Reads CALLTRACE_ARGS at start (a bad spec: one message, no rules). */
void ct_args_start(void);
/* The rule of a function, 0 if none: a library call's (libcall, plt.c
 * when it patches) or a patched function's (patch_objects.c). */
uint32_t ct_args_rule_for(const char *name, int libcall);
/* What rule (0: none) keeps of a library call: its arguments (the call
 * is then given to ct_args_plt_call), its return value (the return to
 * ct_args_plt_exit), both or neither. */
#define CT_ARGS_KEEPS_ARGS 1u
#define CT_ARGS_KEEPS_RETURN 2u
/* ... and which of them the stub's fast way, which saves no vector
 * register, may write itself (plan.c, ct_args_plan_fast). */
#define CT_ARGS_FAST_ARGS 4u
#define CT_ARGS_FAST_RETURN 8u
/* ... or may write once the vector registers' low halves are stored. */
#define CT_ARGS_FAST_VEC_ARGS 16u
#define CT_ARGS_FAST_VEC_RETURN 32u
uint32_t ct_args_keeps(uint32_t rule);
/* Whether CALLTRACE_ARGS gave any rule. */
int ct_args_any(void);

/* Where a call's argument registers were saved: argN (N = 1..6) at
 * ints[step * (N - 1)], %xmm0-7 16 bytes apart from xmm, and the 7th
 * integer argument on at stack[0] (the caller's, above the return
 * address).  At the call of an -finstrument-functions hook (site.c), the
 * argument registers hold the hook's own arguments: ints is NULL, and
 * site holds every register as it was at that call (struct
 * ct_site_regs), which the items' DWARF locations name. */
struct ct_site_regs {
    uintptr_t gpr[16];          /* by DWARF number; [7] %rsp at the call */
    uint8_t xmm[8][8];          /* %xmm0-7's low 8 bytes */
};
struct ct_arg_regs {
    const uintptr_t *ints;
    long step;
    const uint8_t *xmm;
    const uintptr_t *stack;
    const struct ct_site_regs *site;
};
/* A call with rule `rule` was recorded, its ENTRY at shadow-stack level
 * depth: its ARGS record. */
void ct_args_enter(uint32_t rule, const struct ct_arg_regs *regs,
                   uint32_t depth);
/* It returns with these return registers, still on top at depth: its
 * RETVAL record, before its EXIT. */
void ct_args_exit(uint32_t rule, uint64_t rax, const uint8_t *xmm0,
                  uint32_t depth, uintptr_t fn);
/* A library call of fn with rule `rule`, its return address at retp:
 * recorded as ct_enter_at records it, with its ARGS record read from the
 * registers plt_tramp.S saved below retp (ct_args_call). */
void ct_args_plt_call(uint32_t rule, void *fn, uintptr_t *retp);
/* It returns, to the trampoline whose stack pointer on arrival was sp,
 * and the shadow stack still holds it at depth: its RETVAL record. */
void ct_args_plt_exit(uint32_t rule, uintptr_t sp, uint32_t depth,
                      uintptr_t fn);

/* site.c: the program's own functions under -finstrument-functions.
 * At start and after each dlopen: the functions with a rule, and the
 * enter hook's slots of their objects pointed at site_tramp.S. */
void ct_args_site_start(void);
void ct_args_site_after_load(void);
/* After a dlclose that succeeded: the unloaded functions' rules go. */
void ct_args_site_after_unload(void);
/* The trampoline's call: the call recorded, then its ARGS record; its
 * return taken (ct_patch_take_return) when the rule keeps the return
 * value.  The exit hook of an object with such a rule. */
void ct_site_enter(void *fn, void *site, const struct ct_site_regs *regs);
void ct_site_exit(void *fn, void *site);
/* The rule of a function of the table, 0 if none. */
uint32_t ct_args_site_rule(uintptr_t fn);
/* Whether a rule has `at+N` (record wrote its places). */
int ct_args_site_at(uint32_t rule);
/* Whether a rule keeps a hooked call's return value (retval%place). */
int ct_args_keeps_return(uint32_t rule);
/* A hooked call of a function with rule `rule`, from ct_site_enter: its
 * return taken (ct_patch_take_return) when the rule keeps the return
 * value, the call recorded, then its ARGS record.  A call from a copy of
 * the function inlined elsewhere (its return address not where the
 * rule's `at+N` says) is recorded alone, as its places are others. */
void ct_args_site_call(uint32_t rule, void *fn, void *site,
                       const struct ct_site_regs *regs);
/* A call of fn, from site with the caller's stack pointer sp, whose rule
 * is `rule`, and its ARGS from the registers g: in one pass of the hooks'
 * fast path when the rule's plan covers it, else recorded by the hook
 * (ct_enter_at) and given its ARGS by ct_args_enter. */
void ct_args_call(uint32_t rule, void *fn, void *site, uintptr_t sp,
                  const struct ct_arg_regs *g);
#pragma GCC visibility pop

#endif /* CT_ARGS_H */
