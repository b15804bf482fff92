/*
 * How a value of CALLTRACE_ARGS is put into an ARGS or RETVAL record's
 * payload (docs/trace-format.md), how a hook's call reads a frame slot in
 * place, and whether the places of a rule with `at+N` hold at a call:
 * shared by the general path (args.c) and the one-pass plans (plan.c).
 * Internal to preload/args/.
 */
#ifndef CT_ARGS_ENCODE_H
#define CT_ARGS_ENCODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "calltrace_format.h"
#include "settings/args_spec.h"

/* A payload being built. */
struct pay {
    uint8_t *b;
    size_t n;
};

static inline void put_tag(struct pay *p, uint8_t tag, uint64_t v)
{
    p->b[p->n++] = tag;
    p->n = (size_t)(ct_put_varint(p->b + p->n, v) - p->b);
}

static inline uint64_t low_bits(uint64_t v, unsigned width)
{
    return width >= 8 ? v : v & ((1ull << (8 * width)) - 1);
}

static inline int64_t sign_extend(uint64_t v, unsigned width)
{
    unsigned shift = 64 - 8 * (width ? width : 8);
    return (int64_t)(v << shift) >> shift;
}

/* An integer value v, not a string, as format fmt (enum ct_arg_fmt) of
 * width bytes says. */
static inline __attribute__((always_inline)) void
put_int_as(struct pay *p, unsigned fmt, unsigned width, uint64_t v)
{
    switch (fmt) {
    case CT_FMT_SIGNED:
        put_tag(p, CT_VAL_SIGNED, ct_zigzag(sign_extend(v, width)));
        return;
    case CT_FMT_UNSIGNED:
        put_tag(p, CT_VAL_UNSIGNED, low_bits(v, width));
        return;
    case CT_FMT_HEX:
        put_tag(p, CT_VAL_HEX, low_bits(v, width));
        return;
    case CT_FMT_PTR:
        put_tag(p, CT_VAL_PTR, v);
        return;
    case CT_FMT_CHAR:
        put_tag(p, CT_VAL_CHAR, ct_zigzag((int8_t)v));
        return;
    case CT_FMT_OCT:
        put_tag(p, CT_VAL_OCT, low_bits(v, width));
        return;
    default: /* AUTO, uftrace's: a 32-bit negative int as one, small
              * values in decimal, large ones in hex; of a width given
              * (`/32`), its bits alone, as a signed number */
        if (width < 8)
            v = (uint64_t)sign_extend(v, width) & 0xffffffffull;
        if (v > 0xffff0000ull && v <= 0xffffffffull)
            put_tag(p, CT_VAL_SIGNED, ct_zigzag((int32_t)v));
        else if ((int64_t)v >= -100000 && (int64_t)v <= 100000)
            put_tag(p, CT_VAL_SIGNED, ct_zigzag((int64_t)v));
        else
            put_tag(p, CT_VAL_HEX, v);
    }
}

/* An integer format's fixed form (ct_args_plan's integers alone): what
 * put_int_as does to a value of fmt and width as a tag, and the value's
 * bits shifted up by `shift` and back, with the sign when sgn (then
 * zigzagged), so that a call encodes it with no branch on its format
 * (put_int_fixed).  False for AUTO, whose text depends on the value, and
 * for what is not an integer. */
struct int_form {
    uint8_t tag, shift, sgn;
};

static inline bool int_fixed_form(unsigned fmt, unsigned width,
                                  struct int_form *f)
{
    static const uint8_t tags[] = {
        [CT_FMT_SIGNED] = CT_VAL_SIGNED, [CT_FMT_UNSIGNED] = CT_VAL_UNSIGNED,
        [CT_FMT_HEX] = CT_VAL_HEX, [CT_FMT_PTR] = CT_VAL_PTR,
        [CT_FMT_CHAR] = CT_VAL_CHAR, [CT_FMT_OCT] = CT_VAL_OCT};
    if (fmt >= sizeof tags || !tags[fmt])
        return false;
    if (fmt == CT_FMT_CHAR)
        width = 1;
    else if (fmt == CT_FMT_PTR || width < 1 || width > 8)
        width = 8;
    f->tag = tags[fmt];
    f->shift = (uint8_t)(64 - 8 * width);
    f->sgn = fmt == CT_FMT_SIGNED || fmt == CT_FMT_CHAR;
    return true;
}

