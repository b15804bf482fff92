/*
 * `--args FUNC@args` and `--auto-args`: the parameters of the program's
 * own functions, read from its debug information (libdw) by calltrace
 * record before the program starts, and written out as the plain rules
 * the tracer reads (`foo@arg1/i32,arg2/s,fparg1/f64,retval/f32`), as
 * uftrace's record turns `-A .` and `--auto-args` into argument specs for
 * its runtime.  The tracer itself never reads DWARF: its start stays
 * short, and a rule is a rule wherever it came from.
 *
 * Each parameter's type gives the item (settings/args_spec.h): integers
 * by width and sign, char as a char, a char pointer as a string, other
 * pointers and references as pointers, an enum as a signed integer, float
 * and double as fpargN.  The ABI's order is followed: integer-class
 * parameters take arg1, arg2, ... and floating ones fparg1, fparg2, ...;
 * a C++ method's `this` is arg1, shown as uftrace shows it.  At the first
 * parameter whose place that order cannot tell (a struct passed by value,
 * a long double, a variadic tail) the function's items stop: what is
 * shown is never a guess.  A function returning a struct keeps no
 * arguments (its hidden return pointer may come first) and no return
 * value.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <regex.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "frontend/frontend.h"
#include "settings/args_spec.h"

/* A function of the program with debug information, and its items. */
struct dfunc {
    char *sym;     /* the name its symbol has: the rule's pattern         */
    char *name;    /* DW_AT_name, which a user's pattern may name instead */
    char *items;   /* "arg1/i32,fparg1/f64", possibly empty                */
    char *ret;     /* "retval/i32", or NULL (void, a struct, unknown)      */
};

struct dfuncs {
    struct dfunc *v;
    size_t n, cap;
};

/* A growing string. */
struct text {
    char *s;
    size_t n, cap;
};

static void add(struct text *t, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int k = vsnprintf(t->s ? t->s + t->n : NULL, t->s ? t->cap - t->n : 0,
                          fmt, ap);
        va_end(ap);
        if (k < 0)
            exit(CT_FE_FAILED);
        if (t->s && t->n + (size_t)k < t->cap) {
            t->n += (size_t)k;
            return;
        }
        t->cap = (t->cap + (size_t)k + 1) * 2;
        t->s = realloc(t->s, t->cap);
        if (!t->s)
            exit(CT_FE_FAILED);
        if (t->n == 0)
            t->s[0] = '\0';
    }
}

/* The type under typedefs and qualifiers; false for void. */
static bool base_of(Dwarf_Die *die, Dwarf_Die *out)
{
    Dwarf_Attribute at;
    Dwarf_Die cur = *die;
    for (int hops = 0; hops < 64; hops++) {
        int tag = dwarf_tag(&cur);
        if (tag != DW_TAG_typedef && tag != DW_TAG_const_type &&
            tag != DW_TAG_volatile_type && tag != DW_TAG_restrict_type &&
            tag != DW_TAG_atomic_type) {
            *out = cur;
            return true;
        }
        if (!dwarf_attr_integrate(&cur, DW_AT_type, &at) ||
            !dwarf_formref_die(&at, &cur))
            return false;  /* const void */
    }
    return false;
}

/* The type a DIE (a parameter or a function) has; false for void. */
static bool type_of(Dwarf_Die *die, Dwarf_Die *out)
{
    Dwarf_Attribute at;
    Dwarf_Die t;
    if (!dwarf_attr_integrate(die, DW_AT_type, &at) ||
        !dwarf_formref_die(&at, &t))
        return false;
    return base_of(&t, out);
}

enum kind { K_INT, K_FP, K_STOP };

/* The item's format for a type, and whether it is integer or floating
 * class; K_STOP when its place in the registers is not known here. */
