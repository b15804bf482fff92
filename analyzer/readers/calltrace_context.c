/*
 * calltrace binary reader: coroutines.  A CONTEXT record says the thread
 * runs another context (a coroutine's stack) from there on; each context
 * keeps its own call stack, so its events go to a lane of their own, a
 * thread of the model labelled "thread TID context N", and every view
 * shows its frames where they ran.  A lane's open frames are taken from
 * the record the first time the lane is met (a reading that began at a
 * later block); afterwards its own events say them.
 */
#include <string.h>

#include "analyzer/readers/calltrace_reader.h"
#include "analyzer/readers/calltrace_record.h"
#include "analyzer/util.h"

/* The lane of context id, made the first time. */
static struct ctr_lane *lane_of(struct ctr_reading *r, struct cursor *c, uint64_t id)
{
    for (size_t i = 0; i < c->nlanes; i++)
        if (c->lanes[i].id == id)
            return &c->lanes[i];
    ct_grow(&c->lanes, &c->lanes_cap, c->nlanes, sizeof *c->lanes);
    struct ctr_lane *l = &c->lanes[c->nlanes++];
    memset(l, 0, sizeof *l);
    l->id = id;
    if (id == 0) {
        l->thread = c->thread;
        l->known = c->own_known;
    } else {
        struct ct_trace_info *info = r->info;
        uint64_t tid = info->threads[c->thread].tid;
        l->thread = ct_trace_thread_new(info, tid);
        info->threads[l->thread].context = id;
        info->threads[l->thread].oncpu = info->threads[c->thread].oncpu;
    }
    return l;
}

struct ctr_lane *ctr_context_leave(struct ctr_reading *r, struct cursor *c)
{
    /* Before the first CONTEXT record the thread runs its own stack. */
    return c->lane ? &c->lanes[c->lane - 1] : lane_of(r, c, 0);
}

struct ctr_lane *ctr_context_enter(struct ctr_reading *r, struct cursor *c,
                                   uint64_t id)
{
    struct ctr_lane *l = lane_of(r, c, id);
    c->lane = (uint32_t)(l - c->lanes) + 1;
    return l;
}

bool ctr_context_ahead(const uint8_t *q, const uint8_t *end, bool prefix,
                       uint64_t *id)
{
    struct ctr_rec x;
    while (q < end && *q) {
        if (ctr_rec_next(&q, end, prefix, false, &x) != CT_REC_EXT)
            return false;
        const uint8_t *p = x.payload;
        if (x.subtype == CT_EXT_CONTEXT)
            return ct_get_varint(&p, p + x.len, id) == 0;
    }
    return false;
}
