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

#include "frontend/dwarf_abi.h"
#include "frontend/dwarf_funcs.h"
#include "frontend/dwarf_site.h"
#include "frontend/frontend.h"
#include "settings/args_spec.h"

enum kind { K_INT, K_FP, K_AGG, K_STOP };

/* An enumerator's value: DW_FORM_sdata and udata say their sign, the
 * fixed-size forms take the enum's underlying type's. */
static bool const_value(Dwarf_Attribute *at, bool is_signed, Dwarf_Sword *v)
{
    Dwarf_Word u;
    unsigned bytes;
    switch (dwarf_whatform(at)) {
    case DW_FORM_sdata:
        return dwarf_formsdata(at, v) == 0;
    case DW_FORM_data1: bytes = 1; break;
    case DW_FORM_data2: bytes = 2; break;
    case DW_FORM_data4: bytes = 4; break;
    default: bytes = 8;  /* data8, udata */
    }
    if (dwarf_formudata(at, &u) != 0)
        return false;
    unsigned shift = 64 - 8 * bytes;
    *v = is_signed && shift ? (Dwarf_Sword)(u << shift) >> shift
                            : (Dwarf_Sword)u;
    return true;
}

/* An enum's definition in the rules' language (`enum color{RED=0,...}`)
 * added once to fs->enums; false when it cannot be (no name, too many
 * values, a name that is no identifier).  Values are sign-extended from
 * the enum's size, as the tracer reads an item of that width. */
static bool define_enum(struct ct_fe_dfuncs *fs, Dwarf_Die *t,
                        const char *name, int size)
{
    char head[CT_ARGS_TYPE_NAME_MAX + 8];
    if (!name || !name[0] || strlen(name) > CT_ARGS_TYPE_NAME_MAX ||
        strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                     "0123456789_") != strlen(name))
        return false;
    snprintf(head, sizeof head, "enum %s{", name);
    for (const char *at = fs->enums; at && (at = strstr(at, head)); at++)
        if (at == fs->enums || at[-1] == ';')
            return true;  /* defined already: the first definition holds */
    char *def = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&def, &len);
    if (!f)
        exit(CT_FE_FAILED);
    fprintf(f, "%s", head);
    /* the values' signedness is the underlying type's */
    Dwarf_Die under;
    Dwarf_Attribute ea;
    Dwarf_Word enc = DW_ATE_signed;
    if (ct_fe_dwarf_type(t, &under, NULL) &&
        dwarf_attr(&under, DW_AT_encoding, &ea))
        dwarf_formudata(&ea, &enc);
    bool is_signed = enc == DW_ATE_signed || enc == DW_ATE_signed_char;
    Dwarf_Die v;
    int n = 0;
    bool ok = dwarf_child(t, &v) == 0;
    if (ok)
        do {
            Dwarf_Attribute at;
            Dwarf_Sword sv;
            const char *vn = dwarf_diename(&v);
            if (dwarf_tag(&v) != DW_TAG_enumerator)
                continue;
            if (!vn || !dwarf_attr(&v, DW_AT_const_value, &at) ||
                !const_value(&at, is_signed, &sv) || ++n > 256) {
                ok = false;
                break;
            }
            unsigned shift = 64 - 8 * (unsigned)size;
            int64_t x = shift ? (int64_t)((uint64_t)sv << shift) >> shift : sv;
            fprintf(f, "%s%s=%lld", n > 1 ? "," : "", vn, (long long)x);
        } while (dwarf_siblingof(&v, &v) == 0);
    fprintf(f, "};");
    fclose(f);
    if (ok && n) {
        size_t have = fs->enums ? strlen(fs->enums) : 0;
        fs->enums = realloc(fs->enums, have + len + 1);
        if (!fs->enums)
            exit(CT_FE_FAILED);
        memcpy(fs->enums + have, def, len + 1);
    }
    free(def);
    return ok && n;
}

/* The item's format for a type, and whether it is integer or floating
 * class, or a struct, union or class (dwarf_abi.h says where it goes);
 * K_STOP when its place in the registers is not known here.  An enum's
 * definition goes into fs. */
static enum kind classify(Dwarf_Die *t, const char *tdname,
                          struct ct_fe_dfuncs *fs, char *fmt, size_t cap)
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
        if (ct_fe_dwarf_type(t, &to, NULL) &&
            dwarf_tag(&to) == DW_TAG_base_type &&
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
    case DW_TAG_enumeration_type: {
        /* by the names of its values, as uftrace shows an enum; else
         * as a signed integer */
        const char *name = dwarf_diename(t) ? dwarf_diename(t) : tdname;
        if (size != 1 && size != 2 && size != 4 && size != 8)
            return K_STOP;
        if (!define_enum(fs, t, name, size))
            snprintf(fmt, cap, "i%d", size * 8);
        else if (size == 4)
            snprintf(fmt, cap, "e:%s", name);
        else
            snprintf(fmt, cap, "e%d:%s", size * 8, name);
        return K_INT;
    }
    case DW_TAG_structure_type:
    case DW_TAG_class_type:
    case DW_TAG_union_type:
        return K_AGG;
    default:
        return K_STOP;  /* a long double, a vector */
    }
}