static enum kind classify(Dwarf_Die *t, char *fmt, size_t cap)
{
    Dwarf_Attribute at;
    Dwarf_Word enc = 0;
    int size = dwarf_bytesize(t);
    switch (dwarf_tag(t)) {
    case DW_TAG_base_type:
        if (dwarf_attr(t, DW_AT_encoding, &at))
            dwarf_formudata(&at, &enc);
        if (enc == DW_ATE_float && (size == 4 || size == 8)) {
            snprintf(fmt, cap, "f%d", size * 8);
            return K_FP;
        }
        if (size != 1 && size != 2 && size != 4 && size != 8)
            return K_STOP;
        if ((enc == DW_ATE_signed_char || enc == DW_ATE_unsigned_char) &&
            size == 1)
            snprintf(fmt, cap, "c");
        else if (enc == DW_ATE_signed || enc == DW_ATE_signed_char)
            snprintf(fmt, cap, "i%d", size * 8);
        else if (enc == DW_ATE_unsigned || enc == DW_ATE_unsigned_char ||
                 enc == DW_ATE_boolean || enc == DW_ATE_UTF)
            snprintf(fmt, cap, "u%d", size * 8);
        else
            return K_STOP;
        return K_INT;
    case DW_TAG_pointer_type: {
        Dwarf_Die to;
        Dwarf_Word penc = 0;
        if (type_of(t, &to) && dwarf_tag(&to) == DW_TAG_base_type &&
            dwarf_bytesize(&to) == 1 && dwarf_attr(&to, DW_AT_encoding, &at) &&
            dwarf_formudata(&at, &penc) == 0 &&
            (penc == DW_ATE_signed_char || penc == DW_ATE_unsigned_char))
            snprintf(fmt, cap, "s");
        else
            snprintf(fmt, cap, "p");
        return K_INT;
    }
    case DW_TAG_reference_type:
    case DW_TAG_rvalue_reference_type:
        snprintf(fmt, cap, "p");
        return K_INT;
    case DW_TAG_enumeration_type:
        if (size != 1 && size != 2 && size != 4 && size != 8)
            return K_STOP;
        snprintf(fmt, cap, "i%d", size * 8);
        return K_INT;
    default:
        return K_STOP;  /* a struct, union, class or array by value */
    }
}

/* The items of a function's parameters, in the ABI's order. */
static void params(Dwarf_Die *fn, struct text *items)
{
    Dwarf_Die child;
    int ints = 0, fps = 0, shown = 0;
    if (dwarf_child(fn, &child) != 0)
        return;
    do {
        int tag = dwarf_tag(&child);
        if (tag == DW_TAG_unspecified_parameters)
            return;
        if (tag != DW_TAG_formal_parameter)
            continue;
        Dwarf_Die t;
        char fmt[16];
        if (!type_of(&child, &t))
            return;
        enum kind k = classify(&t, fmt, sizeof fmt);
        if (k == K_STOP || shown == CT_ARGS_MAX_ITEMS)
            return;
        if (k == K_FP && fps == 8)
            return;  /* past %xmm7: on the stack, among the integers */
        int index = k == K_FP ? ++fps : ++ints;
        add(items, "%s%s%d/%s", items->n ? "," : "",
            k == K_FP ? "fparg" : "arg", index, fmt);
        shown++;
    } while (dwarf_siblingof(&child, &child) == 0);
}

static char *dup_or_null(const char *s)
{
    char *d = s ? strdup(s) : NULL;
    if (s && !d)
        exit(CT_FE_FAILED);
    return d;
}

/* A function defined here (code of its own, not a declaration). */
static bool defined(Dwarf_Die *die)
{
    return dwarf_hasattr(die, DW_AT_low_pc) || dwarf_hasattr(die, DW_AT_ranges);
}

