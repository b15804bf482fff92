/*
 * The values of a call that waits on its duration (min=DURATION, :caller):
 * its entry is written only once it is known to be kept (filter.c), so the
 * ARGS record that follows the entry, and the RETVAL record before the
 * exit, are held here meanwhile, and written right after the entry, in
 * that order, with the entry's time.  A frame left out takes its held
 * records with it.  Held records form a stack, as frames do: a record of
 * frame d pushed on entry (ARGS) or return (RETVAL) drops what deeper
 * frames, which have ended, left behind.  Each names its frame by level
 * and entry time, so a later frame at the same level never takes it.
 */
#include <string.h>

#include "preload/filters/filter_state.h"
#include "preload/filters/filter.h"
#include "preload/tracer.h"

int ct_filter_pending(const struct ct_thread *t, uint32_t d)
{
    const struct fthread *f = t->filter;
    return f && d < ct_frames_kept(t) && f->state[d] == FS_PENDING &&
           (t->hidden[d / 64] >> (d % 64) & 1);
}

/* Drops the records of frames above level d, or at it too (at_too). */
static void pop_above(struct fthread *f, uint32_t d, int at_too)
{
    while (f->nheld && (f->held[f->nheld - 1].depth > d ||
                        (at_too && f->held[f->nheld - 1].depth == d))) {
        f->nheld--;
        f->held_used = f->held[f->nheld].off;
    }
}

int ct_filter_hold(struct ct_thread *t, uint32_t d, uint8_t sub,
                   const void *payload, size_t len)
{
    struct fthread *f = t->filter;
    if (!ct_filter_pending(t, d))
        return -1;
    /* ARGS opens the frame's records: anything at its level is an
     * earlier frame's; RETVAL follows its own frame's ARGS. */
    pop_above(f, d, sub == CT_EXT_ARGS);
    if (f->nheld == CT_FHELD_MAX || len > CT_FHELD_BYTES - f->held_used)
        return -1;
    struct fheld *h = &f->held[f->nheld++];
    *h = (struct fheld){d, f->held_used, f->ticks[d], (uint16_t)len, sub};
    memcpy(f->held_buf + f->held_used, payload, len);
    f->held_used += (uint32_t)len;
    return 0;
}

size_t ct_fheld_room(const struct fthread *f)
{
    return f->held_used + 16 * (size_t)f->nheld;
}

void ct_fheld_write(struct ct_thread *t, struct fthread *f, uint32_t d)
{
    for (uint32_t i = 0; i < f->nheld; i++) {
        struct fheld *h = &f->held[i];
        if (h->depth != d || h->ticks != f->ticks[d] || !h->sub)
            continue;
        if (ct_thread_room_left(t) >= (size_t)h->len + 16) {
            /* delta 0: the values carry the entry's time */
            uint8_t *p = ct_enc_ext_head(t->pos, 0, h->sub, h->len);
            memcpy(p, f->held_buf + h->off, h->len);
            t->pos = p + h->len;
        }
        h->sub = 0;  /* reclaimed when the stack pops past it */
    }
}
