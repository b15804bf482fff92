/*
 * CALLTRACE_ARGS's language (args_spec.h), parsed without the tracer's state
 * so the unit tests and the front end can use it:
 *
 *   spec  = rule { ";" rule }
 *   rule  = "auto" | (glob | "re:" regex) "@" item { "," item }
 *         | "enum" name "{" [ value { "," value } ] "}"
 *   value = name [ "=" integer ]
 *   item  = ("arg" N | "fparg" N | "retval") [ "/" fmt ] [ "%" loc ]
 *         | "args" | "at+" N
 *   fmt   = ["i" | "u" | "x" | "o"] [8|16|32|64]  |  "p" | "c" | "s" [max]
 *         | "f" [32|64]  |  "t" [size] [":" name]  |  "e" [8|16|32|64] ":" name
 *   loc   = reg | reg ("+" | "-") N | "stack" ["+"] N | "none"
 *   reg   = "rax" | "rdx" | ... | "r15" | "xmm0" ... "xmm7"
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "settings/args_spec.h"
#include "settings/regex_bound.h"

/* uftrace's `-a` table, for the commonest libc and pthread calls, and
 * the enums it shows values by. */
const char ct_args_builtin[] =
    "enum signal{SIGNULL,SIGHUP,SIGINT,SIGQUIT,SIGILL,SIGTRAP,SIGABRT,SIGBUS,"
    "SIGFPE,SIGKILL,SIGUSR1,SIGSEGV,SIGUSR2,SIGPIPE,SIGALRM,SIGTERM,"
    "SIGSTKFLT,SIGCHLD,SIGCONT,SIGSTOP,SIGTSTP,SIGTTIN,SIGTTOU,SIGURG,"
    "SIGXCPU,SIGXFSZ,SIGVTALRM,SIGPROF,SIGWINCH,SIGIO,SIGPWR,SIGSYS};"
    "enum access_mode{F_OK,X_OK,W_OK,R_OK=4};"
    "open@arg1/s,arg2/x,retval;"
    "open64@arg1/s,arg2/x,retval;"
    "openat@arg1,arg2/s,arg3/x,retval;"
    "close@arg1,retval;"
    "read@arg1,arg2/p,arg3/u,retval;"
    "write@arg1,arg2/p,arg3/u,retval;"
    "pread@arg1,arg2/p,arg3/u,arg4,retval;"
    "pwrite@arg1,arg2/p,arg3/u,arg4,retval;"
    "lseek@arg1,arg2,arg3,retval;"
    "malloc@arg1/u,retval/p;"
    "calloc@arg1/u,arg2/u,retval/p;"
    "realloc@arg1/p,arg2/u,retval/p;"
    "free@arg1/p;"
    "mmap@arg1/p,arg2/u,arg3/x,arg4/x,arg5,arg6/x,retval/p;"
    "munmap@arg1/p,arg2/u,retval;"
    "strlen@arg1/s,retval/u;"
    "strcmp@arg1/s,arg2/s,retval;"
    "strncmp@arg1/s,arg2/s,arg3/u,retval;"
    "strcpy@arg1/p,arg2/s,retval/p;"
    "strdup@arg1/s,retval/p;"
    "strchr@arg1/s,arg2/c,retval/p;"
    "memcpy@arg1/p,arg2/p,arg3/u,retval/p;"
    "memset@arg1/p,arg2,arg3/u,retval/p;"
    "puts@arg1/s,retval;"
    "printf@arg1/s,retval;"
    "fopen@arg1/s,arg2/s,retval/p;"
    "fclose@arg1/p,retval;"
    "getenv@arg1/s,retval/s;"
    "atoi@arg1/s,retval;"
    "socket@arg1,arg2,arg3,retval;"
    "connect@arg1,arg2/p,arg3/u,retval;"
    "send@arg1,arg2/p,arg3/u,arg4/x,retval;"
    "recv@arg1,arg2/p,arg3/u,arg4/x,retval;"
    "usleep@arg1/u,retval;"
    "sleep@arg1/u,retval/u;"
    "exit@arg1;"
    "creat@arg1/s,arg2/o,retval;"
    "chmod@arg1/s,arg2/o,retval;"
    "unlink@arg1/s,retval;"
    "access@arg1/s,arg2/e:access_mode,retval;"
    "rename@arg1/s,arg2/s,retval;"
    "mkdir@arg1/s,arg2/o,retval;"
    "rmdir@arg1/s,retval;"
    "kill@arg1,arg2/e:signal,retval;"
    "raise@arg1/e:signal,retval;"
    "fork@retval;"
    "waitpid@arg1,arg2/p,arg3,retval;"
    "dup2@arg1,arg2,retval;"
    "fread@arg1/p,arg2/u,arg3/u,arg4/p,retval/u;"
    "fwrite@arg1/p,arg2/u,arg3/u,arg4/p,retval/u;"
    "fputs@arg1/s,arg2/p,retval;"
    "snprintf@arg1/p,arg2/u,arg3/s,retval;"
    "nanosleep@arg1/p,arg2/p,retval;"
    "pthread_create@arg1/p,arg2/p,arg3/p,arg4/p,retval;"
    "pthread_join@arg1/x,arg2/p,retval;"
    "pthread_mutex_lock@arg1/p,retval;"
    "pthread_mutex_trylock@arg1/p,retval;"
    "pthread_mutex_unlock@arg1/p,retval;"
    "pthread_cond_wait@arg1/p,arg2/p,retval;"
    "pthread_cond_signal@arg1/p,retval;"
    "pthread_cond_broadcast@arg1/p,retval";