static void add_function(struct dfuncs *fs, Dwarf_Die *fn)
{
    Dwarf_Attribute at;
    const char *name = dwarf_diename(fn);
    if (!name && dwarf_attr_integrate(fn, DW_AT_name, &at))
        name = dwarf_formstring(&at);
    const char *sym = NULL;
    if (dwarf_attr_integrate(fn, DW_AT_linkage_name, &at) ||
        dwarf_attr_integrate(fn, DW_AT_MIPS_linkage_name, &at))
        sym = dwarf_formstring(&at);
    if (!sym)
        sym = name;
    if (!sym || strlen(sym) >= CT_ARGS_PATTERN_MAX ||
        strpbrk(sym, "*?[\\;@"))
        return;  /* a name no rule can hold as it is */
    struct text items = {0};
    char *ret = NULL;
    Dwarf_Die rt;
    char fmt[16];
    if (!type_of(fn, &rt)) {
        params(fn, &items);
    } else if (classify(&rt, fmt, sizeof fmt) != K_STOP) {
        params(fn, &items);
        if (asprintf(&ret, "retval/%s", fmt) < 0)
            exit(CT_FE_FAILED);
    }
    if (fs->n == fs->cap) {
        fs->cap = fs->cap ? 2 * fs->cap : 64;
        fs->v = realloc(fs->v, fs->cap * sizeof *fs->v);
        if (!fs->v)
            exit(CT_FE_FAILED);
    }
    fs->v[fs->n++] = (struct dfunc){dup_or_null(sym), dup_or_null(name),
                                    items.s ? items.s : dup_or_null(""), ret};
}

/* The functions under die: a CU's, a namespace's, a class's. */
static void walk(struct dfuncs *fs, Dwarf_Die *die, int level)
{
    Dwarf_Die child;
    if (level > 32 || dwarf_child(die, &child) != 0)
        return;
    do {
        switch (dwarf_tag(&child)) {
        case DW_TAG_subprogram:
            if (defined(&child))
                add_function(fs, &child);
            break;
        case DW_TAG_namespace:
        case DW_TAG_class_type:
        case DW_TAG_structure_type:
            walk(fs, &child, level + 1);
            break;
        default:
            break;
        }
    } while (dwarf_siblingof(&child, &child) == 0);
}

/* The program's functions with debug information; -1 when it has none. */
static int read_functions(const char *exe, struct dfuncs *fs)
{
    int fd = open(exe, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    Dwarf *dw = dwarf_begin(fd, DWARF_C_READ);
    if (!dw) {
        close(fd);
        return -1;
    }
    Dwarf_Off off = 0, next;
    size_t hsize;
    while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
        Dwarf_Die cu;
        if (dwarf_offdie(dw, off + hsize, &cu))
            walk(fs, &cu, 0);
        off = next;
    }
    dwarf_end(dw);
    close(fd);
    return 0;
}

static void free_functions(struct dfuncs *fs)
{
    for (size_t i = 0; i < fs->n; i++) {
        free(fs->v[i].sym);
        free(fs->v[i].name);
        free(fs->v[i].items);
        free(fs->v[i].ret);
    }
    free(fs->v);
}

/* The environment holds at most 128 KiB in one variable (MAX_ARG_STRLEN):
 * the rules auto makes stop well short of it. */
#define AUTO_TEXT_MAX (96u << 10)

/* A rule's pattern as the tracer matches it: a glob, or re:REGEX
 * anywhere in the name. */
struct pat {
    const char *glob;
    regex_t re;
    bool is_re;
};

static int pat_init(struct pat *p, const char *text)
{
    p->is_re = !strncmp(text, "re:", 3);
    p->glob = text;
    return p->is_re ? regcomp(&p->re, text + 3, REG_EXTENDED | REG_NOSUB)
                    : 0;
}

static bool pat_match(const struct pat *p, const char *name)
{
    if (!name)
        return false;
    return p->is_re ? regexec(&p->re, name, 0, NULL, 0) == 0
                    : fnmatch(p->glob, name, 0) == 0;
}

/* The rules the tracer takes at most, less room for the table's
 * (settings/args_spec.c, about 60): past it a spec would be refused
 * whole. */
#define MADE_MAX (CT_ARGS_MAX_RULES - 128)

/* Rules made so far, and those not made for want of room. */
static size_t made_total, made_left;

/* One rule `PATTERN@args[,retval][,other items]`: a rule for each
 * function it names, with their DWARF items first; the number made. */
