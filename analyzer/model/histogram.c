/* The log-bucketed duration histogram (histogram.h). */
#include <stdlib.h>
#include <string.h>

#include "analyzer/model/histogram.h"
#include "analyzer/util.h"

uint64_t ct_hist_bucket_low(uint32_t i)
{
    if (i < 2 * CT_HIST_SUB)
        return i;
    unsigned shift = i / CT_HIST_SUB - 1;
    return (uint64_t)(CT_HIST_SUB + i % CT_HIST_SUB) << shift;
}

uint64_t ct_hist_bucket_high(uint32_t i)
{
    if (i < 2 * CT_HIST_SUB)
        return i;
    unsigned shift = i / CT_HIST_SUB - 1;
    return ct_hist_bucket_low(i) + ((1ull << shift) - 1);
}

/* Makes room for bucket idx, with slack on the side it grew towards so
 * that a widening range reallocates a logarithmic number of times. */
void ct_hist_grow(struct ct_hist *h, uint32_t idx)
{
    uint32_t lo = h->lo, hi = h->lo + h->n; /* [lo, hi) */
    if (!h->b) {
        lo = idx;
        hi = idx + 1;
        if (!h->count)
            h->min = UINT64_MAX;
    }
    uint32_t want_lo = idx < lo ? idx : lo;
    uint32_t want_hi = idx >= hi ? idx + 1 : hi;
    uint32_t slack = (want_hi - want_lo) / 2 + 8;
    if (idx < lo || !h->b)
        want_lo = want_lo > slack ? want_lo - slack : 0;
    if (idx >= hi || !h->b)
        want_hi = want_hi + slack < CT_HIST_BUCKETS ? want_hi + slack
                                                    : CT_HIST_BUCKETS;
    uint64_t *b = ct_xcalloc(want_hi - want_lo, sizeof *b);
    if (h->b)
        memcpy(b + (lo - want_lo), h->b, h->n * sizeof *b);
    free(h->b);
    h->b = b;
    h->lo = want_lo;
    h->n = want_hi - want_lo;
}

void ct_hist_merge(struct ct_hist *into, const struct ct_hist *from)
{
    if (!from->count)
        return;
    if (!into->b || from->lo < into->lo)
        ct_hist_grow(into, from->lo);
    if (from->lo + from->n > into->lo + into->n)
        ct_hist_grow(into, from->lo + from->n - 1);
    for (uint32_t i = 0; i < from->n; i++)
        into->b[from->lo + i - into->lo] += from->b[i];
    if (!into->count || from->min < into->min)
        into->min = from->min;
    if (from->max > into->max)
        into->max = from->max;
    into->count += from->count;
    into->sum = into->sum + from->sum < into->sum ? UINT64_MAX
                                                  : into->sum + from->sum;
}

uint64_t ct_hist_quantile(const struct ct_hist *h, unsigned permille)
{
    if (!h->count)
        return 0;
    if (permille == 0)
        return h->min;
    if (permille >= 1000)
        return h->max;
    /* in integers: 0.99 * 100 is not 99 in floating point */
    unsigned __int128 r = ((unsigned __int128)h->count * permille + 999) / 1000;
    uint64_t rank = (uint64_t)r;
    uint64_t seen = 0;
    for (uint32_t i = 0; i < h->n; i++) {
        seen += h->b[i];
        if (seen < rank)
            continue;
        uint32_t idx = h->lo + i;
        uint64_t lo = ct_hist_bucket_low(idx), hi = ct_hist_bucket_high(idx);
        uint64_t mid = lo + (hi - lo) / 2;
        return mid < h->min ? h->min : mid > h->max ? h->max : mid;
    }
    return h->max;
}

void ct_hist_free(struct ct_hist *h)
{
    free(h->b);
    memset(h, 0, sizeof *h);
}
