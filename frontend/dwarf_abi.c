/*
 * The x86-64 System V ABI's classification of a struct, union or class
 * passed by value (dwarf_abi.h), read from DWARF with libdw:
 *
 * - a C++ class that is not trivial for calls (DW_AT_calling_convention
 *   says so where the compiler writes it, clang; else a destructor, a
 *   copy or move constructor of the user's, a virtual function or base,
 *   or such a member or base, as gcc decides) goes by an invisible
 *   reference, one integer argument;
 * - one of more than 16 bytes, or with a member not at its natural
 *   alignment (packed), or with a long double, goes in memory;
 * - else each of its one or two eightbytes is INTEGER if any member in it
 *   is an integer or a pointer, SSE if all are float or double, and it
 *   goes in as many registers of each kind, if that many are left (the
 *   caller decides; else it goes in memory);
 * - an empty one (no member: size 0 in C, 1 in C++) takes nothing.
 *
 * Anything else (a _Float128, a vector type) is UNKNOWN: the caller
 * stops there rather than guess where the next parameters are.
 */
#include <dwarf.h>
#include <string.h>

#include "frontend/dwarf_abi.h"

/* The type under typedefs and qualifiers, and the nearest typedef's
 * name into *named when it is "" and not NULL. */
static bool strip(Dwarf_Die *die, Dwarf_Die *out, const char **named)
{
    Dwarf_Attribute at;
    Dwarf_Die cur = *die;
    for (int hops = 0; hops < 64; hops++) {
        int tag = dwarf_tag(&cur);
        if (tag == DW_TAG_typedef && named && !**named && dwarf_diename(&cur))
            *named = dwarf_diename(&cur);
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

bool ct_fe_dwarf_type(Dwarf_Die *die, Dwarf_Die *out, const char **named)
{
    Dwarf_Attribute at;
    Dwarf_Die t;
    if (named)
        *named = "";
    if (!dwarf_attr_integrate(die, DW_AT_type, &at) ||
        !dwarf_formref_die(&at, &t))
        return false;
    return strip(&t, out, named);
}

bool ct_fe_is_aggregate(Dwarf_Die *type)
{
    int tag = dwarf_tag(type);
    return tag == DW_TAG_structure_type || tag == DW_TAG_class_type ||
           tag == DW_TAG_union_type;
}

/* An eightbyte's class; MEMORY and UNKNOWN decide for the whole. */
enum cls { C_NONE, C_INT, C_SSE, C_MEM, C_UNKNOWN };

static enum cls merge(enum cls a, enum cls b)
{
    if (a == b || b == C_NONE)
        return a;
    if (a == C_NONE)
        return b;
    if (a == C_UNKNOWN || b == C_UNKNOWN)
        return C_UNKNOWN;
    if (a == C_MEM || b == C_MEM)
        return C_MEM;
    return C_INT;  /* INT with SSE */
}

struct walk {
    enum cls eb[2];     /* the eightbytes, while size <= 16            */
    enum cls whole;     /* MEMORY or UNKNOWN for all of it, else NONE  */
    bool align16;
    int budget;         /* members looked at, at most                 */
};

/* A scalar of size bytes at offset off, of class c. */
static void scalar(struct walk *w, Dwarf_Word off, Dwarf_Word size,
                   Dwarf_Word align, enum cls c)
{
    if (size == 0)
        return;
    if (align == 16)
        w->align16 = true;
    if (c == C_MEM || c == C_UNKNOWN || (align && off % align)) {
        /* a long double; a member a packed struct put off its alignment */
        w->whole = merge(w->whole, c == C_UNKNOWN ? C_UNKNOWN : C_MEM);
        return;
    }
    for (Dwarf_Word b = off / 8; b <= (off + size - 1) / 8; b++)
        if (b < 2)
            w->eb[b] = merge(w->eb[b], c);
}

static void place(struct walk *w, Dwarf_Die *type, Dwarf_Word off, int depth);

/* A member's offset in its struct (0 in a union); false for one with
 * none that is not a union's (a static member). */
static bool member_offset(Dwarf_Die *m, bool in_union, Dwarf_Word *off)
{
    Dwarf_Attribute at;
    *off = 0;
    if (dwarf_attr(m, DW_AT_data_member_location, &at))
        return dwarf_formudata(&at, off) == 0;
    if (dwarf_attr(m, DW_AT_data_bit_offset, &at) &&
        dwarf_formudata(&at, off) == 0) {
        *off /= 8;
        return true;
    }
    return in_union || dwarf_hasattr(m, DW_AT_bit_size);
}

static void members(struct walk *w, Dwarf_Die *agg, Dwarf_Word off, int depth)
{
    Dwarf_Die m;
    bool in_union = dwarf_tag(agg) == DW_TAG_union_type;
    if (dwarf_child(agg, &m) != 0)
        return;
    do {
        int tag = dwarf_tag(&m);
        Dwarf_Word at;
        Dwarf_Die t;
        if ((tag != DW_TAG_member && tag != DW_TAG_inheritance) ||
            dwarf_hasattr(&m, DW_AT_external) ||
            dwarf_hasattr(&m, DW_AT_declaration))
            continue;  /* a static member lives elsewhere */
        if (--w->budget < 0 || !member_offset(&m, in_union, &at) ||
            !ct_fe_dwarf_type(&m, &t, NULL)) {
            w->whole = merge(w->whole, C_UNKNOWN);
            return;
        }
        if (dwarf_hasattr(&m, DW_AT_bit_size)) {
            Dwarf_Attribute a;
            Dwarf_Word bits = 0;
            if (dwarf_attr(&m, DW_AT_bit_size, &a))
                dwarf_formudata(&a, &bits);
            scalar(w, off + at, (bits + 7) / 8, 0, C_INT);
            continue;
        }
        place(w, &t, off + at, depth + 1);
    } while (dwarf_siblingof(&m, &m) == 0);
}

/* The elements of an array type at off. */
static void elements(struct walk *w, Dwarf_Die *arr, Dwarf_Word off, int depth)
{
    Dwarf_Die elem;
    Dwarf_Word size, esize;
    if (!ct_fe_dwarf_type(arr, &elem, NULL) ||
        dwarf_aggregate_size(arr, &size) != 0 ||
        dwarf_aggregate_size(&elem, &esize) != 0 || esize == 0) {
        w->whole = merge(w->whole, C_UNKNOWN);
        return;
    }
    /* within 16 bytes the eightbytes are what counts; past them the
     * whole is in memory anyway */
    for (Dwarf_Word k = 0; k * esize < size && k * esize < 16; k++)
        place(w, &elem, off + k * esize, depth + 1);
}

static void place(struct walk *w, Dwarf_Die *type, Dwarf_Word off, int depth)
{
    Dwarf_Attribute at;
    Dwarf_Word enc = 0;
    Dwarf_Die t;
    if (depth > 16 || !strip(type, &t, NULL)) {
        w->whole = merge(w->whole, C_UNKNOWN);
        return;
    }
    int size = dwarf_bytesize(&t);
    switch (dwarf_tag(&t)) {
    case DW_TAG_base_type:
        if (dwarf_attr(&t, DW_AT_encoding, &at))
            dwarf_formudata(&at, &enc);
        if (enc == DW_ATE_float && (size == 4 || size == 8))
            scalar(w, off, (Dwarf_Word)size, (Dwarf_Word)size, C_SSE);
        else if (enc == DW_ATE_complex_float && (size == 8 || size == 16))
            scalar(w, off, (Dwarf_Word)size, (Dwarf_Word)size / 2, C_SSE);
        else if (enc == DW_ATE_float && size == 16 && dwarf_diename(&t) &&
                 !strcmp(dwarf_diename(&t), "long double"))
            scalar(w, off, 16, 16, C_MEM);  /* the x87 class */
        else if (enc != DW_ATE_float && enc != DW_ATE_complex_float &&
                 (size == 1 || size == 2 || size == 4 || size == 8 ||
                  size == 16))
            scalar(w, off, (Dwarf_Word)size, (Dwarf_Word)size, C_INT);
        else
            w->whole = merge(w->whole, C_UNKNOWN);
        return;
    case DW_TAG_pointer_type:
    case DW_TAG_reference_type:
    case DW_TAG_rvalue_reference_type:
    case DW_TAG_enumeration_type:
    case DW_TAG_ptr_to_member_type:
        if (size <= 0)
            size = 8;
        scalar(w, off, (Dwarf_Word)size, size > 8 ? 8 : (Dwarf_Word)size,
               C_INT);
        return;
    case DW_TAG_structure_type:
    case DW_TAG_class_type:
    case DW_TAG_union_type:
        members(w, &t, off, depth);
        return;
    case DW_TAG_array_type:
        elements(w, &t, off, depth);
        return;
    default:
        w->whole = merge(w->whole, C_UNKNOWN);
    }
}

/* Whether a C++ class is passed by an invisible reference: not trivially
 * copyable or destructible for calls (the Itanium C++ ABI). */
static bool by_reference(Dwarf_Die *cls, int depth)
{
    Dwarf_Attribute at;
    Dwarf_Word cc;
    Dwarf_Die m;
    if (dwarf_attr(cls, DW_AT_calling_convention, &at) &&
        dwarf_formudata(&at, &cc) == 0)
        return cc == DW_CC_pass_by_reference;
    if (depth > 16 || dwarf_child(cls, &m) != 0)
        return false;
    const char *cname = dwarf_diename(cls);
    do {
        int tag = dwarf_tag(&m);
        const char *name = dwarf_diename(&m);
        Dwarf_Die t;
        if (dwarf_hasattr(&m, DW_AT_virtuality))
            return true;  /* a virtual function or base */
        if (tag == DW_TAG_subprogram && name && name[0] == '~')
            return true;  /* declared only where it is not trivial */
        if (tag == DW_TAG_subprogram && cname && name && !strcmp(name, cname) &&
            !dwarf_hasattr(&m, DW_AT_artificial) &&
            !dwarf_hasattr(&m, DW_AT_deleted)) {
            /* a constructor of the user's taking the class by reference:
             * a copy or move constructor */
            Dwarf_Die p, pt, to;
            int nparams = 0;
            bool self_ref = false;
            if (dwarf_child(&m, &p) == 0)
                do {
                    if (dwarf_tag(&p) != DW_TAG_formal_parameter)
                        continue;
                    nparams++;
                    if (nparams == 2 && ct_fe_dwarf_type(&p, &pt, NULL) &&
                        (dwarf_tag(&pt) == DW_TAG_reference_type ||
                         dwarf_tag(&pt) == DW_TAG_rvalue_reference_type) &&
                        ct_fe_dwarf_type(&pt, &to, NULL) &&
                        dwarf_dieoffset(&to) == dwarf_dieoffset(cls))
                        self_ref = true;
                } while (dwarf_siblingof(&p, &p) == 0);
            if (nparams == 2 && self_ref)
                return true;
        }
        if ((tag == DW_TAG_member || tag == DW_TAG_inheritance) &&
            !dwarf_hasattr(&m, DW_AT_external) &&
            ct_fe_dwarf_type(&m, &t, NULL) && ct_fe_is_aggregate(&t) &&
            by_reference(&t, depth + 1))
            return true;
    } while (dwarf_siblingof(&m, &m) == 0);
    return false;
}

/* The name uftrace shows: up to the template's or the lambda's
 * parameters (`C` of `C<int>`), none for a lambda. */
static void short_name(const char *name, char *out)
{
    out[0] = '\0';
    if (!name || !name[0] || name[0] == '<')
        return;
    size_t n = strcspn(name + 1, "< ({[") + 1;
    if (n > CT_ARGS_TYPE_NAME_MAX)
        n = CT_ARGS_TYPE_NAME_MAX;
    /* what a rule's item cannot hold */
    for (size_t i = 0; i < n; i++)
        out[i] = strchr(",;%@/", name[i]) ? '_' : name[i];
    out[n] = '\0';
}

void ct_fe_classify_aggregate(Dwarf_Die *type, const char *typedef_name,
                              struct ct_fe_aggregate *a)
{
    Dwarf_Word size;
    memset(a, 0, sizeof *a);
    a->size = dwarf_aggregate_size(type, &size) == 0 ? (long)size : -1;
    const char *name = dwarf_diename(type);
    short_name(name ? name : typedef_name, a->name);
    if (a->size < 0) {
        a->how = CT_FE_PASS_UNKNOWN;  /* a declaration only */
        return;
    }
    if (dwarf_tag(type) != DW_TAG_union_type && by_reference(type, 0)) {
        a->how = CT_FE_PASS_REF;
        return;
    }
    struct walk w = {{C_NONE, C_NONE}, C_NONE, false, 256};
    members(&w, type, 0, 0);
    a->align16 = w.align16;
    a->slots = (int)((a->size + 7) / 8);
    if (a->size > 16) {  /* whatever its members */
        a->how = CT_FE_PASS_MEMORY;
        return;
    }
    if (w.whole == C_UNKNOWN) {
        a->how = CT_FE_PASS_UNKNOWN;
        return;
    }
    if (w.whole == C_MEM || w.eb[0] == C_MEM ||
        w.eb[1] == C_MEM) {
        a->how = CT_FE_PASS_MEMORY;
        return;
    }
    if (w.eb[0] == C_NONE && w.eb[1] == C_NONE) {
        a->how = CT_FE_PASS_NONE;  /* no member: nothing is passed */
        return;
    }
    a->how = CT_FE_PASS_REGS;
    for (int b = 0; b < 2 && 8 * b < a->size; b++) {
        a->ints += w.eb[b] == C_INT;
        a->sses += w.eb[b] == C_SSE;
    }
    a->sse_first = w.eb[0] == C_SSE;
}
