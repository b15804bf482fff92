/*
 * calltrace binary reader: off-CPU intervals.  SWITCH records are found
 * through the block header's chain (no decoding of the block), turned into
 * intervals in ticks and handed on in time order among the thread's
 * records as OFFCPU_START / OFFCPU_END events (see decode's ctr_run).
 */
#include <stdlib.h>
#include <string.h>

#include "analyzer/readers/calltrace_reader.h"
#include "analyzer/readers/calltrace_record.h"
#include "analyzer/util.h"

bool ctr_switch_decode(const uint8_t *p, size_t len, double ns_per_tick,
                       struct ctr_interval **iv, size_t *n, size_t *cap,
                       uint32_t *prev, uint64_t *lost)
{
    const uint8_t *end = p + len;
    uint64_t anchor_ticks, anchor_ns, ago, len2;
    if (len < CT_SWITCH_PREV_BYTES)
        return false;
    *prev = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
            (uint32_t)p[3] << 24;
    p += CT_SWITCH_PREV_BYTES;
    if (ct_get_varint(&p, end, &anchor_ticks) != 0 ||
        ct_get_varint(&p, end, &anchor_ns) != 0 ||
        ct_get_varint(&p, end, lost) != 0)
        return false;
    double per_ns = ns_per_tick > 0 ? 1.0 / ns_per_tick : 1.0;
    while (p < end) {
        if (ct_get_varint(&p, end, &ago) != 0 ||
            ct_get_varint(&p, end, &len2) != 0)
            return false;
        double back = (double)ago * per_ns;
        double dur = (double)(len2 >> 1) * per_ns;
        uint64_t start = back >= (double)anchor_ticks
                             ? 0
                             : anchor_ticks - (uint64_t)(back + 0.5);
        uint64_t d = dur < 1.8e19 ? (uint64_t)(dur + 0.5) : UINT64_MAX;
        ct_grow(iv, cap, *n, sizeof **iv);
        (*iv)[(*n)++] = (struct ctr_interval){
            .start = start,
            .end = start + d < start ? UINT64_MAX : start + d,
            .preempted = len2 & 1,
        };
    }
    return true;
}

static int cmp_start(const void *a, const void *b)
{
    const struct ctr_interval *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

/* Reads the SWITCH record whose EXT head is at payload offset off. */
static bool read_switch(struct ctr_reading *r, struct cursor *c, const struct block *b,
                        uint32_t off, uint32_t *prev)
{
    bool partial_ok;
    size_t avail;
    const uint8_t *data = ctr_cursor_payload(r->in, c, b, &avail, &partial_ok);
    if (!data)
        return false;
    /* A crash may leave the header's link ahead of the data it reads. */
    if (!b->packed && b->avail > CT_BLOCK_HEADER_SIZE &&
        avail < b->avail - CT_BLOCK_HEADER_SIZE && !(b->flags & CT_BLOCK_CLOSED))
        avail = b->avail - CT_BLOCK_HEADER_SIZE;
    if (off >= avail)
        return false;
    const uint8_t *p = data + off, *end = data + avail;
    struct ctr_rec x;
    if (ctr_rec_next(&p, end, b->prefix, false, &x) != CT_REC_EXT ||
        x.subtype != CT_EXT_SWITCH)
        return false;
    uint64_t lost = 0;
    if (!ctr_switch_decode(x.payload, x.len, r->info->ns_per_tick, &c->iv,
                           &c->niv, &c->iv_cap, prev, &lost))
        return false;
    r->info->switches_lost += lost;
    return *prev <= off; /* links go backwards: no loops */
}

void ctr_offcpu_collect(struct ctr_reading *r, struct cursor *c, uint32_t i)
{
    if (i >= c->nblocks + c->npeek || i < c->switches_read)
        return;
    c->switches_read = i + 1;
    const struct block *b = c->blocks[i];
    if (!b || !b->last_switch)
        return;
    r->info->threads[c->thread].oncpu = CT_ONCPU_SWITCH;
    /* Intervals already handed on are dropped; the rest stay sorted. */
    if (c->iv_next) {
        memmove(c->iv, c->iv + c->iv_next,
                (c->niv - c->iv_next) * sizeof *c->iv);
        c->niv -= c->iv_next;
        c->iv_next = 0;
    }
    /* A block looked at only for its late intervals is another piece's:
     * that piece counts its lost switches. */
    uint64_t lost_before = r->info->switches_lost;
    uint32_t link = b->last_switch, guard = 0;
    while (link && guard++ < (1u << 20)) {
        uint32_t prev = 0;
        if (!read_switch(r, c, b, link - 1, &prev))
            break; /* damaged: the intervals read so far stand */
        link = prev;
    }
    if (i >= c->nblocks)
        r->info->switches_lost = lost_before;
    /* The interval being handed on stays first. */
    size_t keep = c->in_off ? 1 : 0;
    if (c->niv > keep)
        qsort(c->iv + keep, c->niv - keep, sizeof *c->iv, cmp_start);
}

uint64_t ctr_offcpu_next(struct cursor *c, bool *start)
{
    if (c->in_off) {
        *start = false;
        uint64_t e = c->iv[c->iv_next].end;
        return e < c->time ? c->time : e;
    }
    /* Intervals wholly in the past (told late, or overlapping the previous
     * one) are over. */
    while (c->iv_next < c->niv && c->iv[c->iv_next].end <= c->time)
        c->iv_next++;
    if (c->iv_next >= c->niv)
        return UINT64_MAX;
    *start = true;
    uint64_t s = c->iv[c->iv_next].start;
    return s < c->time ? c->time : s;
}