/* The hook's call in a build with the hooks (dwarf_site.c): where its
 * parameters are read, instead of the ABI's registers at the entry. */
struct at_site {
    struct ct_fe_site *site;
    Dwarf_Addr pc, at;
    struct ct_fe_dfuncs *fs;   /* counts the parameters and their places */
};

/* A struct's item format, `tSIZE:NAME` (size 0 when it is empty and the
 * ABI passes nothing of it). */
static void struct_format(const struct ct_fe_aggregate *a, char *out,
                          size_t cap)
{
    snprintf(out, cap, "t%ld%s%s", a->how == CT_FE_PASS_NONE ? 0l : a->size,
             a->name[0] ? ":" : "", a->name);
}

/* Where the ABI has put a function's parameters so far. */
struct abi_pos {
    int ints, fps;      /* argument registers taken, of each kind        */
    int slots;          /* 8-byte slots of the caller's stack taken      */
    int empties;        /* empty structs named (arg32, arg31, ...)       */
};

/* The highest N of argN and fpargN (settings/args_spec.c). */
#define ARG_NAME_MAX 32

/* A long double: the x87 class, in memory, 16-byte aligned. */
static bool long_double(Dwarf_Die *t)
{
    const char *n = dwarf_diename(t);
    return dwarf_tag(t) == DW_TAG_base_type && dwarf_bytesize(t) == 16 &&
           n && !strcmp(n, "long double");
}

/* The next stack slot for a value of `slots` slots: the number of the
 * first (from 1, as %stack+N). */
static int take_slots(struct abi_pos *pos, int slots, bool align16)
{
    if (align16 && (pos->slots & 1))
        pos->slots++;
    int first = pos->slots + 1;
    pos->slots += slots;
    return first;
}

/* An item for one parameter of type t (kind k) into out: its ABI name
 * (argN for the Nth integer register, or the (N-6)th stack slot; fpargN
 * for the Nth vector register, or the (N-8)th slot), its format, and
 * where the entry reads it when that is not the name's place (`%stack+N`).
 * `loc`, at a hook's call, is where the DWARF says it is, and is used
 * instead.  False when its place cannot be told: the items stop. */
static bool abi_item(Dwarf_Die *t, enum kind k, const char *fmt,
                     const char *tdname, const char *loc,
                     struct abi_pos *pos, char *out, size_t cap)
{
    const char *what = k == K_FP ? "fparg" : "arg";
    int n;
    char place[24] = "";
    char tfmt[48];
    struct ct_fe_aggregate a;
    if (k == K_AGG) {
        ct_fe_classify_aggregate(t, tdname, &a);
        if (a.how == CT_FE_PASS_UNKNOWN && !loc)
            return false;
        struct_format(&a, tfmt, sizeof tfmt);
        fmt = tfmt;
        loc = NULL;  /* nothing of it is read */
        if (a.how == CT_FE_PASS_NONE) {
            n = ARG_NAME_MAX - pos->empties++;
            if (n <= 6 + pos->slots || n <= pos->ints)
                return false;
        } else if (a.how == CT_FE_PASS_REF ||
                   (a.how == CT_FE_PASS_REGS && a.ints == 1 && !a.sses)) {
            n = pos->ints < 6 ? ++pos->ints : 6 + take_slots(pos, 1, false);
        } else if (a.how == CT_FE_PASS_REGS && pos->ints + a.ints <= 6 &&
                   pos->fps + a.sses <= 8) {
            what = a.sse_first ? "fparg" : "arg";
            n = a.sse_first ? pos->fps + 1 : pos->ints + 1;
            pos->ints += a.ints;
            pos->fps += a.sses;
        } else {  /* memory, or no registers left for all of it */
            n = 6 + take_slots(pos, a.slots, a.align16);
        }
    } else if (k == K_STOP) {
        if (!long_double(t) && !loc)
            return false;
        n = long_double(t) ? 6 + take_slots(pos, 2, true) : ++pos->ints;
        fmt = NULL;
        loc = "%none";  /* no format shows an x87 value */
    } else if (k == K_FP) {
        if (pos->fps < 8) {
            n = ++pos->fps;
        } else {
            int slot = take_slots(pos, 1, false);
            n = 8 + slot;
            snprintf(place, sizeof place, "%%stack+%d", slot);
        }
    } else {
        n = pos->ints < 6 ? ++pos->ints : 6 + take_slots(pos, 1, false);
    }
    if (n > ARG_NAME_MAX || 6 + pos->slots >= ARG_NAME_MAX - pos->empties + 1)
        return false;
    int w = snprintf(out, cap, "%s%d%s%s%s", what, n, fmt ? "/" : "",
                     fmt ? fmt : "", loc ? loc : place);
    return w > 0 && (size_t)w < cap;
}

