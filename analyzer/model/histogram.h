/*
 * A log-bucketed histogram of durations (HDR-style): values below 256 are
 * kept exactly, larger ones in buckets 2^-7 of their size wide, so that a
 * quantile read from it is within CT_HIST_REL_ERROR of a value that was
 * added.  Buckets are allocated only over the range of values seen (at
 * most CT_HIST_BUCKETS of them, 58 KiB), and two histograms merge exactly:
 * the result does not depend on how the values were split between them.
 */
#ifndef CT_HISTOGRAM_H
#define CT_HISTOGRAM_H

#include <stdint.h>

#define CT_HIST_SUB_BITS 7u
#define CT_HIST_SUB (1u << CT_HIST_SUB_BITS)              /* 128 */
/* values 0..255 exact, then 56 octaves of 128 buckets each */
#define CT_HIST_BUCKETS ((64u - CT_HIST_SUB_BITS + 1u) * CT_HIST_SUB)
/* A bucket's width over its lower bound is at most 2^-7; its midpoint is
 * within half that of every value in it: 0.39 %. */
#define CT_HIST_REL_ERROR (1.0 / (2.0 * CT_HIST_SUB))

struct ct_hist {
    uint64_t count;
    uint64_t sum;        /* saturates at UINT64_MAX                       */
    uint64_t min, max;   /* exact; meaningful when count > 0             */
    uint64_t *b;         /* counts of buckets lo .. lo + n - 1            */
    uint32_t lo, n;
};

/* Inline: a profile adds two values at every return. */
static inline uint32_t ct_hist_index(uint64_t v)
{
    if (v < 2 * CT_HIST_SUB)
        return (uint32_t)v;
    unsigned e = 63u - (unsigned)__builtin_clzll(v); /* >= 8 */
    unsigned shift = e - CT_HIST_SUB_BITS;          /* >= 1 */
    /* v >> shift is in [128, 256): octave e holds buckets from
     * (shift + 1) * 128 on */
    return (uint32_t)((shift + 1) * CT_HIST_SUB +
                      ((v >> shift) - CT_HIST_SUB));
}
/* Smallest and largest value of bucket i. */
uint64_t ct_hist_bucket_low(uint32_t i);
uint64_t ct_hist_bucket_high(uint32_t i);

/* Out of line: the bucket array must grow (the first time, it sets min
 * to UINT64_MAX, so that adding needs no test of count). */
void ct_hist_grow(struct ct_hist *h, uint32_t idx);

static inline __attribute__((always_inline)) void
ct_hist_add(struct ct_hist *h, uint64_t v)
{
    uint32_t i = ct_hist_index(v);
    /* n is 0 until the first value: one test covers both */
    if (__builtin_expect(i - h->lo >= h->n, 0))
        ct_hist_grow(h, i);
    h->b[i - h->lo]++;
    if (v < h->min)
        h->min = v;
    if (v > h->max)
        h->max = v;
    h->count++;
    if (__builtin_add_overflow(h->sum, v, &h->sum))
        h->sum = UINT64_MAX;
}

/* Adds every value of from into into. */
void ct_hist_merge(struct ct_hist *into, const struct ct_hist *from);

/* The quantile permille/1000 by nearest rank: the value of rank
 * ceil(count * permille / 1000) (at least 1), as its bucket's midpoint
 * clamped to [min, max]; exact below 256 and for 0 (min) and 1000 (max).
 * 0 when empty. */
uint64_t ct_hist_quantile(const struct ct_hist *h, unsigned permille);

void ct_hist_free(struct ct_hist *h);

#endif /* CT_HISTOGRAM_H */
