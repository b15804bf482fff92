/*
 * `--args FUNC@args` and `--auto-args`: the rules of the program's own
 * functions, made from its debug information (dwarf_funcs.c) by calltrace
 * record before the program starts, and written out as the plain rules
 * the tracer reads (`foo@arg1/i32,arg2/s,fparg1/f64,retval/f32`), as
 * uftrace's record turns `-A .` and `--auto-args` into argument specs for
 * its runtime.  The tracer itself never reads DWARF: its start stays
 * short, and a rule is a rule wherever it came from.  `FUNC@args` also
 * names library functions of the built-in table (`auto`'s), and every
 * rule made stops short of the tracer's limit.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/dwarf_funcs.h"
#include "frontend/frontend.h"
#include "settings/args_spec.h"

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

/* The environment holds at most 128 KiB in one variable (MAX_ARG_STRLEN):
 * the rules auto makes stop well short of it. */
#define AUTO_TEXT_MAX (96u << 10)

/* Whether name (possibly NULL) matches a pattern compiled from text, as
 * the tracer matches it (ct_args_pattern_match). */
static bool pat_match(const struct ct_args_pattern *p, const char *text,
                      const char *name)
{
    return name && ct_args_pattern_match(p, text, name);
}

/* The rules the tracer takes at most, less room for the table's
 * (settings/args_spec.c, about 60): past it a spec would be refused
 * whole. */
#define MADE_MAX (CT_ARGS_MAX_RULES - 128)

/* Rules made so far, and those not made for want of room. */
static size_t made_total, made_left;

/* Adds the rule `sym@items` to out when there is room, else counts it
 * left out; frees items.  1 when it was made. */
static size_t emit(struct text *out, const char *sym, struct text *items)
{
    size_t made = 0;
    if (items->n && (made_total >= MADE_MAX || out->n > AUTO_TEXT_MAX)) {
        made_left++;
    } else if (items->n) {
        add(out, "%s%s@%s", out->n ? ";" : "", sym, items->s);
        made = 1;
        made_total++;
    }
    free(items->s);
    return made;
}

/* One rule `PATTERN@args[,retval][,other items]`: a rule for each
 * function it names, with their DWARF items first; the number made. */
static size_t expand_rule(const struct ct_fe_dfuncs *fs, const char *pattern,
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
    struct ct_args_pattern p;
    if (ct_args_pattern_init(&p, pattern) != 0)
        return 0;  /* the tracer's parser names the error */
    size_t made = 0;
    for (size_t i = 0; i < fs->n; i++) {
        const struct ct_fe_dfunc *f = &fs->v[i];
        if (!pat_match(&p, pattern, f->sym) &&
            !pat_match(&p, pattern, f->name))
            continue;
        struct text one = {0};
        add(&one, "%s", f->items);
        if (retval && f->ret)
            add(&one, "%s%s", one.n ? "," : "", f->ret);
        if (rest.n)
            add(&one, "%s%s", one.n ? "," : "", rest.s);
        made += emit(out, f->sym, &one);
    }
    ct_args_pattern_free(&p);
    free(rest.s);
    return made;
}

/* The item of the parameter named name (`arg2`, `fparg1`) among a
 * function's items made at the hook's call (`arg2/i32%rbp-20`), into
 * item; false when there is none. */
static bool item_of(const char *items, const char *name, char *item,
                    size_t cap)
{
    size_t n = strlen(name);
    for (const char *p = items; *p;) {
        size_t len = strcspn(p, ",");
        if (!strncmp(p, name, n) && (p[n] == '/' || p[n] == '%') && len < cap) {
            snprintf(item, cap, "%.*s", (int)len, p);
            return true;
        }
        p += len + (p[len] == ',');
    }
    return false;
}

/* A user's item (`arg2`, `arg2/x`) read where the DWARF item found says:
 * its format as written, with the parameter's width where the user gave
 * none (a 4-byte slot read as 8 bytes would show its neighbour too), or
 * when the user gave no format, the automatic one of that width. */