/* The items of a function's parameters, in the ABI's order, into items
 * (room for CT_ARGS_MAX_ITEMS of them), after a hidden return pointer
 * when hidden_ret.  At a hook's call each parameter has a place of its
 * own, so one that cannot be read there is shown <unavailable> and the
 * next ones are still kept; at the entry, the items stop at the first
 * parameter whose place cannot be told.  They keep the ABI's names
 * (argN, fpargN), which a user's rule uses (args_dwarf.c).  A struct by
 * value is shown by its type's name (`pair{...}`), as uftrace shows it,
 * nothing of it read. */
static void params(struct ct_fe_dfuncs *fs, Dwarf_Die *fn, char *items,
                   size_t cap, const struct at_site *as, bool hidden_ret)
{
    Dwarf_Die child;
    struct abi_pos pos = {hidden_ret, 0, 0, 0};
    int shown = 0;
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
        const char *tdname = "";
        char fmt[48] = "", loc[48] = "", item[128];
        if (shown == CT_ARGS_MAX_ITEMS)
            return;
        bool typed = ct_fe_dwarf_type(&child, &t, &tdname);
        enum kind k = typed ? classify(&t, tdname, fs, fmt, sizeof fmt)
                            : K_STOP;
        if (!typed && !as)
            return;
        if (as && k == K_STOP)
            snprintf(loc, sizeof loc, "%%none");
        else if (as && k != K_AGG)
            ct_fe_site_loc(as->site, fn, &child, as->pc, k == K_FP, loc,
                           sizeof loc);
        if (as && k != K_AGG) {
            as->fs->site_params++;
            as->fs->site_placed += strcmp(loc, "%none") != 0;
        }
        if (!abi_item(&t, k, k == K_STOP ? NULL : fmt, tdname,
                      as ? loc : NULL, &pos, item, sizeof item))
            return;
        int w = snprintf(items + n, cap - n, "%s%s", n ? "," : "", item);
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
    char items[CT_ARGS_MAX_ITEMS * 128];
    char *ret = NULL;
    Dwarf_Die rt;
    const char *tdname = "";
    char fmt[48] = "";
    items[0] = '\0';
    struct at_site as = {site, 0, 0, fs};
    char slot[48] = "";
    /* the return value's item, and whether it comes back through a
     * pointer the caller passes first (%rdi): a struct in memory */
    bool has_rt = ct_fe_dwarf_type(fn, &rt, &tdname);
    enum kind rk = has_rt ? classify(&rt, tdname, fs, fmt, sizeof fmt)
                          : K_STOP;
    bool hidden_ret = false, keep_ret = has_rt && rk != K_STOP;
    if (rk == K_AGG) {
        struct ct_fe_aggregate a;
        ct_fe_classify_aggregate(&rt, tdname, &a);
        hidden_ret = a.how == CT_FE_PASS_MEMORY || a.how == CT_FE_PASS_REF;
        keep_ret = a.how != CT_FE_PASS_UNKNOWN;
        struct_format(&a, fmt, sizeof fmt);
        if (a.how == CT_FE_PASS_UNKNOWN && !site)
            return;  /* whether %rdi is an argument is not known */
    }
    if (site) {
        /* no call of the hook: left out of the instrumentation */
        if (!ct_fe_site_pc(site, fn, &as.pc, &as.at))
            return;
        /* the return value is caught where the function returns to
         * (preload/args/site.c) */
        params(fs, fn, items, sizeof items, &as, hidden_ret);
        size_t n = strlen(items);
        snprintf(items + n, sizeof items - n, "%sat+%llu", n ? "," : "",
                 (unsigned long long)as.at);
        if (!ct_fe_site_return_slot(site, as.pc, slot, sizeof slot))
            keep_ret = false, slot[0] = '\0';
    } else {
        params(fs, fn, items, sizeof items, NULL, hidden_ret);
    }
    if (keep_ret && asprintf(&ret, "retval/%s%s", fmt, slot) < 0)
        exit(CT_FE_FAILED);
    if (fs->n == fs->cap) {
        fs->cap = fs->cap ? 2 * fs->cap : 64;
        fs->v = realloc(fs->v, fs->cap * sizeof *fs->v);
        if (!fs->v)
            exit(CT_FE_FAILED);
    }
    fs->v[fs->n++] = (struct ct_fe_dfunc){dup_or_null(sym), dup_or_null(name),
                                          dup_or_null(items), ret,
                                          dup_or_null(slot[0] ? slot : NULL)};
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
        free(fs->v[i].retaddr);
    }
    free(fs->enums);
    free(fs->v);
}
