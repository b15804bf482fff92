/*
 * Record-time filters across coroutine switches (hot/context.c).  Each
 * context keeps its own frames, and with them what the filters know of
 * each (written, hidden, waiting on its duration, the scope its triggers
 * changed), the scope in force, and the values held for its pending
 * frames.  Kept per thread alone, a coroutine's frames at levels 0, 1, ...
 * took over the state of the frames of the context it left: an entry
 * written twice, and pending frames taken for another context's and lost.
 */
#include <string.h>

#include "preload/filters/filter_state.h"
#include "preload/filters/filter.h"
#include "preload/tracer.h"

struct fctx_head {
    struct fscope sc;
    uint32_t levels, npending, nheld, held_used;
};

/* Bytes of one level's state, in the order out() writes them. */
#define LEVEL_BYTES                                                         \
    (2 * sizeof(uint8_t) + sizeof(uint32_t) + sizeof(struct fscope) +       \
     2 * sizeof(uint64_t) + sizeof(uintptr_t))

static uint8_t *put(uint8_t *p, const void *src, size_t n)
{
    memcpy(p, src, n);
    return p + n;
}

static const uint8_t *get(const uint8_t *p, void *dst, size_t n)
{
    memcpy(dst, p, n);
    return p + n;
}

size_t ct_filter_context_bytes(const struct ct_thread *t, uint32_t levels)
{
    const struct fthread *f = t->filter;
    if (!f)
        return 0;
    if (levels > CT_MAX_DEPTH)
        levels = CT_MAX_DEPTH;
    return sizeof(struct fctx_head) + (size_t)levels * LEVEL_BYTES +
           f->nheld * sizeof f->held[0] + f->held_used;
}

void ct_filter_context_out(const struct ct_thread *t, void *buf,
                           uint32_t levels)
{
    const struct fthread *f = t->filter;
    if (!f)
        return;
    if (levels > CT_MAX_DEPTH)
        levels = CT_MAX_DEPTH;
    struct fctx_head h = {f->sc, levels, f->npending, f->nheld,
                          f->held_used};
    uint8_t *p = put(buf, &h, sizeof h);
    p = put(p, f->state, levels);
    p = put(p, f->fl, levels);
    p = put(p, f->why, levels * sizeof f->why[0]);
    p = put(p, f->saved, levels * sizeof f->saved[0]);
    p = put(p, f->ticks, levels * sizeof f->ticks[0]);
    p = put(p, f->fmin, levels * sizeof f->fmin[0]);
    p = put(p, f->site, levels * sizeof f->site[0]);
    p = put(p, f->held, f->nheld * sizeof f->held[0]);
    put(p, f->held_buf, f->held_used);
}

void ct_filter_context_in(struct ct_thread *t, const void *buf)
{
    struct fthread *f = t->filter;
    if (!f)
        return;
    if (!buf) {
        /* A context entered for the first time has no frame yet: nothing
         * pending, nothing held; its first frames take the scope in force
         * where it was entered, as calls made there would. */
        f->npending = 0;
        f->nheld = 0;
        f->held_used = 0;
        return;
    }
    struct fctx_head h;
    const uint8_t *p = get(buf, &h, sizeof h);
    uint32_t n = h.levels;
    f->sc = h.sc;
    f->npending = h.npending;
    f->nheld = h.nheld;
    f->held_used = h.held_used;
    p = get(p, f->state, n);
    p = get(p, f->fl, n);
    p = get(p, f->why, n * sizeof f->why[0]);
    p = get(p, f->saved, n * sizeof f->saved[0]);
    p = get(p, f->ticks, n * sizeof f->ticks[0]);
    p = get(p, f->fmin, n * sizeof f->fmin[0]);
    p = get(p, f->site, n * sizeof f->site[0]);
    p = get(p, f->held, h.nheld * sizeof f->held[0]);
    get(p, f->held_buf, h.held_used);
}

uint32_t ct_filter_context_pending(const void *buf)
{
    struct fctx_head h;
    memcpy(&h, buf, sizeof h);
    return h.npending;
}
