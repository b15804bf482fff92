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

struct region {
    void *at;
    size_t len;
};

/* What a context's state is made of, after its head, in order: levels
 * [0, n) of each per-level array, then the held records. */
#define NREGIONS 9
static void regions(struct fthread *f, uint32_t n, uint32_t nheld,
                    uint32_t held_used, struct region r[NREGIONS])
{
    r[0] = (struct region){f->state, n};
    r[1] = (struct region){f->fl, n};
    r[2] = (struct region){f->why, n * sizeof f->why[0]};
    r[3] = (struct region){f->saved, n * sizeof f->saved[0]};
    r[4] = (struct region){f->ticks, n * sizeof f->ticks[0]};
    r[5] = (struct region){f->fmin, n * sizeof f->fmin[0]};
    r[6] = (struct region){f->site, n * sizeof f->site[0]};
    r[7] = (struct region){f->held, nheld * sizeof f->held[0]};
    r[8] = (struct region){f->held_buf, held_used};
}

size_t ct_filter_context_bytes(const struct ct_thread *t, uint32_t levels)
{
    struct fthread *f = t->filter;
    if (!f)
        return 0;
    if (levels > CT_MAX_DEPTH)
        levels = CT_MAX_DEPTH;
    struct region r[NREGIONS];
    regions(f, levels, f->nheld, f->held_used, r);
    size_t n = sizeof(struct fctx_head);
    for (int i = 0; i < NREGIONS; i++)
        n += r[i].len;
    return n;
}

void ct_filter_context_out(const struct ct_thread *t, void *buf,
                           uint32_t levels)
{
    struct fthread *f = t->filter;
    if (!f)
        return;
    if (levels > CT_MAX_DEPTH)
        levels = CT_MAX_DEPTH;
    struct fctx_head h = {f->sc, levels, f->npending, f->nheld,
                          f->held_used};
    struct region r[NREGIONS];
    regions(f, levels, f->nheld, f->held_used, r);
    uint8_t *p = buf;
    memcpy(p, &h, sizeof h);
    p += sizeof h;
    for (int i = 0; i < NREGIONS; i++) {
        memcpy(p, r[i].at, r[i].len);
        p += r[i].len;
    }
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
    const uint8_t *p = buf;
    memcpy(&h, p, sizeof h);
    p += sizeof h;
    f->sc = h.sc;
    f->npending = h.npending;
    f->nheld = h.nheld;
    f->held_used = h.held_used;
    struct region r[NREGIONS];
    regions(f, h.levels, h.nheld, h.held_used, r);
    for (int i = 0; i < NREGIONS; i++) {
        memcpy(r[i].at, p, r[i].len);
        p += r[i].len;
    }
}

uint32_t ct_filter_context_pending(const void *buf)
{
    struct fctx_head h;
    memcpy(&h, buf, sizeof h);
    return h.npending;
}