static size_t expand_rule(const struct dfuncs *fs, const char *pattern,
                          char *items, struct text *out)
{
    bool retval = false;
    struct text rest = {0};
    for (char *save, *it = strtok_r(items, ",", &save); it;
         it = strtok_r(NULL, ",", &save)) {
        if (!strcmp(it, "args"))
            continue;
        if (!strcmp(it, "retval"))
            retval = true;  /* typed by the function's own */
        else
            add(&rest, "%s%s", rest.n ? "," : "", it);
    }
    struct pat p;
    if (pat_init(&p, pattern) != 0)
        return 0;  /* the tracer's parser names the error */
    size_t made = 0;
    for (size_t i = 0; i < fs->n; i++) {
        const struct dfunc *f = &fs->v[i];
        if (!pat_match(&p, f->sym) && !pat_match(&p, f->name))
            continue;
        struct text one = {0};
        add(&one, "%s", f->items);
        if (retval && f->ret)
            add(&one, "%s%s", one.n ? "," : "", f->ret);
        if (rest.n)
            add(&one, "%s%s", one.n ? "," : "", rest.s);
        if (one.n && (made_total >= MADE_MAX || out->n > AUTO_TEXT_MAX)) {
            made_left++;
        } else if (one.n) {
            add(out, "%s%s@%s", out->n ? ";" : "", f->sym, one.s);
            made++;
            made_total++;
        }
        free(one.s);
    }
    if (p.is_re)
        regfree(&p.re);
    free(rest.s);
    return made;
}

/* `name@args` for a library function of the built-in table (`auto`'s):
 * the table's items, for library calls (name@plt@), as uftrace's
 * `-A creat` takes its own table's; the number of rules made. */
static size_t table_rules(const char *pattern, char *items, struct text *out)
{
    struct ct_args_spec *table = calloc(1, sizeof *table);
    char perr[192];
    if (!table)
        exit(CT_FE_FAILED);
    ct_args_parse(table, "auto", perr, sizeof perr);
    struct pat p;
    size_t made = 0;
    if (pat_init(&p, pattern) != 0) {
        free(table);
        return 0;
    }
    struct text rest = {0};
    bool retval = false;
    for (char *save, *it = strtok_r(items, ",", &save); it;
         it = strtok_r(NULL, ",", &save))
        if (!strcmp(it, "retval"))
            retval = true;
        else if (strcmp(it, "args"))
            add(&rest, ",%s", it);
    for (uint32_t i = 0; i < table->nrules; i++) {
        const char *name = table->rules[i].pattern;
        if (!pat_match(&p, name))
            continue;
        /* the table's own text of the rule */
        const char *at = strstr(ct_args_builtin, name);
        while (at && ((at != ct_args_builtin && at[-1] != ';') ||
                      at[strlen(name)] != '@'))
            at = strstr(at + 1, name);
        if (!at)
            continue;
        /* its arguments, and its return value if asked for */
        char *own = strndup(at + strlen(name) + 1,
                            strcspn(at, ";") - strlen(name) - 1);
        if (!own)
            exit(CT_FE_FAILED);
        struct text kept = {0};
        for (char *save, *it = strtok_r(own, ",", &save); it;
             it = strtok_r(NULL, ",", &save))
            if (retval || strncmp(it, "retval", 6))
                add(&kept, "%s%s", kept.n ? "," : "", it);
        if (kept.n || rest.n)
            add(out, "%s%s@plt@%s%s", out->n ? ";" : "", name,
                kept.s ? kept.s : "", rest.s ? rest.s + !kept.n : "");
        free(kept.s);
        free(own);
        made++;
    }
    if (p.is_re)
        regfree(&p.re);
    free(rest.s);
    ct_args_clear(table);
    free(table);
    return made;
}

/* Whether a rule's items name `args`. */
static bool names_args(const char *items)
{
    size_t n = strlen("args");
    for (const char *p = items; (p = strstr(p, "args")); p += n)
        if ((p == items || p[-1] == ',') && (p[n] == ',' || !p[n]))
            return true;
    return false;
}

bool ct_fe_args_need_dwarf(const char *spec)
{
    if (!spec)
        return false;
    for (const char *p = spec; *p;) {
        size_t len = strcspn(p, ";");
        const char *at = memchr(p, '@', len);
        char *items = at ? strndup(at + 1, len - (size_t)(at + 1 - p)) : NULL;
        if (at && !items)
            exit(CT_FE_FAILED);
        bool dwarf = (len == 4 && !strncmp(p, "auto", 4)) ||
                     (items && names_args(items));
        free(items);
        if (dwarf)
            return true;
        p += len + (p[len] == ';');
    }
    return false;
}

