/*
 * How the x86-64 System V ABI passes a parameter of a struct, union or
 * class type by value, from its DWARF type (dwarf_abi.c; libdw): in
 * integer and vector registers by the class of each eightbyte, in the
 * caller's stack, by an invisible reference (a C++ class that is not
 * trivial for calls), or not at all (an empty one).  calltrace record
 * uses it to tell which registers and stack slots the parameters after
 * such a one take (dwarf_funcs.c).
 */
#ifndef CT_FRONTEND_DWARF_ABI_H
#define CT_FRONTEND_DWARF_ABI_H

#include <elfutils/libdw.h>
#include <stdbool.h>

#include "settings/args_spec.h"

enum ct_fe_pass {
    CT_FE_PASS_REGS,    /* in `ints` integer and `sses` vector registers,
                           if that many are left, else as MEMORY        */
    CT_FE_PASS_MEMORY,  /* copied into `slots` 8-byte stack slots       */
    CT_FE_PASS_REF,     /* a pointer to a copy: one integer argument    */
    CT_FE_PASS_NONE,    /* empty: no register, no slot                  */
    CT_FE_PASS_UNKNOWN, /* a member this code does not classify (a
                           _Float128, a vector type): no guess         */
};

struct ct_fe_aggregate {
    enum ct_fe_pass how;
    int ints, sses;     /* REGS: registers of each kind                   */
    bool sse_first;     /* REGS: its first eightbyte goes in a vector one */
    int slots;          /* stack slots it fills as MEMORY                 */
    bool align16;       /* as MEMORY, its first slot is 16-byte aligned   */
    long size;          /* bytes                                          */
    char name[CT_ARGS_TYPE_NAME_MAX + 1]; /* as uftrace shows it: `C` of
                           C<int>, "" for an anonymous one or a lambda   */
};

/* The type a DIE (a parameter, a function) has, under typedefs and
 * qualifiers; false for void.  *named, when not NULL, gets the name of
 * the nearest typedef on the way ("" when there is none). */
bool ct_fe_dwarf_type(Dwarf_Die *die, Dwarf_Die *out, const char **named);
/* Whether a type (under typedefs) is a struct, union or class. */
bool ct_fe_is_aggregate(Dwarf_Die *type);
/* How a value of aggregate type `type` is passed; typedef_name names it
 * when the type itself has no name (`typedef struct {...} pair_t`). */
void ct_fe_classify_aggregate(Dwarf_Die *type, const char *typedef_name,
                              struct ct_fe_aggregate *a);

#endif /* CT_FRONTEND_DWARF_ABI_H */