struct parser {
    const char *text, *p;
    char *err;
    size_t errlen;
    struct ct_args_spec *spec;  /* where type names go */
};

static int fail(struct parser *ps, const char *what)
{
    snprintf(ps->err, ps->errlen, "at offset %zu: %s",
             (size_t)(ps->p - ps->text), what);
    return -1;
}

/* A decimal number at ps->p, or -1 when there is none. */
static long number(struct parser *ps)
{
    if (*ps->p < '0' || *ps->p > '9')
        return -1;
    char *end;
    long v = strtol(ps->p, &end, 10);
    ps->p = end;
    return v;
}

static int width_of(struct parser *ps, struct ct_arg_item *it, int fp)
{
    const char *at = ps->p;
    long bits = number(ps);
    if (bits < 0)
        return 0; /* the default width */
    if (bits == 8 || bits == 16 || bits == 32 || bits == 64) {
        if (!fp || bits >= 32) {
            it->width = (uint8_t)(bits / 8);
            return 0;
        }
    }
    ps->p = at;
    return fail(ps, fp ? "a float's width is 32 or 64"
                       : "an integer's width is 8, 16, 32 or 64");
}

/* n bytes at s into the spec's names, NUL-terminated: their offset in
 * *off; -1 with the message when the names are full. */
static int pool_add(struct parser *ps, const char *s, size_t n, uint16_t *off)
{
    struct ct_args_spec *spec = ps->spec;
    if (!spec->names_used)
        spec->names_used = 1;  /* offset 0 is the empty name */
    if (spec->names_used + n + 1 > CT_ARGS_NAMES)
        return fail(ps, "more than 65535 bytes of struct and enum names");
    memcpy(spec->names + spec->names_used, s, n);
    spec->names[spec->names_used + n] = '\0';
    *off = (uint16_t)spec->names_used;
    spec->names_used += (uint32_t)n + 1;
    return 0;
}

/* An identifier's length at p (letters, digits, _). */
static size_t ident(const char *p)
{
    size_t n = 0;
    while ((p[n] >= 'a' && p[n] <= 'z') || (p[n] >= 'A' && p[n] <= 'Z') ||
           (p[n] >= '0' && p[n] <= '9') || p[n] == '_')
        n++;
    return n;
}

/* The enum called name (n bytes), or -1. */
static int enum_index(const struct ct_args_spec *spec, const char *name,
                      size_t n)
{
    for (uint32_t i = 0; i < spec->nenums; i++) {
        const char *e = spec->names + spec->enums[i].name;
        if (!strncmp(e, name, n) && !e[n])
            return (int)i;
    }
    return -1;
}

