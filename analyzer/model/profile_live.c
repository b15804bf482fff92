/*
 * The profile while events still arrive.  A function's times reach its
 * ct_fstats when a frame of it returns; a function running a long loop
 * would show nothing until then.  Here the open frames are added: their
 * self ticks so far, and for the outermost frame of each function its
 * span so far less what its returned inner frames already put in
 * self_ticks (the same sums leave() makes at the return).
 */
#include <string.h>

#include "analyzer/model/profile_live.h"
#include "analyzer/model/profile_private.h"

void ct_profile_live(const struct ct_profile *p, struct ct_live_fstats *out,
                     uint32_t n)
{
    memset(out, 0, (size_t)n * sizeof *out);
    uint32_t known = p->nfuncs < n ? p->nfuncs : n;
    for (uint32_t i = 0; i < known; i++) {
        const struct ct_fstats *f = &p->funcs[i];
        out[i].calls = f->calls + f->self_calls;
        out[i].self_ticks = f->self_ticks;
        out[i].total_ticks = f->self_ticks + f->child_ticks;
    }
    const struct ct_profile_state *s = p->state;
    for (size_t t = 0; t < s->nthreads; t++) {
        const struct ct_pthread *th = &s->threads[t];
        for (size_t d = 0; d < th->depth; d++) {
            const struct ct_frame *fr = &th->stack[d];
            if (fr->func >= known)
                continue;
            out[fr->func].self_ticks += fr->self;
            if (fr->outer_pos == d)
                out[fr->func].total_ticks +=
                    th->clock - fr->entry_clock - fr->inner_self;
        }
    }
}

uint64_t ct_profile_live_now(const struct ct_profile *p)
{
    const struct ct_profile_state *s = p->state;
    uint64_t now = 0;
    for (size_t t = 0; t < s->nthreads; t++)
        if (s->threads[t].seen && s->threads[t].cur > now)
            now = s->threads[t].cur;
    return now;
}

uint64_t ct_profile_live_first(const struct ct_profile *p)
{
    const struct ct_profile_state *s = p->state;
    uint64_t first = UINT64_MAX;
    for (size_t t = 0; t < s->nthreads; t++)
        if (s->threads[t].seen && s->threads[t].first < first)
            first = s->threads[t].first;
    return first == UINT64_MAX ? 0 : first;
}
