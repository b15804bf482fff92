/*
 * CALLTRACE_ARGS' common case: a call and its ARGS in one pass of the
 * hooks' fast path, its ENTRY and its values under one test of the
 * thread's gate (ct_enter_with, or ct_enter_open with a string), and a
 * return and its RETVAL the same way (ct_exit_with), for a
 * rule of at most PLAN_ITEMS integers and floating-point values and at
 * most one string, each read from the registers of the call's entry (a
 * library call, a patched entry) or, at a hook's call, from a register
 * or the stack in use.  The rule's items are made into a plan when a
 * function is first given the rule, so that a call reads nothing of the
 * rule itself.  Anything the plan does not cover (a place outside the
 * stack window, a string outside the objects' segments, the fast path
 * shut by a filter, a full block, the first call of a thread) is
 * recorded by the hook and given its ARGS by args.c's general path,
 * which writes the same values.
 *
 * The library-call stub's and the patched entries' fast ways, which save
 * no vector register, call the plans too (floating-point values read
 * where the trampoline stored the registers' low halves): this file is
 * built with -mgeneral-regs-only, and so is the table of stable memory
 * it reads strings by (base/stable_mem.c), so that nothing here touches
 * a vector register either (a float is made a double with integers,
 * encode.h).
 */
#include <string.h>

#include "preload/args/args.h"
#include "preload/args/encode.h"
#include "preload/args/plan.h"
#include "preload/base/stable_mem.h"
#include "preload/patch/patch.h"
#include "preload/tracer.h"

/* Values a plan keeps at most: 11 bytes each at most (an integer's tag
 * and varint; a double's tag and 8 bytes; a string's tag and length,
 * its text copied from where it is). */
#define PLAN_ITEMS 8
/* Their ARGS record's head at most: its head, kind and length. */
#define PLAN_HEAD 4
#define PLAN_BYTES (PLAN_HEAD + 11 * PLAN_ITEMS)
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
    uint16_t strmax;/* a string's most bytes kept; 0: not a string     */
    struct int_form form; /* an integer of a fixed format's (encode.h,
                       int_fixed_form), for put_ints; its
                       tag 0 for
                       AUTO and any other item                          */
};

enum { PLAN_ENTRY = 1, PLAN_SITE = 2 };  /* the registers it reads */

struct plan {
    uint8_t kind;   /* 0: none; written last, with release             */
    uint8_t n;
    uint8_t has_at; /* SITE: the rule's `at+N` (encode.h, at_holds)   */
    uint8_t returns;/* SITE: the return value is kept, the return
                       address in the frame at gpr[ret_reg] + ret_off  */
    uint8_t ret_reg;
    int32_t ret_off;
    uint8_t has_str;/* one of the items is a string                   */
    uint8_t gprs;   /* ENTRY: every item in a general register, an
                       integer or a string's address (the stub's fast
                       way saved no other)                              */
    uint32_t at;
    struct plan_item items[PLAN_ITEMS];
    uint8_t ret_ready; /* 1: ret is the return value's plan (an
                          integer, or fp); written last                 */
    uint8_t site_ints; /* SITE: integers of fixed formats alone        */
    struct plan_item ret;
};

/* By rule id (1 .. CT_ARGS_MAX_RULES, then the merged sets): made under
 * args.c's lock before the id is handed out, read without it. */
static struct plan plans[CT_ARGS_MAX_RULES + CT_ARGS_MAX_MERGED + 1];
uint8_t ct_args_plan_int_only[CT_ARGS_MAX_RULES + CT_ARGS_MAX_MERGED + 1];
/* 1: the rule keeps no return value, its return a plain EXIT (read by
 * hot.c's patched returns too) */
uint8_t ct_args_plan_no_return[CT_ARGS_MAX_RULES + CT_ARGS_MAX_MERGED + 1];

static unsigned plan_kind(const struct ct_arg_item *it)
{
    /* a struct in vector registers is a value of the floating kind too */
    if (it->fmt == CT_FMT_STRUCT || it->fmt == CT_FMT_ENUM ||
        (it->fmt == CT_FMT_STR && !it->strmax))
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
    struct plan_item pi = {
        .reg = (uint8_t)reg, .mem = mem, .fmt = it->fmt,
        .width = it->width, .off = mem ? it->off : 0,
        .fp = fp ? (uint8_t)fp_bytes(it) : 0,
        .strmax = it->fmt == CT_FMT_STR ? it->strmax : 0};
    if (!fp)
        int_fixed_form(it->fmt, it->width, &pi.form);
    return pi;
}