/* `e:NAME` after the e: an enum defined before (`enum NAME{...}`), of 4
 * bytes, or of the width given (`e8:NAME`). */
static int enum_of(struct parser *ps, struct ct_arg_item *it)
{
    it->width = 4;
    if (width_of(ps, it, 0) != 0)
        return -1;
    if (*ps->p != ':')
        return fail(ps, "expected e: and the name of an enum");
    size_t n = ident(++ps->p);
    int k = n ? enum_index(ps->spec, ps->p, n) : -1;
    if (k < 0)
        return fail(ps, "e: names no enum defined before it "
                        "(enum NAME{A=1,B})");
    it->strmax = (uint16_t)k;
    ps->p += n;
    return 0;
}

/* `tSIZE:NAME` after the t: a struct passed by value, whose size (0 for
 * an empty one, shown `NAME{}`) and name are all that is shown.  The name
 * goes into the spec's names. */
static int struct_of(struct parser *ps, struct ct_arg_item *it)
{
    const char *at = ps->p;
    long size = number(ps);
    if (size > 65535) {
        ps->p = at;
        return fail(ps, "a struct's size is at most 65535 bytes");
    }
    it->strmax = (uint16_t)(size < 0 ? 1 : size);
    if (*ps->p != ':')
        return 0;
    at = ++ps->p;
    size_t n = strcspn(ps->p, ",;%@/");
    if (n == 0 || n > CT_ARGS_TYPE_NAME_MAX)
        return fail(ps, "a struct's name is 1 to 31 bytes after t:");
    if (pool_add(ps, at, n, &it->name) != 0)
        return -1;
    ps->p += n;
    return 0;
}

/* "/fmt" after an item, if any. */
static int format(struct parser *ps, struct ct_arg_item *it)
{
    if (*ps->p != '/')
        return 0;
    char c = *++ps->p;
    if (c >= '0' && c <= '9')  /* `/32`: the automatic format, 4 bytes */
        return width_of(ps, it, 0);
    ps->p++;
    switch (c) {
    case 'd':
    case 'i': it->fmt = CT_FMT_SIGNED; return width_of(ps, it, 0);
    case 'u': it->fmt = CT_FMT_UNSIGNED; return width_of(ps, it, 0);
    case 'x': it->fmt = CT_FMT_HEX; return width_of(ps, it, 0);
    case 'o': it->fmt = CT_FMT_OCT; return width_of(ps, it, 0);
    case 't': it->fmt = CT_FMT_STRUCT; return struct_of(ps, it);
    case 'e': it->fmt = CT_FMT_ENUM; return enum_of(ps, it);
    case 'p': it->fmt = CT_FMT_PTR; return 0;
    case 'c': it->fmt = CT_FMT_CHAR; it->width = 1; return 0;
    case 'f': it->fmt = CT_FMT_FLOAT; return width_of(ps, it, 1);
    case 's': {
        it->fmt = CT_FMT_STR;
        const char *at = ps->p;
        long max = number(ps);
        if (max == 0 || max > CT_ARGS_STR_MAX) {
            ps->p = at;
            return fail(ps, "a string's maximum is 1 to 256 bytes");
        }
        if (max > 0)
            it->strmax = (uint16_t)max;
        return 0;
    }
    default:
        ps->p--;
        return fail(ps, "expected a format: i, u, x, o (with 8, 16, 32 "
                        "or 64), p, c, s (with a maximum), f, t (with a "
                        "size and :name) or e:name");
    }
}

static const char *const reg_names[CT_REG_COUNT] = {
    "rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp",
    "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", NULL,
    "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7",
};

const char *ct_args_reg_name(unsigned reg)
{
    return reg < CT_REG_COUNT ? reg_names[reg] : NULL;
}

/* "%loc" after an argument, if any: a register, memory at a register and
 * an offset (not at a vector register), or none. */
