/*
 * CALLTRACE_ARGS: what keeps the arguments and return values of library
 * calls (args.c); the language and its parser are in
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
/* The rule for a library function, 0 if none (plt.c, when it patches). */
uint32_t ct_args_rule_for(const char *name);
/* A library call with rule `rule` was recorded: its ARGS record, read
 * from the registers plt_tramp.S saved below the return address at
 * retp; depth: the shadow-stack level its ENTRY took. */
void ct_args_plt_enter(uint32_t rule, const uintptr_t *retp,
                       uint32_t depth);
/* It returns, to the trampoline whose stack pointer on arrival was sp,
 * and the shadow stack still holds it at depth: its RETVAL record. */
void ct_args_plt_exit(uint32_t rule, uintptr_t sp, uint32_t depth,
                      uintptr_t fn);
#pragma GCC visibility pop

#endif /* CT_ARGS_H */