/* The integer v put as its fixed form f says: the same bytes as
 * put_int_as of the format and width f was made from. */
static inline __attribute__((always_inline)) void
put_int_fixed(struct pay *p, struct int_form f, uint64_t v)
{
    v <<= f.shift;
    v = f.sgn ? ct_zigzag((int64_t)v >> f.shift) : v >> f.shift;
    put_tag(p, f.tag, v);
}

/* The bytes of a floating-point item's value: 4 for a float (`/32`),
 * else 8, a double. */
static inline unsigned fp_bytes(const struct ct_arg_item *it)
{
    return it->width == 4 ? 4 : 8;
}

/* A float's bits as the double of the same value, with integers alone
 * (plan.c, which the library-call stub's fast way calls, is built with
 * -mgeneral-regs-only): what cvtss2sd gives, a signalling NaN made quiet
 * as it makes it. */
static inline uint64_t ct_float_to_double_bits(uint32_t f)
{
    uint64_t sign = (uint64_t)(f >> 31) << 63;
    uint32_t exp = (f >> 23) & 0xff, man = f & 0x7fffff;
    if (exp == 0xff)  /* infinity, NaN (quiet, its payload kept) */
        return sign | 0x7ff0000000000000ull |
               (man ? 0x0008000000000000ull : 0) | ((uint64_t)man << 29);
    if (exp == 0) {
        if (!man)
            return sign;
        /* subnormal: man * 2^-149, its top bit at top */
        int top = 31 - __builtin_clz(man);
        return sign | ((uint64_t)(top - 149 + 1023) << 52) |
               ((uint64_t)((man << (23 - top)) & 0x7fffff) << 29);
    }
    return sign | ((uint64_t)(exp - 127 + 1023) << 52) | ((uint64_t)man << 29);
}

/* A floating-point value of `bytes` (4: a float, else a double) whose
 * bits are the low ones of `bits` (a register's or memory's, little-
 * endian), kept as a double. */
static inline void put_fp_bits(struct pay *p, unsigned bytes, uint64_t bits)
{
    uint64_t d = bytes == 4 ? ct_float_to_double_bits((uint32_t)bits) : bits;
    p->b[p->n++] = CT_VAL_DOUBLE;
    memcpy(p->b + p->n, &d, 8);
    p->n += 8;
}

/* Whether the w bytes at addr lie within the page of sp and the next,
 * above sp: the thread's stack in use at a hook's call, which can be read
 * in place without a fault. */
static inline bool in_stack_window(uintptr_t addr, unsigned w, uintptr_t sp)
{
    uintptr_t page = sp & ~(uintptr_t)4095;
    return addr >= sp && addr + w <= page + 8192 && addr + w > addr;
}

/* How many of the n bytes from addr lie above sp in sp's own page (0:
 * addr is not there).  Narrower than in_stack_window, for a string read
 * up to its maximum wherever its text ends: only sp's page is surely
 * mapped, where a value's place from the debug information lies in a
 * live frame. */
static inline size_t stack_page_span(uintptr_t addr, size_t n, uintptr_t sp)
{
    uintptr_t end = (sp & ~(uintptr_t)4095) + 4096;
    if (!sp || addr < sp || addr >= end)
        return 0;
    return end - addr < n ? end - addr : n;
}

/* The w bytes at addr, which in_stack_window allows. */
static inline uint64_t load_width(uintptr_t addr, unsigned w)
{
    const void *a = (const void *)addr;
    switch (w) {
    case 1: { uint8_t x; memcpy(&x, a, 1); return x; }
    case 2: { uint16_t x; memcpy(&x, a, 2); return x; }
    case 4: { uint32_t x; memcpy(&x, a, 4); return x; }
    default: { uint64_t x; memcpy(&x, a, 8); return x; }
    }
}

/* Whether the places of a rule with `at+N` (has_at) hold at a hook's
 * call whose stack pointer was sp: its return address, which the call
 * pushed below sp, is N bytes into fn, not in a copy of fn that the
 * compiler inlined elsewhere (its hooks name fn too). */
static inline bool at_holds(bool has_at, uint32_t at, uintptr_t fn,
                            uintptr_t sp)
{
    return !has_at || ((const uintptr_t *)sp)[-1] == fn + at;
}

#endif /* CT_ARGS_ENCODE_H */