static int location(struct parser *ps, struct ct_arg_item *it)
{
    if (*ps->p != '%')
        return 0;
    const char *at = ++ps->p;
    if (!strncmp(ps->p, "none", 4)) {
        ps->p += 4;
        it->loc = CT_LOC_NONE;
        return 0;
    }
    if (!strncmp(ps->p, "stack", 5)) {  /* uftrace's `%stack+N`, `%stackN` */
        ps->p += 5 + (ps->p[5] == '+');
        long n = number(ps);
        if (n < 1 || n > CT_ARGS_STACK_MAX) {
            ps->p = at;
            return fail(ps, "expected stack+N, N from 1 to 512");
        }
        it->loc = CT_LOC_STACK;
        it->off = (int32_t)n;
        return 0;
    }
    unsigned best = CT_REG_COUNT;
    size_t blen = 0;
    for (unsigned i = 0; i < CT_REG_COUNT; i++) {
        size_t n = reg_names[i] ? strlen(reg_names[i]) : 0;
        if (n > blen && !strncmp(ps->p, reg_names[i], n)) {
            best = i;
            blen = n;
        }
    }
    if (best == CT_REG_COUNT)
        return fail(ps, "expected a register (rax ... r15, xmm0 ... xmm7), "
                        "stack+N or none after %");
    ps->p += blen;
    it->reg = (uint8_t)best;
    it->loc = CT_LOC_REG;
    if (*ps->p != '+' && *ps->p != '-')
        return 0;
    int neg = *ps->p++ == '-';
    long off = number(ps);
    if (off < 0 || off > 1 << 20 || best >= CT_REG_XMM0) {
        ps->p = at;
        return fail(ps, "expected a register of rax ... r15, + or -, and "
                        "an offset of at most 1048576 bytes");
    }
    it->loc = CT_LOC_MEM;
    it->off = (int32_t)(neg ? -off : off);
    return 0;
}

static int item(struct parser *ps, struct ct_args_rule *r)
{
    struct ct_arg_item it = {.fmt = CT_FMT_AUTO, .width = 8,
                             .strmax = CT_ARGS_STR_DEFAULT};
    if (!strncmp(ps->p, "at+", 3)) {
        /* where the places hold: the enter hook's call returning N bytes
         * into the function (frontend/dwarf_site.c) */
        ps->p += 3;
        const char *at = ps->p;
        long n = number(ps);
        if (n < 0 || n > (1l << 30)) {
            ps->p = at;
            return fail(ps, "expected at+ and a number of bytes");
        }
        r->at = (uint32_t)n;
        r->has_at = 1;
        return 0;
    }
    if (!strncmp(ps->p, "retval", 6)) {
        ps->p += 6;
        it.src = CT_ARG_RET;
    } else if (!strncmp(ps->p, "fparg", 5) || !strncmp(ps->p, "arg", 3)) {
        it.src = *ps->p == 'f' ? CT_ARG_FP : CT_ARG_INT;
        ps->p += it.src == CT_ARG_FP ? 5 : 3;
        if (it.src == CT_ARG_INT && *ps->p == 's' &&
            (!ps->p[1] || ps->p[1] == ',' || ps->p[1] == ';')) {
            ps->p++;  /* `args`: calltrace record expands it */
            r->from_dwarf = 1;
            return 0;
        }
        const char *at = ps->p;
        long n = number(ps);
        if (n < 1 || n > 32) {
            ps->p = at;
            return fail(ps, "expected the argument's number, 1 to 32");
        }
        it.index = (uint8_t)n;
        if (it.src == CT_ARG_FP)
            it.fmt = CT_FMT_FLOAT;
    } else {
        return fail(ps, "expected argN, fpargN or retval");
    }
    if (format(ps, &it) != 0)
        return -1;
    if (location(ps, &it) != 0)
        return -1;
    if (it.src == CT_ARG_RET && it.loc != CT_LOC_ABI && it.loc != CT_LOC_MEM)
        return fail(ps, "a return value's place is where the function's "
                        "return address is (retval%rsp+8)");
    if (it.loc == CT_LOC_REG && (it.reg >= CT_REG_XMM0) !=
                                    (it.src == CT_ARG_FP))
        return fail(ps, "an integer is read from rax ... r15, a float "
                        "from xmm0 ... xmm7");
    if (it.src == CT_ARG_FP && it.fmt != CT_FMT_FLOAT &&
        it.fmt != CT_FMT_STRUCT)
        return fail(ps, "fpargN is shown as a float (f)");
    if (it.fmt == CT_FMT_STR)
        r->strings |= it.src == CT_ARG_RET ? 2 : 1;
    if (it.src == CT_ARG_RET) {
        r->ret = it;
        r->has_ret = 1;
        return 0;
    }
    if (r->nitems == CT_ARGS_MAX_ITEMS)
        return fail(ps, "more than 16 arguments in one rule");
    r->items[r->nitems++] = it;
    return 0;
}