static void locate_item(const char *user, const char *found, struct text *one)
{
    const char *loc = found ? strchr(found, '%') : NULL;
    const char *slash = strchr(user, '/');
    if (one->n)
        add(one, ",");
    if (!loc) {
        add(one, "%s%%none", user);
        return;
    }
    const char *fslash = strchr(found, '/');
    /* i32, u16, f64: 32, 16, 64; a char: 8; a pointer, a string: none */
    int bits = !fslash ? 0 : fslash[1] == 'c' ? 8 : atoi(fslash + 2);
    if (!slash) {
        /* uftrace's automatic format, of the parameter's width: signed
         * as the caller's extension makes a signed one, unsigned else */
        char f = fslash ? fslash[1] : 'p';
        if (f == 'f')
            add(one, "%.*s", (int)(loc - found), found);
        else if (f == 'u' && bits)
            add(one, "%s/u%d", user, bits);
        else if ((f == 'i' || f == 'c') && bits)
            add(one, "%s/%d", user, bits);
        else
            add(one, "%s", user);
        add(one, "%s", loc);
        return;
    }
    bool widthless = slash[1] && strchr("iuxdf", slash[1]) && !slash[2];
    if (widthless && bits)
        add(one, "%s%d%s", user, bits, loc);
    else
        add(one, "%s%s", user, loc);
}

/* A user's item as written, but for uftrace's `%stack+N` (the caller's
 * Nth stack slot at the entry), which at the hook's call is memory just
 * above the function's return address (retaddr, `%rsp+40`), where the
 * CFI says it is; `%none` where it does not. */
static void stack_slot(const char *item, const char *retaddr,
                       struct text *one)
{
    const char *at = strstr(item, "%stack");
    char reg[8], sign;
    unsigned long off;
    int used = 0;
    if (!at) {
        add(one, "%s", item);
        return;
    }
    unsigned long n = strtoul(at + 6 + (at[6] == '+'), NULL, 10);
    if (!retaddr || sscanf(retaddr, "%%%7[a-z0-9]%c%lu%n", reg, &sign, &off,
                           &used) != 3 || retaddr[used] ||
        (sign != '+' && sign != '-')) {
        add(one, "%.*s%%none", (int)(at - item), item);
        return;
    }
    long place = (sign == '-' ? -(long)off : (long)off) + 8 * (long)n;
    add(one, "%.*s%%%s%c%ld", (int)(at - item), item, reg,
        place < 0 ? '-' : '+', place < 0 ? -place : place);
}

/* In a build with the hooks, a rule's argN and fpargN (the ABI's names,
 * uftrace's -A) mean the registers at the entry, which the hook's call
 * has changed: for each of the program's functions the rule names, a
 * rule of its own with each such item read where the DWARF says that
 * parameter is at the call (`%none` where no parameter or location is),
 * to come before the rule as written, which still serves library
 * calls; the number made.  A retval is caught where the function
 * returns to. */
