/*
 * CALLTRACE_ARGS's language: the arguments and return values the tracer
 * keeps, in uftrace's spelling (`name@arg1/i32,arg2/s,retval;glob*@arg3/x`),
 * parsed by args_spec.c into a struct ct_args_spec.  Shared by the tracer
 * (preload/libcalls/args.c keeps the values) and calltrace record, which
 * refuses a bad --args before the program runs.
 */
#ifndef CT_SETTINGS_ARGS_SPEC_H
#define CT_SETTINGS_ARGS_SPEC_H

#include <regex.h>
#include <stddef.h>
#include <stdint.h>

#define CT_ARGS_MAX_RULES 1024  /* rules of one spec, built-ins included  */
#define CT_ARGS_MAX_ITEMS 16    /* values kept per call (and a retval)    */
#define CT_ARGS_PATTERN_MAX 128 /* a C++ symbol's name, mostly         */
#define CT_ARGS_STR_DEFAULT 64  /* bytes of a string kept, by default     */
#define CT_ARGS_STR_MAX 256     /* most a `sN` may ask for (stack use)     */
#define CT_ARGS_TYPE_NAME_MAX 31 /* a struct's name in `tSIZE:NAME`      */
#define CT_ARGS_NAMES 65535     /* bytes of names (structs', enums' and
                                   their values') in one spec            */
#define CT_ARGS_MAX_ENUMS 256   /* `enum NAME{...}` definitions          */
#define CT_ARGS_MAX_ENUMERATORS 4096 /* their values, all together       */
#define CT_ARGS_STACK_MAX 512   /* the deepest `%stack+N`                */

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
    CT_FMT_OCT,     /* `o`: octal with a leading 0, as a file's mode     */
    CT_FMT_STRUCT,  /* `tSIZE:NAME`: a struct, union or class passed by
                       value, shown as uftrace shows it (`NAME{...}`);
                       nothing of it is read                            */
    CT_FMT_ENUM,    /* `e:NAME`: an integer shown by the name its value
                       has in enum NAME (`SIGINT`, `R_OK|W_OK`)         */
};

/* Where an item's value is, when the item says (`%rbx`, `%rbp-20`,
 * `%none`): calltrace record writes these for the hooks of
 * -finstrument-functions, which run after the function's prologue, from
 * each parameter's DWARF location at the hook's call (docs/tracer.md).
 * A retval's MEM place is that of the function's return address there:
 * the return is caught on its way out (preload/args/site.c). */
enum ct_arg_loc {
    CT_LOC_ABI,     /* argN / fpargN as the calling convention passes it */
    CT_LOC_REG,     /* in register reg                                  */
    CT_LOC_MEM,     /* in memory at register reg + off                  */
    CT_LOC_NONE,    /* nowhere known: shown <unavailable>               */
    CT_LOC_STACK,   /* `%stack+N`: the Nth 8-byte slot of the caller's
                       stack above the return address, at the entry     */
};
/* Registers by their DWARF numbers (x86-64 psABI): 0-15 the integer
 * registers (%rax %rdx %rcx %rbx %rsi %rdi %rbp %rsp %r8-%r15), 17-24
 * %xmm0-%xmm7. */
#define CT_REG_XMM0 17
#define CT_REG_COUNT 25

struct ct_arg_item {
    uint8_t src;    /* enum ct_arg_src                                   */
    uint8_t fmt;    /* enum ct_arg_fmt                                   */
    uint8_t index;  /* argN / fpargN: N, from 1; 0 for the retval        */
    uint8_t width;  /* bytes: 1, 2, 4 or 8 (FLOAT: 4 or 8)               */
    uint16_t strmax;/* STR: most bytes kept; STRUCT: the type's size;
                       ENUM: its enum's index in the spec's enums       */
    uint8_t loc;    /* enum ct_arg_loc                                   */
    uint8_t reg;    /* REG, MEM: the register's DWARF number             */
    int32_t off;    /* MEM: bytes from the register's value; STACK: N   */
    uint16_t name;  /* STRUCT: its type's name, at this offset of the
                       spec's names (0: none)                            */
};

/* The name of DWARF register reg ("rbx", "xmm0"), or NULL for one an item
 * cannot name. */
const char *ct_args_reg_name(unsigned reg);

#define CT_ARGS_MAX_MERGED 64  /* functions' sets of several rules     */

/* A rule's name pattern, compiled: a glob, or `re:` and a regular
 * expression matched anywhere in the name (as the filters' patterns). */
struct ct_args_pattern {
    uint8_t is_regex;
    regex_t re;                         /* when is_regex                 */
};

