/*
 * CALLTRACE_ARGS' common case: a call and its ARGS in one pass of the
 * hooks' fast path, its ENTRY and its values under one test of the
 * thread's gate (ct_enter_with), for a rule of at most PLAN_ITEMS
 * integers and floating-point values, no string, each read from the
 * registers
 * of the call's entry (a library call, a patched entry) or, at a hook's
 * call, from a register or the stack in use.  The rule's items are made
 * into a plan when a function is first given the rule, so that a call
 * reads nothing of the rule itself.  Anything the plan does not cover (a
 * place outside the stack window, the fast path shut by a filter, a full
 * block, the first call of a thread) is recorded by the hook and given
 * its ARGS by args.c's general path, which writes the same values.
 */
#include "preload/args/args.h"
#include "preload/args/encode.h"
#include "preload/args/plan.h"
#include "preload/tracer.h"

/* Values a plan keeps at most: 11 bytes each at most (an integer's tag
 * and varint; a double's tag and 8 bytes), so that the payload's length
 * fits one byte. */
#define PLAN_ITEMS 8
/* Their ARGS record: head, kind, length, values. */
#define PLAN_BYTES (3 + 11 * PLAN_ITEMS)
_Static_assert(PLAN_BYTES <= CT_ENTER_WITH_MAX, "a plan's record fits");

struct plan_item {
    uint8_t reg;    /* REG, MEM: DWARF number, below 16; ABI: argN's N-1,
                       or fpargN's, with fp; a site's %xmmN: N, with fp
                       and not mem                                      */
    uint8_t mem;    /* MEM: the value is at gpr[reg] + off             */
    uint8_t fmt;    /* enum ct_arg_fmt, an integer's                    */
    uint8_t width;  /* the item's: 1, 2, 4 or 8, or 0 (8 read, as is)   */
    int32_t off;
    uint8_t fp;     /* a floating-point value's bytes (4: a float, 8),
                       kept as a double; 0: an integer                  */
};

enum { PLAN_ENTRY = 1, PLAN_SITE = 2 };  /* the registers it reads */

struct plan {
    uint8_t kind;   /* 0: none; written last, with release             */
    uint8_t n;
    uint8_t has_at; /* SITE: the rule's `at+N` (encode.h, at_holds)   */
    uint8_t returns;/* SITE: the return value is kept: never one pass  */
    uint32_t at;
    struct plan_item items[PLAN_ITEMS];
};

/* By rule id (1 .. CT_ARGS_MAX_RULES, then the merged sets): made under
 * args.c's lock before the id is handed out, read without it. */
static struct plan plans[CT_ARGS_MAX_RULES + CT_ARGS_MAX_MERGED + 1];

static unsigned plan_kind(const struct ct_arg_item *it)
{
    /* a struct in vector registers is a value of the floating kind too */
    if (it->fmt == CT_FMT_STR || it->fmt == CT_FMT_STRUCT ||
        it->fmt == CT_FMT_ENUM)
        return 0;
    if (it->src == CT_ARG_FP) {
        if (it->loc == CT_LOC_ABI)
            return it->index - 1u < 8 ? PLAN_ENTRY : 0;
        if (it->loc == CT_LOC_REG)
            return it->reg - (unsigned)CT_REG_XMM0 < 8 ? PLAN_SITE : 0;
        return it->loc == CT_LOC_MEM && it->reg < 16 ? PLAN_SITE : 0;
    }
    if (it->src != CT_ARG_INT)
        return 0;
    if (it->loc == CT_LOC_ABI && it->index - 1u < 6)
        return PLAN_ENTRY;
    if ((it->loc == CT_LOC_REG || it->loc == CT_LOC_MEM) && it->reg < 16)
        return PLAN_SITE;
    return 0;
}

/* Item it of kind k as a plan's item. */
static struct plan_item plan_item(const struct ct_arg_item *it, unsigned k)
{
    bool fp = it->src == CT_ARG_FP, mem = it->loc == CT_LOC_MEM;
    unsigned reg = k == PLAN_ENTRY ? it->index - 1u
                   : fp && !mem    ? it->reg - (unsigned)CT_REG_XMM0
                                   : it->reg;
    return (struct plan_item){
        .reg = (uint8_t)reg, .mem = mem, .fmt = it->fmt,
        .width = it->width, .off = mem ? it->off : 0,
        .fp = fp ? (uint8_t)fp_bytes(it) : 0};
}

