/*
 * CALLTRACE_ARGS: the arguments and return values the tracer keeps, in
 * uftrace's spelling (`name@arg1/i32,arg2/s,retval;glob*@arg3/x`), and
 * what keeps them for library calls (args.c).  The parser
 * (args_spec.c) is pure, for the unit tests and the front end.
 */
#ifndef CT_ARGS_H
#define CT_ARGS_H

#include <stddef.h>
#include <stdint.h>

#define CT_ARGS_MAX_RULES 128   /* rules of one spec, built-ins included  */
#define CT_ARGS_MAX_ITEMS 8     /* values kept per call (and a retval)    */
#define CT_ARGS_PATTERN_MAX 64
#define CT_ARGS_STR_DEFAULT 64  /* bytes of a string kept, by default     */
#define CT_ARGS_STR_MAX 256     /* most a `sN` may ask for (stack use)     */

/* What an item reads. */
enum ct_arg_src { CT_ARG_INT, CT_ARG_FP, CT_ARG_RET };

/* How it is shown. */
enum ct_arg_fmt {
    CT_FMT_AUTO,    /* uftrace's: decimal when small, hex when large     */
    CT_FMT_SIGNED,
    CT_FMT_UNSIGNED,
    CT_FMT_HEX,
    CT_FMT_PTR,
    CT_FMT_STR,
    CT_FMT_CHAR,
    CT_FMT_FLOAT,
};

struct ct_arg_item {
    uint8_t src;    /* enum ct_arg_src                                   */
    uint8_t fmt;    /* enum ct_arg_fmt                                   */
    uint8_t index;  /* argN / fpargN: N, from 1; 0 for the retval        */
    uint8_t width;  /* bytes: 1, 2, 4 or 8 (FLOAT: 4 or 8)               */
    uint16_t strmax;/* STR: most bytes kept                              */
};

struct ct_args_rule {
    char pattern[CT_ARGS_PATTERN_MAX];  /* a glob on the function's name */
    uint8_t nitems;                     /* arguments, in the spec's order */
    uint8_t has_ret;
    uint8_t strings;                    /* 1: an argument is a string,
                                           2: the return value is      */
    struct ct_arg_item items[CT_ARGS_MAX_ITEMS];
    struct ct_arg_item ret;
};

struct ct_args_spec {
    uint32_t nrules;
    struct ct_args_rule rules[CT_ARGS_MAX_RULES];
};

/* Adds the rules of text to spec (`auto` adds the built-in table of
 * libc and pthread functions).  0, or -1 with a message naming the place
 * in err. */
int ct_args_parse(struct ct_args_spec *spec, const char *text, char *err,
                  size_t errlen);
/* The first rule whose pattern matches name, as its index + 1; 0 if
 * none.  (A rule may name a call `name@plt@...`, as calltrace shows it.) */
uint32_t ct_args_match(const struct ct_args_spec *spec, const char *name);
/* The built-in table, in the spec's own language. */
extern const char ct_args_builtin[];

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
