/*
 * The program's own functions with debug information, and the items
 * (settings/args_spec.h) of their parameters and return values by their
 * DWARF types (dwarf_funcs.c; libdw).  For calltrace record's --args.
 */
#ifndef CT_FRONTEND_DWARF_FUNCS_H
#define CT_FRONTEND_DWARF_FUNCS_H

#include <stdbool.h>
#include <stddef.h>

struct ct_fe_dfunc {
    char *sym;     /* the name its symbol has: a rule's pattern           */
    char *name;    /* DW_AT_name, which a user's pattern may name instead */
    char *items;   /* "arg1/i32,fparg1/f64", possibly empty                */
    char *ret;     /* "retval/i32" ("retval/i32%rsp+40" at a hook's call),
                      or NULL (void, unknown)                              */
    char *retaddr; /* at a hook's call, where the return address is
                      ("%rsp+40"), or NULL: the caller's stack slots are
                      just above it                                      */
};

struct ct_fe_dfuncs {
    struct ct_fe_dfunc *v;
    size_t n, cap;
    char *enums;         /* the enums items name (`e:color`), defined in
                            the rules' language: `enum color{RED=0};...` */
    size_t site_params;  /* at_hooks: parameters at the hooks' calls     */
    size_t site_placed;  /* ... and those a location covers there         */
};

/* Adds exe's functions to fs; -1 when exe has no DWARF to read.  With
 * at_hooks (a build with -finstrument-functions), the items name where
 * each parameter is at the function's call of the enter hook
 * (dwarf_site.h), and the return value where its return address is then;
 * a function that calls no hook is left out. */
int ct_fe_dwarf_functions(const char *exe, struct ct_fe_dfuncs *fs,
                          bool at_hooks);
void ct_fe_dwarf_functions_free(struct ct_fe_dfuncs *fs);

#endif /* CT_FRONTEND_DWARF_FUNCS_H */