static void spaces(struct parser *ps)
{
    while (*ps->p == ' ' || *ps->p == '\t')
        ps->p++;
}

/* `enum NAME{A=1,B,C=0x10}` at ps->p, after `enum`: its values for the
 * `e:NAME` items after it, as C numbers them.  A name defined again keeps
 * its first definition (the user's over the table's). */
static int enum_def(struct parser *ps)
{
    struct ct_args_spec *spec = ps->spec;
    spaces(ps);
    size_t n = ident(ps->p);
    if (!n)
        return fail(ps, "expected the enum's name after enum");
    const char *name = ps->p;
    ps->p += n;
    spaces(ps);
    if (*ps->p != '{')
        return fail(ps, "expected { after the enum's name");
    bool again = enum_index(spec, name, n) >= 0;
    if (!again && spec->nenums == CT_ARGS_MAX_ENUMS)
        return fail(ps, "more than 256 enums");
    struct ct_args_enum e = {0, (uint16_t)spec->nenumerators, 0};
    if (!again && pool_add(ps, name, n, &e.name) != 0)
        return -1;
    int64_t next = 0;
    for (ps->p++, spaces(ps); *ps->p != '}'; spaces(ps)) {
        size_t k = ident(ps->p);
        if (!k || (ps->p[0] >= '0' && ps->p[0] <= '9'))
            return fail(ps, "expected a value's name, or } to end the enum");
        const char *vname = ps->p;
        ps->p += k;
        spaces(ps);
        if (*ps->p == '=') {
            ps->p++;
            spaces(ps);
            char *end;
            errno = 0;
            long long v = strtoll(ps->p, &end, 0);
            if (end == ps->p || errno)
                return fail(ps, "expected a number after =");
            ps->p = end;
            next = v;
            spaces(ps);
        }
        if (!again) {
            if (spec->nenumerators == CT_ARGS_MAX_ENUMERATORS)
                return fail(ps, "more than 4096 enum values in all");
            struct ct_args_enumerator *v =
                &spec->enumerators[spec->nenumerators];
            v->value = next;
            if (pool_add(ps, vname, k, &v->name) != 0)
                return -1;
            spec->nenumerators++;
            e.count++;
        }
        next = (int64_t)((uint64_t)next + 1);
        if (*ps->p == ',')
            ps->p++;
        else if (*ps->p != '}')
            return fail(ps, "expected , or } after an enum's value");
    }
    ps->p++;
    if (!again)
        spec->enums[spec->nenums++] = e;
    return 0;
}

/* One rule at ps->p; *want_auto is set by `auto`, whose table goes
 * after every rule of the user's, which thus win over it. */