struct ct_args_rule {
    char pattern[CT_ARGS_PATTERN_MAX];  /* a glob on the function's name,
                                           or `re:` and a regular
                                           expression matched anywhere  */
    uint8_t nitems;                     /* arguments, in the spec's order */
    uint8_t has_ret;
    uint8_t strings;                    /* 1: an argument is a string,
                                           2: the return value is      */
    uint8_t from_table;                 /* `auto`'s, not the user's      */
    uint8_t libcalls_only;              /* `name@plt@...`: library calls */
    uint8_t from_dwarf;                 /* `args`: calltrace record reads
                                           the parameters (args_dwarf.c) */
    uint8_t has_at;                     /* `at+N` was given              */
    uint32_t at;                        /* the enter hook's call returns
                                           N bytes into the function: a
                                           copy inlined elsewhere, whose
                                           hook names the same function,
                                           has other places            */
    struct ct_arg_item items[CT_ARGS_MAX_ITEMS];
    struct ct_arg_item ret;
    struct ct_args_pattern pat;         /* pattern, compiled             */
};

/* A function that several rules match gets their union, made once for
 * each set of rules (ct_args_match). */
struct ct_args_merged {
    uint64_t from[CT_ARGS_MAX_RULES / 64];  /* the rules, as bits       */
    struct ct_args_rule rule;
};

/* `enum NAME{A=1,B,C=8}`: the values of a type an `e:NAME` item names. */
struct ct_args_enumerator {
    int64_t value;
    uint16_t name;                      /* in the spec's names           */
};
struct ct_args_enum {
    uint16_t name;                      /* in the spec's names           */
    uint16_t first, count;              /* its enumerators               */
};

struct ct_args_spec {
    uint32_t nrules;
    uint32_t nenums, nenumerators;
    struct ct_args_enum enums[CT_ARGS_MAX_ENUMS];
    struct ct_args_enumerator enumerators[CT_ARGS_MAX_ENUMERATORS];
    uint32_t names_used;                /* bytes of names taken          */
    char names[CT_ARGS_NAMES];          /* the rules' type names, each
                                           NUL-terminated; [0] is ""    */
    struct ct_args_rule rules[CT_ARGS_MAX_RULES];
    uint32_t nmerged;
    struct ct_args_merged merged[CT_ARGS_MAX_MERGED];
};

/* `FUNC@args`, `auto`: rules calltrace record expands from the program's
 * debug information (frontend/args_dwarf.c); the tracer keeps a rule's
 * other items alone. */
/* Adds the rules of text to spec (`auto` adds the built-in table of
 * libc and pthread functions).  0, or -1 with a message naming the place
 * in err. */
int ct_args_parse(struct ct_args_spec *spec, const char *text, char *err,
                  size_t errlen);
/* The rule of the function called name, as an id for ct_args_rule; 0 if
 * no rule matches.  As uftrace's -A and -R: every rule of the user's that
 * matches adds its items, in the order written, an argument named again
 * keeping its first format; `auto`'s table gives the arguments when the
 * user's rules give none, and the return value when they give none.  A
 * union of several rules is made here, once per set (so the caller
 * serialises calls), and when CT_ARGS_MAX_MERGED are made, the first
 * matching rule alone is the function's.  A rule written `name@plt@...`,
 * as calltrace shows a library call, matches library calls (libcall)
 * only, as uftrace's `@plt` item does. */
uint32_t ct_args_match(struct ct_args_spec *spec, const char *name,
                       int libcall);
/* Compiles text (a pattern as written) into p: 0, or ct_re_compile's
 * code, which ct_re_error names (settings/regex_bound.h).  Free it with
 * ct_args_pattern_free. */
int ct_args_pattern_init(struct ct_args_pattern *p, const char *text);
/* Whether name matches p, compiled from text. */
int ct_args_pattern_match(const struct ct_args_pattern *p, const char *text,
                          const char *name);
void ct_args_pattern_free(struct ct_args_pattern *p);
/* Frees what the rules hold (their regular expressions) and empties
 * spec. */
void ct_args_clear(struct ct_args_spec *spec);
/* The rule of an id ct_args_match gave.  Inline: the tracer looks it up
 * at every call of a function with a rule. */
static inline const struct ct_args_rule *
ct_args_rule(const struct ct_args_spec *spec, uint32_t id)
{
    if (id > CT_ARGS_MAX_RULES)
        return &spec->merged[id - CT_ARGS_MAX_RULES - 1].rule;
    return &spec->rules[id - 1];
}
/* The name of a STRUCT item's type ("" when it has none). */
static inline const char *ct_args_type_name(const struct ct_args_spec *spec,
                                            const struct ct_arg_item *it)
{
    return it->name < CT_ARGS_NAMES ? spec->names + it->name : "";
}
/* The text an ENUM item's value v has in its enum, into out (cap bytes):
 * its enumerator's name, else the names of enumerators whose bits make
 * it up, joined by `|` (uftrace's way with flags); the length, or 0 when
 * neither names it or the text does not fit. */
size_t ct_args_enum_text(const struct ct_args_spec *spec,
                         const struct ct_arg_item *it, int64_t v, char *out,
                         size_t cap);
/* The built-in table, in the spec's own language. */
extern const char ct_args_builtin[];

#endif /* CT_SETTINGS_ARGS_SPEC_H */