/* The return value's plan, for a return whose %rax and %xmm0 were saved
 * (a library call's stub, a taken return's trampoline): an integer or a
 * floating-point value, nothing that names a type or points at a text. */
static void plan_return(struct plan *pl, const struct ct_args_rule *r)
{
    const struct ct_arg_item *it = &r->ret;
    if (!r->has_ret) {
        __atomic_store_n(&ct_args_plan_no_return[pl - plans], 1,
                         __ATOMIC_RELEASE);
        return;
    }
    if (pl->ret_ready || it->fmt == CT_FMT_STR ||
        it->fmt == CT_FMT_STRUCT || it->fmt == CT_FMT_ENUM)
        return;
    pl->ret = (struct plan_item){
        .fmt = it->fmt, .width = it->width,
        .fp = it->fmt == CT_FMT_FLOAT ? (uint8_t)fp_bytes(it) : 0};
    if (!pl->ret.fp)
        int_fixed_form(it->fmt, it->width, &pl->ret.form);
    __atomic_store_n(&pl->ret_ready, 1, __ATOMIC_RELEASE);
}

void ct_args_plan_make(uint32_t id, const struct ct_args_rule *r,
                       bool keeps_return)
{
    struct plan *pl = &plans[id];
    unsigned kind = 0, strings = 0;
    plan_return(pl, r);
    if (pl->kind || !r->nitems || r->nitems > PLAN_ITEMS)
        return;
    for (unsigned i = 0; i < r->nitems; i++) {
        const struct ct_arg_item *it = &r->items[i];
        unsigned k = plan_kind(it);
        strings += it->fmt == CT_FMT_STR;
        if (!k || (kind && k != kind) || strings > 1)
            return;
        kind = k;
        pl->items[i] = plan_item(it, k);
    }
    pl->n = r->nitems;
    pl->has_str = strings > 0;
    pl->gprs = kind == PLAN_ENTRY;
    for (unsigned i = 0; i < pl->n; i++)
        pl->gprs &= !pl->items[i].fp;
    pl->has_at = r->has_at;
    pl->at = r->at;
    pl->returns = keeps_return;
    pl->ret_reg = r->ret.reg < 16 ? r->ret.reg : 7;
    pl->ret_off = r->ret.off;
    pl->site_ints = kind == PLAN_SITE && !pl->has_str;
    for (unsigned i = 0; i < pl->n; i++)
        pl->site_ints &= !pl->items[i].fp && pl->items[i].form.tag != 0;
    __atomic_store_n(&pl->kind, (uint8_t)kind, __ATOMIC_RELEASE);
    if (pl->gprs && !pl->has_str)  /* integers alone, in registers */
        __atomic_store_n(&ct_args_plan_int_only[id], 1, __ATOMIC_RELEASE);
}

/* At a hook's call, the value of item it in a general register or the
 * memory one points into (not a vector register's): -1 when it is in
 * memory outside the stack window. */
static inline __attribute__((always_inline)) int
site_gpr_value(const struct plan_item *it, const struct ct_site_regs *regs,
               uint64_t *v)
{
    uintptr_t x = regs->gpr[it->reg];
    if (it->mem) {
        unsigned w = it->width ? it->width : 8;
        x += (uintptr_t)(intptr_t)it->off;
        if (!in_stack_window(x, w, regs->gpr[7]))
            return -1;
        x = load_width(x, w);
    }
    *v = x;
    return 0;
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
    return site_gpr_value(it, g->site, v);
}

/* The length of the text at s, at most got bytes, all readable: a word
 * at a time while a whole word is left (the lowest byte that is zero is
 * the lowest whose bit the test sets), then a byte at a time. */
static inline size_t text_len(const uint8_t *s, size_t got)
{
    size_t n = 0;
    for (; n + 8 <= got; n += 8) {
        uint64_t w;
        memcpy(&w, s + n, 8);
        uint64_t z = (w - 0x0101010101010101ull) & ~w & 0x8080808080808080ull;
        if (z)
            return n + (size_t)__builtin_ctzll(z) / 8;
    }
    while (n < got && s[n])
        n++;
    return n;
}

/* A string item's tag and length into pay, the text left where it is
 * (*text, *len): when it lies whole in the objects' segments
 * (stable_mem.h), which a copy reads without a fault, as args.c's
 * put_string keeps it; -1 elsewhere, for the general path to read. */