void ct_args_plan_make(uint32_t id, const struct ct_args_rule *r,
                       bool keeps_return)
{
    struct plan *pl = &plans[id];
    unsigned kind = 0;
    if (pl->kind || !r->nitems || r->nitems > PLAN_ITEMS || (r->strings & 1))
        return;
    for (unsigned i = 0; i < r->nitems; i++) {
        const struct ct_arg_item *it = &r->items[i];
        unsigned k = plan_kind(it);
        if (!k || (kind && k != kind))
            return;
        kind = k;
        pl->items[i] = plan_item(it, k);
    }
    pl->n = r->nitems;
    pl->has_at = r->has_at;
    pl->at = r->at;
    pl->returns = keeps_return;
    __atomic_store_n(&pl->kind, (uint8_t)kind, __ATOMIC_RELEASE);
}

/* Item it's value, from the entry's registers or (at_site) the site's;
 * -1 when it is in memory outside the stack window. */
static inline __attribute__((always_inline)) int
item_value(const struct plan_item *it, const struct ct_arg_regs *g,
           bool at_site, uint64_t *v)
{
    if (!at_site) {
        if (it->fp)
            memcpy(v, g->xmm + 16 * it->reg, 8);
        else
            *v = g->ints[g->step * it->reg];
        return 0;
    }
    if (it->fp && !it->mem) {
        memcpy(v, g->site->xmm[it->reg], 8);
        return 0;
    }
    uintptr_t x = g->site->gpr[it->reg];
    if (it->mem) {
        unsigned w = it->width ? it->width : 8;
        x += (uintptr_t)(intptr_t)it->off;
        if (!in_stack_window(x, w, g->site->gpr[7]))
            return -1;
        x = load_width(x, w);
    }
    *v = x;
    return 0;
}

/* The call and its ARGS by plan pl, whose kind has been checked; made
 * twice, for the entry's registers and for a site's, so that each reads
 * its own places without testing which at every item. */
static inline __attribute__((always_inline)) int
plan_write(const struct plan *pl, void *fn, void *site, uintptr_t sp,
           const struct ct_arg_regs *g, bool at_site)
{
    /* The ARGS record, encoded before the gate is taken (the thread's
     * state untouched until ct_enter_with writes it after the ENTRY), and
     * stamped with the ENTRY's time: delta 0. */
    uint8_t rec[PLAN_BYTES];
    uint8_t *p = ct_put_varint(rec, ct_head(0, CT_REC_EXT));
    *p++ = CT_EXT_ARGS;
    struct pay pay = {p + 1, 0};
    for (unsigned i = 0; i < pl->n; i++) {
        const struct plan_item *it = &pl->items[i];
        uint64_t v;
        if (item_value(it, g, at_site, &v) != 0)
            return -1;
        if (it->fp)
            put_fp_bits(&pay, it->fp, v);
        else
            put_int_as(&pay, it->fmt, it->width, v);
    }
    *p = (uint8_t)pay.n;
    return ct_enter_with(fn, site, sp, rec, (size_t)(pay.b + pay.n - rec));
}

int ct_args_plan_write(uint32_t rule, void *fn, void *site, uintptr_t sp,
                      const struct ct_arg_regs *g)
{
    const struct plan *pl = &plans[rule];
    unsigned kind = __atomic_load_n(&pl->kind, __ATOMIC_ACQUIRE);
    if (!g->site)
        return kind == PLAN_ENTRY ? plan_write(pl, fn, site, sp, g, false)
                                  : -1;
    /* at a hook's call: not an inlined copy, and no return to take */
    if (kind != PLAN_SITE || pl->returns ||
        !at_holds(pl->has_at, pl->at, (uintptr_t)fn, sp))
        return -1;
    return plan_write(pl, fn, site, sp, g, true);
}