static int rule(struct parser *ps, struct ct_args_spec *spec, int *want_auto)
{
    if (!strncmp(ps->p, "auto", 4) && (ps->p[4] == ';' || !ps->p[4])) {
        ps->p += 4;
        *want_auto = 1;
        return 0;
    }
    if (!strncmp(ps->p, "enum", 4) && (ps->p[4] == ' ' || ps->p[4] == '\t')) {
        ps->p += 4;
        return enum_def(ps);
    }
    if (spec->nrules == CT_ARGS_MAX_RULES)
        return fail(ps, "more than 1024 rules");
    struct ct_args_rule *r = &spec->rules[spec->nrules];
    memset(r, 0, sizeof *r);
    const char *start = ps->p;
    size_t n = strcspn(ps->p, "@;");
    if (n == 0)
        return fail(ps, "expected a function name or glob before @");
    if (n >= CT_ARGS_PATTERN_MAX)
        return fail(ps, "a name longer than 127 bytes");
    memcpy(r->pattern, ps->p, n);
    ps->p += n;
    if (!strncmp(ps->p, "@plt@", 5)) { /* calltrace's name of the call */
        ps->p += 4;
        r->libcalls_only = 1;
    }
    if (*ps->p != '@')
        return fail(ps, "expected @ and what to keep after the name");
    do {
        ps->p++;
        if (item(ps, r) != 0)
            return -1;
    } while (*ps->p == ',');
    if (*ps->p && *ps->p != ';')
        return fail(ps, "expected , or ; after an item");
    int rc = ct_args_pattern_init(&r->pat, r->pattern);
    if (rc != 0) {
        char why[96];
        ct_re_error(rc, &r->pat.re, why, sizeof why);
        char what[CT_ARGS_PATTERN_MAX + 100];
        snprintf(what, sizeof what, "'%s': %s", r->pattern, why);
        ps->p = start;
        return fail(ps, what);
    }
    r->from_table = ps->text == ct_args_builtin;
    spec->nrules++;
    return 0;
}

static int rules(struct parser *ps, struct ct_args_spec *spec,
                 int *want_auto)
{
    while (*ps->p) {
        if (rule(ps, spec, want_auto) != 0)
            return -1;
        if (*ps->p == ';')
            ps->p++;
    }
    return 0;
}

int ct_args_parse(struct ct_args_spec *spec, const char *text, char *err,
                  size_t errlen)
{
    struct parser ps = {text, text, err, errlen, spec};
    struct parser table = {ct_args_builtin, ct_args_builtin, err, errlen,
                           spec};
    uint32_t before = spec->nrules, names_before = spec->names_used;
    uint32_t enums_before = spec->nenums, values_before = spec->nenumerators;
    int want_auto = 0;
    if (rules(&ps, spec, &want_auto) != 0 ||
        (want_auto && rules(&table, spec, &want_auto) != 0)) {
        for (uint32_t i = before; i < spec->nrules; i++)
            ct_args_pattern_free(&spec->rules[i].pat);
        spec->nrules = before;
        spec->names_used = names_before;
        spec->nenums = enums_before;
        spec->nenumerators = values_before;
        return -1;
    }
    return 0;
}

int ct_args_pattern_init(struct ct_args_pattern *p, const char *text)
{
    p->is_regex = !strncmp(text, "re:", 3);
    int rc = p->is_regex ? ct_re_compile(&p->re, text + 3) : 0;
    if (rc != 0)
        p->is_regex = 0;  /* nothing to free */
    return rc;
}

int ct_args_pattern_match(const struct ct_args_pattern *p, const char *text,
                          const char *name)
{
    if (p->is_regex)
        return regexec(&p->re, name, 0, NULL, 0) == 0;
    return fnmatch(text, name, 0) == 0;
}

void ct_args_pattern_free(struct ct_args_pattern *p)
{
    if (p->is_regex)
        regfree(&p->re);
    p->is_regex = 0;
}

void ct_args_clear(struct ct_args_spec *spec)
{
    for (uint32_t i = 0; i < spec->nrules; i++)
        ct_args_pattern_free(&spec->rules[i].pat);
    spec->nrules = spec->nmerged = 0;
    spec->names_used = 0;
    spec->nenums = spec->nenumerators = 0;
}

