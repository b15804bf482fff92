/*
 * The one decoder of calltrace's records (include/calltrace_format.h):
 * ctr_rec_next reads the next record of a block into a struct ctr_rec.
 * Every route reads through it and differs only in what it does with the
 * record: the serial and parallel decoders and the fused one
 * (calltrace_decode.c), the live follower (calltrace_follow.c), and the
 * look-aheads at a block's next records (calltrace_context.c,
 * calltrace_offcpu.c, calltrace_index.c).  Inline, so that each hot loop
 * gets it with its encoding and bounds checks fixed at compile time.
 * Private to the calltrace_*.c files, like calltrace_reader.h.
 */
#ifndef CT_CALLTRACE_RECORD_H
#define CT_CALLTRACE_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "calltrace_format.h"

/* One record.  An EXT record of a subtype the reader does not know is
 * whole all the same (its length is in it): consumers skip it, so a new
 * subtype needs nothing here; one that maps to an event by itself needs
 * one case in ctr_ext_event (calltrace_decode.c), which the decoders and
 * the live follower share, and any other one a case in each consumer. */
struct ctr_rec {
    bool head;                /* the head was read (type, delta are set) */
    unsigned type;            /* CT_REC_ENTRY, CT_REC_EXIT, CT_REC_EXT    */
    uint64_t delta;           /* ticks since the thread's previous record */
    uint64_t fn_delta;        /* ENTRY: added to the previous function    */
    uint64_t site_delta;      /*        and call site (mod 2^64)          */
    unsigned subtype;         /* EXT: CT_EXT_*, known or not              */
    const uint8_t *payload;   /* EXT: len bytes                           */
    size_t len;
};

/* What ctr_rec_next returns: a whole record's type (CT_REC_EXIT,
 * CT_REC_ENTRY, CT_REC_EXT: above zero), or one of these.  Returning the
 * type lets a hot loop branch once on what the decoder found. */
enum ctr_rec_status {
    CTR_REC_BAD = -1,         /* malformed                                */
    CTR_REC_SHORT = 0,        /* the bytes end inside it                  */
    CTR_REC_LATER = 4,        /* unchecked: an EXT record, its head alone
                                 read; the checked form decodes it      */
};

/* A varint without bounds checks (the caller keeps CT_REC_MAX_HOT bytes
 * of room); false when it is longer than 10 bytes. */
static inline bool ctr_varint_fast(const uint8_t **pp, uint64_t *out)
{
    const uint8_t *p = *pp;
    uint64_t v = p[0];
    if (v < 0x80) {
        *pp = p + 1;
        *out = v;
        return true;
    }
    v &= 0x7f;
    for (unsigned i = 1; i < 10; i++) {
        uint64_t b = p[i];
        v |= (b & 0x7f) << (7 * i);
        if (b < 0x80) {
            *pp = p + i + 1;
            *out = v;
            return true;
        }
    }
    return false;
}

/* ctr_varint_fast with the one-, two- and three-byte cases unrolled: most
 * heads take one or two bytes, and a function's address delta within one
 * object takes three. */
static inline __attribute__((always_inline)) bool
ctr_varint_hot(const uint8_t **pp, uint64_t *out)
{
    const uint8_t *p = *pp;
    if (p[0] < 0x80) {
        *out = p[0];
        *pp = p + 1;
        return true;
    }
    if (p[1] < 0x80) {
        *out = (p[0] & 0x7fu) | (uint64_t)p[1] << 7;
        *pp = p + 2;
        return true;
    }
    if (p[2] < 0x80) {
        *out = (p[0] & 0x7fu) | (uint64_t)(p[1] & 0x7fu) << 7 |
               (uint64_t)p[2] << 14;
        *pp = p + 3;
        return true;
    }
    return ctr_varint_fast(pp, out);
}

/* A varint of [*q, end), or of the room after *q when unchecked. */
static inline __attribute__((always_inline)) bool
ctr_rec_varint(const uint8_t **q, const uint8_t *end, bool unchecked,
               uint64_t *out)
{
    return unchecked ? ctr_varint_hot(q, out)
                     : ct_get_varint(q, end, out) == 0;
}