static inline __attribute__((always_inline)) int
plan_string(struct pay *pay, const struct plan_item *it,
                       uintptr_t addr, const char **text, size_t *len)
{
    if (!addr) {
        pay->b[pay->n++] = CT_VAL_NULLSTR;
        return 0;
    }
    size_t want = (size_t)it->strmax + 1;
    size_t got = ct_stable_span(addr, want);
    if (!got)
        return -1;
    size_t n = text_len((const uint8_t *)addr, got);
    bool whole = n < got;
    if (!whole && got < want)
        return -1;  /* it runs on past the segment */
    if (!whole)
        n = it->strmax;
    put_tag(pay, whole ? CT_VAL_STR : CT_VAL_STR_CUT, n);
    *text = (const char *)addr;
    *len = n;
    return 0;
}

/* An ARGS or RETVAL record's head (kind sub) for a payload of n bytes
 * (below 16384), ending at end, stamped with the time of the record
 * before (delta 0): a 1-byte head, the kind, 1 or 2 bytes of length.
 * Where it starts, or NULL (never: n is below 16384, and the head fits
 * the room before the values). */
static inline uint8_t *head_before(uint8_t *end, uint8_t sub, size_t n)
{
    uint8_t *s = end - (n < 128 ? 3 : 4);
    return n < 16384 && ct_enc_ext_head(s, 0, sub, n) == end ? s : NULL;
}

/* At a hook's call whose return value the rule keeps: the return
 * address, where the rule says, swapped for the patchable-entry mode's
 * return trampoline, as args.c's general path swaps it (return_slot):
 * when the place lies in the stack window and holds site, the address
 * the hook was given.  -1, with nothing changed, elsewhere (the general
 * path reads it then). */
static int plan_take_return(const struct plan *pl, void *fn, void *site,
                            const struct ct_site_regs *regs)
{
    uintptr_t sp = regs->gpr[7];
    uintptr_t slot = regs->gpr[pl->ret_reg] + (uintptr_t)(intptr_t)pl->ret_off;
    if ((slot & 7) || !in_stack_window(slot, 8, sp) ||
        *(const uintptr_t *)slot != (uintptr_t)site)
        return -1;
    ct_patch_take_return((uintptr_t)fn, (uint32_t)(pl - plans), (uintptr_t *)slot);
    return 0;
}

/* The call and its ARGS by plan pl, whose kind has been checked; made
 * for the entry's registers and for a site's, with a string and without,
 * so that each reads its own places and tests for no string at every
 * item when it has none. */
static inline __attribute__((always_inline)) int
plan_write(const struct plan *pl, void *fn, void *site, uintptr_t sp,
           const struct ct_arg_regs *g, bool at_site, bool with_str)
{
    /* The ARGS record's values, encoded before the gate is taken (the
     * thread's state untouched until the ENTRY is written) after room
     * for its head; a string's text stays where it is until then, its
     * tag and length ending the bytes before it (at). */
    uint8_t rec[PLAN_BYTES];
    struct pay pay = {rec + PLAN_HEAD, 0};
    const char *text = NULL;
    size_t len = 0, at = 0;
    for (unsigned i = 0; i < pl->n; i++) {
        const struct plan_item *it = &pl->items[i];
        uint64_t v;
        if (item_value(it, g, at_site, &v) != 0)
            return -1;
        if (with_str && it->strmax) {
            if (plan_string(&pay, it, v, &text, &len) != 0)
                return -1;
            at = pay.n;
        } else if (it->fp) {
            put_fp_bits(&pay, it->fp, v);
        } else if (ct_likely(it->form.tag)) {
            put_int_fixed(&pay, it->form, v);
        } else {
            put_int_as(&pay, it->fmt, it->width, v);
        }
    }
    /* The head, stamped with the ENTRY's time, ending where the values
     * begin. */
    uint8_t *start = head_before(pay.b, CT_EXT_ARGS, pay.n + len);
    if (!start)
        return -1;
    size_t hn = (size_t)(pay.b - start);
    /* Before the ENTRY, as the general path does: a tail call may end a
     * frame there.  Should the write below not be made, the general path
     * finds the return taken already and leaves it. */
    if (at_site && pl->returns && plan_take_return(pl, fn, site, g->site) != 0)
        return -1;
    if (!with_str || !len)
        return ct_enter_with(fn, site, sp, start, hn + pay.n);
    uint8_t *p = ct_enter_open(fn, site, sp, hn + pay.n + len);
    if (!p)
        return -1;
    p = ct_copy_words(p, start, hn + at);
    p = ct_copy_words(p, (const uint8_t *)text, len);
    ct_hot_close(ct_copy_words(p, pay.b + at, pay.n - at));
    return 0;
}