static size_t locate_rule(const struct ct_fe_dfuncs *fs, const char *pattern,
                          const char *items, struct text *out)
{
    struct ct_args_pattern p;
    if (ct_args_pattern_init(&p, pattern) != 0)
        return 0;
    size_t made = 0;
    for (size_t i = 0; i < fs->n; i++) {
        const struct ct_fe_dfunc *f = &fs->v[i];
        if (!pat_match(&p, pattern, f->sym) && !pat_match(&p, pattern, f->name))
            continue;
        struct text one = {0};
        char *copy = strdup(items);
        if (!copy)
            exit(CT_FE_FAILED);
        for (char *save, *it = strtok_r(copy, ",", &save); it;
             it = strtok_r(NULL, ",", &save)) {
            size_t name = strcspn(it, "/%");
            bool is_arg = !strncmp(it, "arg", 3) || !strncmp(it, "fparg", 5);
            if (!strncmp(it, "retval", 6) && !strchr(it, '%')) {
                /* caught where the function returns to, as its type
                 * allows: in the user's format, else the automatic one */
                const char *at = f->ret ? strchr(f->ret, '%') : NULL;
                if (at)
                    add(&one, "%s%s%s", one.n ? "," : "", it, at);
                continue;
            }
            if (!is_arg)
                continue;
            if (strchr(it, '%')) {  /* a place the user wrote */
                add(&one, "%s", one.n ? "," : "");
                stack_slot(it, f->retaddr, &one);
                continue;
            }
            char want[16], found[64];
            snprintf(want, sizeof want, "%.*s", (int)(name < 15 ? name : 15),
                     it);
            locate_item(it, item_of(f->items, want, found, sizeof found)
                                ? found : NULL, &one);
        }
        free(copy);
        /* the hook's call these places hold at (`at+N`) */
        const char *at = strstr(f->items, "at+");
        if (one.n && at && (at == f->items || at[-1] == ','))
            add(&one, ",%.*s", (int)strcspn(at, ","), at);
        made += emit(out, f->sym, &one);
    }
    ct_args_pattern_free(&p);
    return made;
}

/* `name@args` for a library function of the built-in table (`auto`'s):
 * the table's items, for library calls (name@plt@), as uftrace's
 * `-A creat` takes its own table's; the number of rules made. */
static size_t table_rules(const char *pattern, char *items, struct text *out)
{
    struct ct_args_pattern p;
    if (ct_args_pattern_init(&p, pattern) != 0)
        return 0;  /* the tracer's parser names the error */
    struct text rest = {0};
    bool retval = false;
    for (char *save, *it = strtok_r(items, ",", &save); it;
         it = strtok_r(NULL, ",", &save))
        if (!strcmp(it, "retval"))
            retval = true;
        else if (strcmp(it, "args"))
            add(&rest, ",%s", it);
    /* the table's own text, a rule `name@items` at a time */
    char *table = strdup(ct_args_builtin);
    if (!table)
        exit(CT_FE_FAILED);
    size_t made = 0;
    for (char *save, *rule = strtok_r(table, ";", &save); rule;
         rule = strtok_r(NULL, ";", &save)) {
        char *at = strchr(rule, '@');
        if (!at)
            continue;
        *at = '\0';
        if (!pat_match(&p, pattern, rule))
            continue;
        /* its arguments, and its return value if asked for */
        struct text kept = {0};
        for (char *save2, *it = strtok_r(at + 1, ",", &save2); it;
             it = strtok_r(NULL, ",", &save2))
            if (retval || strncmp(it, "retval", 6))
                add(&kept, "%s%s", kept.n ? "," : "", it);
        if (kept.n || rest.n)
            add(out, "%s%s@plt@%s%s", out->n ? ";" : "", rule,
                kept.s ? kept.s : "", rest.s ? rest.s + !kept.n : "");
        free(kept.s);
        made++;
    }
    free(table);
    ct_args_pattern_free(&p);
    free(rest.s);
    return made;
}

/* The definition `enum NAME{...};` (n bytes of name) in defs, a text of
 * rules, into *def and *len; false when there is none. */
static bool find_enum(const char *defs, const char *name, size_t n,
                      const char **def, size_t *len)
{
    for (const char *at = defs; defs && (at = strstr(at, "enum ")); at++) {
        if ((at != defs && at[-1] != ';') || strncmp(at + 5, name, n) ||
            at[5 + n] != '{')
            continue;
        *def = at;
        *len = strcspn(at, "}") + 1;
        return at[*len - 1] == '}';
    }
    return false;
}

/* Most enums, values and bytes of names the rules define, under the
 * tracer's limits (settings/args_spec.h): past them a spec is refused
 * whole. */
#define ENUMS_MAX (CT_ARGS_MAX_ENUMS - 8)
#define ENUM_BYTES_MAX (CT_ARGS_NAMES / 2)