size_t ct_args_enum_text(const struct ct_args_spec *spec,
                         const struct ct_arg_item *it, int64_t v, char *out,
                         size_t cap)
{
    if (it->strmax >= spec->nenums || cap == 0)
        return 0;
    const struct ct_args_enum *e = &spec->enums[it->strmax];
    const struct ct_args_enumerator *vals = spec->enumerators + e->first;
    for (unsigned i = 0; i < e->count; i++)
        if (vals[i].value == v) {
            size_t n = strlen(spec->names + vals[i].name);
            if (n >= cap)
                return 0;
            memcpy(out, spec->names + vals[i].name, n + 1);
            return n;
        }
    /* flags: values of their own bits that make v up, in their order */
    uint64_t left = (uint64_t)v;
    size_t n = 0;
    for (unsigned i = 0; i < e->count && left; i++) {
        uint64_t bits = (uint64_t)vals[i].value;
        if (!bits || (bits & left) != bits)
            continue;
        size_t k = strlen(spec->names + vals[i].name);
        if (n + !!n + k >= cap)
            return 0;
        if (n)
            out[n++] = '|';
        memcpy(out + n, spec->names + vals[i].name, k);
        n += k;
        left &= ~bits;
    }
    if (left || !n)
        return 0;
    out[n] = '\0';
    return n;
}

static int matches(const struct ct_args_rule *r, const char *name)
{
    return ct_args_pattern_match(&r->pat, r->pattern, name);
}

static int has_arg(const struct ct_args_rule *m, const struct ct_arg_item *it)
{
    for (uint32_t i = 0; i < m->nitems; i++)
        if (m->items[i].src == it->src && m->items[i].index == it->index)
            return 1;
    return 0;
}

/* Adds r's arguments that m lacks, and its return value if m has none. */
static void add_rule(struct ct_args_rule *m, const struct ct_args_rule *r)
{
    for (uint32_t i = 0; i < r->nitems && m->nitems < CT_ARGS_MAX_ITEMS; i++)
        if (!has_arg(m, &r->items[i])) {
            m->items[m->nitems++] = r->items[i];
            if (r->items[i].fmt == CT_FMT_STR)
                m->strings |= 1;
        }
    if (r->has_at && !m->has_at) {
        m->at = r->at;
        m->has_at = 1;
    }
    if (r->has_ret && !m->has_ret) {
        m->ret = r->ret;
        m->has_ret = 1;
        if (r->ret.fmt == CT_FMT_STR)
            m->strings |= 2;
    }
}

static void merge(struct ct_args_rule *m, const struct ct_args_spec *spec,
                  const uint64_t *from)
{
    memset(m, 0, sizeof *m);
    for (int table = 0; table < 2; table++) {
        int had_args = m->nitems != 0;
        for (uint32_t i = 0; i < spec->nrules; i++) {
            const struct ct_args_rule *r = &spec->rules[i];
            if (!(from[i / 64] >> (i % 64) & 1) || r->from_table != table)
                continue;
            if (!m->pattern[0])
                memcpy(m->pattern, r->pattern, sizeof m->pattern);
            if (!table || !had_args) {
                add_rule(m, r);
            } else if (r->has_ret && !m->has_ret) {
                struct ct_args_rule ret_only = *r;
                ret_only.nitems = 0;
                add_rule(m, &ret_only);
            }
        }
    }
}

uint32_t ct_args_match(struct ct_args_spec *spec, const char *name,
                       int libcall)
{
    uint64_t from[CT_ARGS_MAX_RULES / 64] = {0};
    uint32_t first = 0, n = 0;
    for (uint32_t i = 0; i < spec->nrules; i++)
        if ((libcall || !spec->rules[i].libcalls_only) &&
            matches(&spec->rules[i], name)) {
            from[i / 64] |= 1ull << (i % 64);
            first = first ? first : i + 1;
            n++;
        }
    if (n < 2)
        return first;
    for (uint32_t k = 0; k < spec->nmerged; k++)
        if (!memcmp(spec->merged[k].from, from, sizeof from))
            return CT_ARGS_MAX_RULES + 1 + k;
    if (spec->nmerged == CT_ARGS_MAX_MERGED)
        return first;
    struct ct_args_merged *m = &spec->merged[spec->nmerged];
    memcpy(m->from, from, sizeof from);
    merge(&m->rule, spec, from);
    return CT_ARGS_MAX_RULES + 1 + spec->nmerged++;
}