/* The values of a plan of integers alone, from the entry's general
 * registers ints (each `step` words apart): an item of a fixed format by
 * its form, with no branch on its format; AUTO's by put_int_as. */
static inline __attribute__((always_inline)) void
put_ints(const struct plan *pl, struct pay *pay, const uintptr_t *ints,
         long step)
{
    for (unsigned i = 0; i < pl->n; i++) {
        const struct plan_item *it = &pl->items[i];
        uint64_t v = ints[step * it->reg];
        if (ct_likely(it->form.tag))
            put_int_fixed(pay, it->form, v);
        else
            put_int_as(pay, CT_FMT_AUTO, it->width, v);
    }
}
_Static_assert(11 * PLAN_ITEMS < 128 && PLAN_HEAD >= 3,
               "an integers' plan's head is 3 bytes");

/* The ARGS record of such a plan at rec: its 3-byte head, then the
 * values; its length. */
static inline __attribute__((always_inline)) size_t
ints_record(const struct plan *pl, uint8_t *rec, const uintptr_t *ints,
            long step)
{
    struct pay pay = {rec + 3, 0};
    put_ints(pl, &pay, ints, step);
    ct_enc_ext_head(rec, 0, CT_EXT_ARGS, pay.n);
    return 3 + pay.n;
}

/* The call and its ARGS by the plan of integers alone of rule, as
 * plan_write writes them, the record encoded into a buffer and copied
 * after the ENTRY (ct_enter_with).  A function of its own (plan.h), so
 * that the common case runs in few registers and a small frame, not in
 * the general writer's. */
int ct_args_plan_write_ints(uint32_t rule, void *fn, void *site, uintptr_t sp,
                            const uintptr_t *ints, long step)
{
    uint8_t rec[CT_ARGS_PLAN_INTS_MAX];
    size_t n = ints_record(&plans[rule], rec, ints, step);
    return ct_enter_with(fn, site, sp, rec, n);
}

/* The ARGS record alone of the same plan, at rec (CT_ARGS_PLAN_INTS_MAX
 * bytes), for a caller that writes the ENTRY in line and copies it after
 * (hot.c's patched entries): its length. */
size_t ct_args_plan_put_ints(uint32_t rule, uint8_t *rec, const uintptr_t *ints,
                             long step)
{
    return ints_record(&plans[rule], rec, ints, step);
}
_Static_assert(3 + 11 * PLAN_ITEMS <= CT_ARGS_PLAN_INTS_MAX &&
               CT_ARGS_PLAN_INTS_MAX <= CT_ENTER_WITH_MAX,
               "an integers' ARGS fits its buffer and the room after an ENTRY");

/* The call and its ARGS at a hook's call by a plan of integers of fixed
 * formats alone, as plan_write writes them, with no branch on a kind. */
static inline __attribute__((always_inline)) int
site_ints(const struct plan *pl, void *fn, void *site, uintptr_t sp,
          const struct ct_site_regs *regs)
{
    uint8_t rec[PLAN_BYTES];
    struct pay pay = {rec + PLAN_HEAD, 0};
    for (unsigned i = 0; i < pl->n; i++) {
        const struct plan_item *it = &pl->items[i];
        uint64_t x;
        if (ct_unlikely(site_gpr_value(it, regs, &x) != 0))
            return -1;
        put_int_fixed(&pay, it->form, x);
    }
    if (ct_unlikely(pl->returns) && plan_take_return(pl, fn, site, regs) != 0)
        return -1;
    uint8_t *start = pay.b - 3;
    ct_enc_ext_head(start, 0, CT_EXT_ARGS, pay.n);
    return ct_enter_with(fn, site, sp, start, 3 + pay.n);
}

/* The call and its ARGS by rule's plan pl from the entry's registers g;
 * -1 when the rule has no plan for them. */
static inline __attribute__((always_inline)) int
plan_write_entry(uint32_t rule, const struct plan *pl, unsigned kind,
                 void *fn, void *site, uintptr_t sp,
                 const struct ct_arg_regs *g)
{
    if (kind != PLAN_ENTRY)
        return -1;
    if (__atomic_load_n(&ct_args_plan_int_only[rule], __ATOMIC_ACQUIRE))
        return ct_args_plan_write_ints(rule, fn, site, sp, g->ints, g->step);
    return pl->has_str ? plan_write(pl, fn, site, sp, g, false, true)
                       : plan_write(pl, fn, site, sp, g, false, false);
}

