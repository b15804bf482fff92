/*
 * The program's own functions and the items of their parameters and
 * return values, read from its DWARF with libdw for calltrace record's
 * `--args FUNC@args` and `--auto-args` (args_dwarf.c makes the rules).
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
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "frontend/dwarf_funcs.h"
#include "frontend/dwarf_site.h"
#include "frontend/frontend.h"
#include "settings/args_spec.h"

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

/* The hook's call in a build with the hooks (dwarf_site.c): where its
 * parameters are read, instead of the ABI's registers at the entry. */
struct at_site {
    struct ct_fe_site *site;
    Dwarf_Addr pc, at;
    struct ct_fe_dfuncs *fs;   /* counts the parameters and their places */
};

/* The items of a function's parameters, in the ABI's order, into items
 * (room for CT_ARGS_MAX_ITEMS of them).  At a hook's call each parameter
 * has a place of its own, so one that cannot be read there is shown
 * <unavailable> and the next ones are still kept.  They keep the ABI's
 * names (argN, fpargN), which a user's rule uses (args_dwarf.c); a
 * parameter the ABI passes in no register of its own (a struct by value)
 * takes the next argN, a name for merging only. */
static void params(Dwarf_Die *fn, char *items, size_t cap,
                   const struct at_site *as)
{
    Dwarf_Die child;
    int ints = 0, fps = 0, shown = 0;
    size_t n = 0;
    items[0] = '\0';
    if (dwarf_child(fn, &child) != 0)
        return;
    do {
        int tag = dwarf_tag(&child);
        if (tag == DW_TAG_unspecified_parameters)
            return;
        if (tag != DW_TAG_formal_parameter)
            continue;
        Dwarf_Die t;
        char fmt[16], loc[48] = "";
        if (shown == CT_ARGS_MAX_ITEMS)
            return;
        enum kind k = type_of(&child, &t) ? classify(&t, fmt, sizeof fmt)
                                          : K_STOP;
        if (k == K_STOP && !as)
            return;
        if (k == K_FP && fps == 8 && !as)
            return;  /* past %xmm7: on the stack, among the integers */
        if (as && k == K_STOP)
            snprintf(loc, sizeof loc, "%%none");
        else if (as)
            ct_fe_site_loc(as->site, fn, &child, as->pc, k == K_FP, loc,
                           sizeof loc);
        if (as) {
            as->fs->site_params++;
            as->fs->site_placed += strcmp(loc, "%none") != 0;
        }
        int index = k == K_FP ? ++fps : ++ints;
        int w = k == K_STOP
                    ? snprintf(items + n, cap - n, "%sarg%d%s", n ? "," : "",
                               index, loc)
                    : snprintf(items + n, cap - n, "%s%s%d/%s%s",
                               n ? "," : "", k == K_FP ? "fparg" : "arg",
                               index, fmt, loc);
        if (w < 0 || (size_t)w >= cap - n)
            return;
        n += (size_t)w;
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

static void add_function(struct ct_fe_dfuncs *fs, Dwarf_Die *fn,
                         struct ct_fe_site *site)
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
    char items[CT_ARGS_MAX_ITEMS * 48];
    char *ret = NULL;
    Dwarf_Die rt;
    char fmt[16];
    items[0] = '\0';
    struct at_site as = {site, 0, 0, fs};
    char slot[48];
    if (site) {
        /* no call of the hook: left out of the instrumentation */
        if (!ct_fe_site_pc(site, fn, &as.pc, &as.at))
            return;
        /* a struct returned through a hidden pointer moves nothing that
         * the locations name; the return value is caught where the
         * function returns to (preload/args/site.c) */
        params(fn, items, sizeof items, &as);
        size_t n = strlen(items);
        snprintf(items + n, sizeof items - n, "%sat+%llu", n ? "," : "",
                 (unsigned long long)as.at);
        if (type_of(fn, &rt) && classify(&rt, fmt, sizeof fmt) != K_STOP &&
            ct_fe_site_return_slot(site, as.pc, slot, sizeof slot) &&
            asprintf(&ret, "retval/%s%s", fmt, slot) < 0)
            exit(CT_FE_FAILED);
    } else if (!type_of(fn, &rt)) {
        params(fn, items, sizeof items, NULL);
    } else if (classify(&rt, fmt, sizeof fmt) != K_STOP) {
        params(fn, items, sizeof items, NULL);
        if (asprintf(&ret, "retval/%s", fmt) < 0)
            exit(CT_FE_FAILED);
    }
    if (fs->n == fs->cap) {
        fs->cap = fs->cap ? 2 * fs->cap : 64;
        fs->v = realloc(fs->v, fs->cap * sizeof *fs->v);
        if (!fs->v)
            exit(CT_FE_FAILED);
    }
    fs->v[fs->n++] = (struct ct_fe_dfunc){dup_or_null(sym), dup_or_null(name),
                                          dup_or_null(items), ret};
}

/* The functions under die: a CU's, a namespace's, a class's. */
static void walk(struct ct_fe_dfuncs *fs, Dwarf_Die *die, int level,
                 struct ct_fe_site *site)
{
    Dwarf_Die child;
    if (level > 32 || dwarf_child(die, &child) != 0)
        return;
    do {
        switch (dwarf_tag(&child)) {
        case DW_TAG_subprogram:
            if (defined(&child))
                add_function(fs, &child, site);
            break;
        case DW_TAG_namespace:
        case DW_TAG_class_type:
        case DW_TAG_structure_type:
            walk(fs, &child, level + 1, site);
            break;
        default:
            break;
        }
    } while (dwarf_siblingof(&child, &child) == 0);
}

int ct_fe_dwarf_functions(const char *exe, struct ct_fe_dfuncs *fs,
                          bool at_hooks)
{
    int fd = open(exe, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    Dwarf *dw = dwarf_begin(fd, DWARF_C_READ);
    if (!dw) {
        close(fd);
        return -1;
    }
    struct ct_fe_site *site = at_hooks ? ct_fe_site_open(dw) : NULL;
    Dwarf_Off off = 0, next;
    size_t hsize;
    while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
        Dwarf_Die cu;
        if (dwarf_offdie(dw, off + hsize, &cu) && (site || !at_hooks))
            walk(fs, &cu, 0, site);
        off = next;
    }
    if (site)
        ct_fe_site_close(site);
    dwarf_end(dw);
    close(fd);
    return 0;
}

void ct_fe_dwarf_functions_free(struct ct_fe_dfuncs *fs)
{
    for (size_t i = 0; i < fs->n; i++) {
        free(fs->v[i].sym);
        free(fs->v[i].name);
        free(fs->v[i].items);
        free(fs->v[i].ret);
    }
    free(fs->v);
}