/* The enums the rules of *out name (`/e:color`, `/e8:mode`) defined at
 * its start, from the program's DWARF (dwarf) or the built-in table,
 * each once, as many as the tracer takes; an item whose enum is not
 * defined then reads as a signed integer of its width (`/i32`). */
static void define_enums(struct text *out, const char *dwarf)
{
    struct text defs = {0}, rest = {0};
    size_t nenums = 0;
    const char *p = out->s ? out->s : "";
    const char *e;
    while ((e = strstr(p, "/e"))) {
        size_t w = strspn(e + 2, "0123456789");
        const char *name = e + 3 + w;
        size_t n = strcspn(name, ",;%");
        if (e[2 + w] != ':' || !n) {  /* not an enum's item */
            add(&rest, "%.*s", (int)(e + 2 - p), p);
            p = e + 2;
            continue;
        }
        const char *def;
        size_t len;
        bool have = find_enum(out->s, name, n, &def, &len) ||
                    (defs.s && find_enum(defs.s, name, n, &def, &len));
        if (!have && nenums < ENUMS_MAX &&
            (find_enum(dwarf, name, n, &def, &len) ||
             find_enum(ct_args_builtin, name, n, &def, &len)) &&
            defs.n + len < ENUM_BYTES_MAX) {
            add(&defs, "%.*s;", (int)len, def);
            nenums++;
            have = true;
        }
        if (have)  /* the item as it is */
            add(&rest, "%.*s", (int)(name + n - p), p);
        else       /* a plain integer: `/i32` for `/e:color` */
            add(&rest, "%.*s/i%.*s", (int)(e - p), p, (int)(w ? w : 2),
                w ? e + 2 : "32");
        p = name + n;
    }
    add(&rest, "%s", p);
    free(out->s);
    *out = (struct text){0};
    add(out, "%s%s", defs.s ? defs.s : "", rest.s);
    free(defs.s);
    free(rest.s);
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

char *ct_fe_args_dwarf(const char *exe, const char *spec, bool at_hooks,
                       char *err, size_t errlen, size_t *own)
{
    *own = 0;
    made_total = made_left = 0;
    struct ct_fe_dfuncs fs = {0};
    /* a program built without -g may still carry a CU or two of its
     * start-up files: none of its own functions is no information */
    bool have = ct_fe_dwarf_functions(exe, &fs, at_hooks) == 0 && fs.n > 0;
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
            if (at && at_hooks && have) {
                *at = '\0';
                *own += locate_rule(&fs, rule, at + 1, &out);
                *at = '@';
            }
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
            ct_fe_dwarf_functions_free(&fs);
            return NULL;
        }
        if (!made && !made_left)
            ct_fe_error("--args '%s@args': no function of %s with debug "
                        "information has that name", rule, exe);
    }
    /* clang -O0 stores the parameters after the hook's call: say why
     * every value will read <unavailable> */
    if (at_hooks && fs.site_params && !fs.site_placed && *own)
        ct_fe_error("--args: no parameter of %s has a place at the enter "
                    "hook's call in its debug information (clang -O0 stores "
                    "them after it): they show as <unavailable>; a build "
                    "at -O1 or more, or by gcc, or with $(calltrace cflags "
                    "--patchable) keeps them", exe);
    if (made_left)
        ct_fe_error("--args: the arguments of %zu functions of %s are left "
                    "out: the tracer keeps at most %u rules", made_left, exe,
                    CT_ARGS_MAX_RULES);
    define_enums(&out, fs.enums);
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
            struct ct_fe_dfunc *f = &fs.v[i];
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
    if (autos.n) {
        add(&out, "%s", autos.s);
        define_enums(&out, fs.enums);
    }
    free(autos.s);
    free(copy);
    ct_fe_dwarf_functions_free(&fs);
    if (!out.s)
        add(&out, "%s", "");
    return out.s;
}