int ct_args_plan_write(uint32_t rule, void *fn, void *site, uintptr_t sp,
                      const struct ct_arg_regs *g)
{
    const struct plan *pl = &plans[rule];
    unsigned kind = __atomic_load_n(&pl->kind, __ATOMIC_ACQUIRE);
    if (!g->site)
        return plan_write_entry(rule, pl, kind, fn, site, sp, g);
    /* at a hook's call: not an inlined copy */
    if (kind != PLAN_SITE || !at_holds(pl->has_at, pl->at, (uintptr_t)fn, sp))
        return -1;
    if (pl->site_ints)
        return site_ints(pl, fn, site, sp, g->site);
    return pl->has_str ? plan_write(pl, fn, site, sp, g, true, true)
                       : plan_write(pl, fn, site, sp, g, true, false);
}

uint32_t ct_args_plan_fast(uint32_t rule)
{
    const struct plan *pl = &plans[rule];
    uint32_t k = 0;
    if (__atomic_load_n(&pl->kind, __ATOMIC_ACQUIRE) == PLAN_ENTRY)
        k |= pl->gprs ? CT_ARGS_FAST_ARGS : CT_ARGS_FAST_VEC_ARGS;
    if (__atomic_load_n(&pl->ret_ready, __ATOMIC_ACQUIRE))
        k |= pl->ret.fp ? CT_ARGS_FAST_VEC_RETURN : CT_ARGS_FAST_RETURN;
    return k;
}

int ct_args_plan_write_general(uint32_t rule, void *fn, void *site,
                               uintptr_t sp, const uintptr_t *ints, long step,
                               const uint8_t *xmm)
{
    const struct plan *pl = &plans[rule];
    unsigned kind = __atomic_load_n(&pl->kind, __ATOMIC_ACQUIRE);
    if (!pl->gprs && !xmm)
        return -1;
    const struct ct_arg_regs g = {ints, step, xmm, NULL, NULL};
    return plan_write_entry(rule, pl, kind, fn, site, sp, &g);
}

/* The RETVAL record of plan pl's return value at rec (CT_ARGS_PLAN_RET_MAX bytes): its
 * 3-byte head, then the value, from %rax or the %xmm0 saved at xmm0 (a
 * floating-point one); its length. */
static inline __attribute__((always_inline)) size_t
retval_record(const struct plan *pl, uint64_t rax,
              const uint8_t *xmm0, uint8_t *rec)
{
    struct pay pay = {rec + 3, 0};
    if (pl->ret.fp) {
        uint64_t v;
        memcpy(&v, xmm0, 8);
        put_fp_bits(&pay, pl->ret.fp, v);
    } else if (ct_likely(pl->ret.form.tag)) {
        put_int_fixed(&pay, pl->ret.form, rax);
    } else {
        put_int_as(&pay, pl->ret.fmt, pl->ret.width, rax);
    }
    ct_enc_ext_head(rec, 0, CT_EXT_RETVAL, pay.n);
    return 3 + pay.n;
}
_Static_assert(3 + 11 <= CT_ARGS_PLAN_RET_MAX, "a RETVAL fits its buffer");

size_t ct_args_plan_put_return(uint32_t rule, uint64_t rax, uint8_t *rec)
{
    const struct plan *pl = &plans[rule];
    if (!__atomic_load_n(&pl->ret_ready, __ATOMIC_ACQUIRE) || pl->ret.fp)
        return 0;
    return retval_record(pl, rax, NULL, rec);
}

int ct_args_plan_return(uint32_t rule, uint64_t rax, const uint8_t *xmm0,
                        uint32_t depth, void *fn)
{
    const struct plan *pl = &plans[rule];
    if (__atomic_load_n(&ct_args_plan_no_return[rule], __ATOMIC_ACQUIRE))
        return ct_exit_try(fn, depth);
    if (!__atomic_load_n(&pl->ret_ready, __ATOMIC_ACQUIRE) ||
        (pl->ret.fp && !xmm0))
        return -1;
    uint8_t rec[CT_ARGS_PLAN_RET_MAX];
    size_t n = retval_record(pl, rax, xmm0, rec);
    return ct_exit_with(fn, depth, rec, n);
}