/* An EXT record's subtype, length and payload at *q, after its head. */
static inline __attribute__((always_inline)) int
ctr_rec_ext(const uint8_t **q, const uint8_t *end, struct ctr_rec *r)
{
    uint64_t len;
    const uint8_t *p = *q;
    if (p >= end)
        return CTR_REC_SHORT;
    r->subtype = *p++;
    if (ct_get_varint(&p, end, &len) != 0)
        return end - p >= 10 ? CTR_REC_BAD : CTR_REC_SHORT;
    if (len > (uint64_t)(end - p))
        return CTR_REC_SHORT;
    r->payload = p;
    r->len = (size_t)len;
    *q = p + len;
    return CT_REC_EXT;
}

/*
 * The decoder in two steps, for the loops that need a record's time
 * before the rest of it (to stop at a time limit, or to peek at the next
 * record's time); ctr_rec_next below is both.  A zero byte (the end of
 * what an unclosed block holds) is the caller's to test.
 *
 * unchecked: the hot loops' form, where CT_REC_MAX_HOT bytes after the
 * record's start are readable whatever end says, so heads and ENTRY
 * operands are read without bounds checks (malformed ones are
 * CTR_REC_BAD); an EXT record is CTR_REC_LATER there, for the checked
 * form.  Checked, bytes that run out are CTR_REC_SHORT, unless so many
 * are left that a whole varint would have fit (CTR_REC_BAD).
 */

/* Step 1: the head at *q (r->head, type, delta); *q moves past it.
 * Returns 1, CTR_REC_SHORT or CTR_REC_BAD. */
static inline __attribute__((always_inline)) int
ctr_rec_head(const uint8_t **q, const uint8_t *end, bool prefix,
             bool unchecked, struct ctr_rec *r)
{
    uint64_t head;
    if (!unchecked) /* every field set for the general loops */
        *r = (struct ctr_rec){.head = false};
    else
        r->head = false;
    if (!ctr_rec_varint(q, end, unchecked, &head))
        return unchecked || end - *q >= 10 ? CTR_REC_BAD : CTR_REC_SHORT;
    r->head = true;
    r->type = ct_head_split(head, prefix, &r->delta);
    return 1;
}

/* Step 2: the rest of the record whose head ctr_rec_head read; *q moves
 * past it when it is whole.  Returns its type, CTR_REC_LATER,
 * CTR_REC_SHORT or CTR_REC_BAD. */
static inline __attribute__((always_inline)) int
ctr_rec_body(const uint8_t **q, const uint8_t *end, bool unchecked,
             struct ctr_rec *r)
{
    uint64_t a, b;
    switch (r->type) {
    case CT_REC_EXIT:
        return CT_REC_EXIT;
    case CT_REC_ENTRY:
        if (!ctr_rec_varint(q, end, unchecked, &a) ||
            !ctr_rec_varint(q, end, unchecked, &b))
            return unchecked || end - *q >= 20 ? CTR_REC_BAD : CTR_REC_SHORT;
        r->fn_delta = (uint64_t)ct_unzigzag(a);
        r->site_delta = (uint64_t)ct_unzigzag(b);
        return CT_REC_ENTRY;
    case CT_REC_EXT:
        /* The hot loops take calls and returns only: their loops stay
         * small, and they stop here for the checked form to go on. */
        if (unchecked)
            return CTR_REC_LATER;
        return ctr_rec_ext(q, end, r);
    default:
        return CTR_REC_BAD;
    }
}

/* Decodes the record at *pp, before end, of a block whose heads are
 * prefix-coded or not: its type when it is whole (*pp then moves past
 * it), or CTR_REC_LATER, CTR_REC_SHORT, CTR_REC_BAD. */
static inline __attribute__((always_inline)) int
ctr_rec_next(const uint8_t **pp, const uint8_t *end, bool prefix,
             bool unchecked, struct ctr_rec *r)
{
    const uint8_t *q = *pp;
    int s = ctr_rec_head(&q, end, prefix, unchecked, r);
    if (s != 1)
        return s;
    s = ctr_rec_body(&q, end, unchecked, r);
    if (s > 0 && s != CTR_REC_LATER)
        *pp = q;
    return s;
}

#endif /* CT_CALLTRACE_RECORD_H */