char *ct_fe_args_dwarf(const char *exe, const char *spec, char *err,
                       size_t errlen, size_t *own)
{
    *own = 0;
    made_total = made_left = 0;
    struct dfuncs fs = {0};
    /* a program built without -g may still carry a CU or two of its
     * start-up files: none of its own functions is no information */
    bool have = read_functions(exe, &fs) == 0 && fs.n > 0;
    struct text out = {0};
    struct text autos = {0};
    bool want_auto = false;
    char *copy = strdup(spec);
    if (!copy)
        exit(CT_FE_FAILED);
    for (char *save, *rule = strtok_r(copy, ";", &save); rule;
         rule = strtok_r(NULL, ";", &save)) {
        char *at = strchr(rule, '@');
        if (!strcmp(rule, "auto")) {
            want_auto = true;
            add(&out, "%sauto", out.n ? ";" : "");
            continue;
        }
        if (!at || !names_args(at + 1)) {
            add(&out, "%s%s", out.n ? ";" : "", rule);
            continue;
        }
        *at = '\0';
        char *items = strdup(at + 1);
        if (!items)
            exit(CT_FE_FAILED);
        size_t mine = expand_rule(&fs, rule, at + 1, &out);
        size_t made = mine + table_rules(rule, items, &out);
        *own += mine;
        free(items);
        if (!made && !have) {
            snprintf(err, errlen, "'%s@args': %s has no debug information "
                     "(build it with -g), and no library function of the "
                     "built-in table has that name", rule, exe);
            free(copy), free(out.s);
            free_functions(&fs);
            return NULL;
        }
        if (!made && !made_left)
            ct_fe_error("--args '%s@args': no function of %s with debug "
                        "information has that name", rule, exe);
    }
    if (made_left)
        ct_fe_error("--args: the arguments of %zu functions of %s are left "
                    "out: the tracer keeps at most %u rules", made_left, exe,
                    CT_ARGS_MAX_RULES);
    /* auto: every function with debug information, as the tracer merges
     * rules: its parameters unless a rule of the user's gives arguments,
     * its return value unless one gives a return value. */
    if (want_auto && have) {
        struct ct_args_spec *user = calloc(1, sizeof *user);
        char perr[192];
        if (!user)
            exit(CT_FE_FAILED);
        if (out.s && ct_args_parse(user, out.s, perr, sizeof perr) != 0)
            user->nrules = 0;  /* the tracer's parser names the error */
        size_t rules = user->nrules, left = 0;
        for (size_t i = 0; i < fs.n; i++) {
            struct dfunc *f = &fs.v[i];
            /* as the tracer merges rules: the user's arguments, else
             * these; the user's return value, else this one */
            uint32_t id = ct_args_match(user, f->sym, 0);
            if (!id && f->name)
                id = ct_args_match(user, f->name, 0);
            const struct ct_args_rule *ur = id ? ct_args_rule(user, id) : NULL;
            const char *items = !ur || !ur->nitems ? f->items : "";
            const char *ret = !ur || !ur->has_ret ? f->ret : NULL;
            if (!items[0] && !ret)
                continue;
            if (rules >= CT_ARGS_MAX_RULES || autos.n > AUTO_TEXT_MAX) {
                left++;
                continue;
            }
            add(&autos, ";%s@%s%s%s", f->sym, items, items[0] && ret ? "," : "",
                ret ? ret : "");
            rules++;
            ++*own;
        }
        if (left)
            ct_fe_error("--auto-args: the arguments of %zu functions of %s "
                        "are left out: the tracer keeps at most %u rules",
                        left, exe, CT_ARGS_MAX_RULES);
        ct_args_clear(user);
        free(user);
    }
    if (autos.n)
        add(&out, "%s", autos.s);
    free(autos.s);
    free(copy);
    free_functions(&fs);
    if (!out.s)
        add(&out, "%s", "");
    return out.s;
}
