/*
 * Where a function's parameters are when it calls the enter hook of
 * -finstrument-functions (dwarf_site.c; libdw): for calltrace record's
 * --args on a build with the hooks, whose rules name each parameter's
 * register or stack slot at that call (settings/args_spec.h, `%loc`).
 */
#ifndef CT_FRONTEND_DWARF_SITE_H
#define CT_FRONTEND_DWARF_SITE_H

#include <elfutils/libdw.h>
#include <stdbool.h>
#include <stddef.h>

struct ct_fe_site;

/* The hook's call targets in dw's file and its call frame information;
 * NULL when the file calls no enter hook. */
struct ct_fe_site *ct_fe_site_open(Dwarf *dw);
void ct_fe_site_close(struct ct_fe_site *s);
/* The address of fn's call of the enter hook, and at: how far into the
 * function the call returns (a rule's `at+N`: a copy of fn inlined
 * elsewhere calls the hook from another place, where these locations do
 * not hold); false when it has none (a function left out of the
 * instrumentation). */
bool ct_fe_site_pc(struct ct_fe_site *s, Dwarf_Die *fn, Dwarf_Addr *pc,
                   Dwarf_Addr *at);
/* Where param (of fn) is at pc, as an item's location: "%rbx",
 * "%rbp-20", "%xmm0" (fp: a float), or "%none" when no location says. */
void ct_fe_site_loc(struct ct_fe_site *s, Dwarf_Die *fn, Dwarf_Die *param,
                    Dwarf_Addr pc, bool fp, char *out, size_t cap);

/* Where the function's return address is at pc, as a retval's place
 * ("%rsp+40": its call frame address less 8, from the CFI); false when
 * the CFI does not say so simply. */
bool ct_fe_site_return_slot(struct ct_fe_site *s, Dwarf_Addr pc, char *out,
                            size_t cap);

#endif /* CT_FRONTEND_DWARF_SITE_H */
