/*
 * Per-call time distributions (profile_dist.h).  Every frame the profile
 * closes passes here (profile_run.h's ct_prof_run_leave, which every
 * decoding route uses); a frame that a matching return closed, entered by
 * a call the profile counted, adds its total and self time to its arc's
 * histograms.  Every such call entered its function by one arc, so the
 * function's histograms are its arcs' merged (exactly) at the end: half
 * the work per call.  A call whose self time is its total (a leaf's) is
 * added once, to the arc's "same" histogram, merged into both at the end:
 * half again for the most frequent calls.
 *
 * A thread decoded in pieces (profile_parts.c) splits the calls open at a
 * piece's end in two: the piece records their part up to its end (the
 * tail), and the next piece the rest of the frames it inherited through
 * its STACK record (the head).  The merge joins them, in the thread's
 * order, into the calls one profile of the whole trace would have seen,
 * so that the histograms are the same for every number of jobs.
 */
#include <stdlib.h>
#include <string.h>

#include "analyzer/model/profile_dist.h"
#include "analyzer/model/profile_private.h"
#include "analyzer/util.h"

/* A frame's part in one piece. */
struct piece_frame {
    uint32_t pos;           /* its position on the thread's stack        */
    uint32_t func, arc;
    uint64_t span, self;
    uint8_t how;            /* CT_CLOSE_*                                */
    bool inherited, counted;
};

struct frames {
    struct piece_frame *v;
    size_t n, cap;
};

struct dist_thread {
    struct frames head;     /* inherited frames this piece closed        */
    struct frames tail;     /* frames open at this piece's end           */
    struct frames carry;    /* whole: frames open across pieces, by pos  */
    uint64_t *entry;        /* --slowest: entry time by stack position   */
    size_t entry_cap;
};

struct ct_prof_dist {
    struct ct_call_dist *funcs, *arcs;
    size_t nfuncs, narcs;         /* valid entries (zeroed up to cap)    */
    size_t funcs_cap, arcs_cap;
    struct dist_thread *threads;
    size_t nthreads;
    struct ct_profile_state *state;
    bool capture;           /* closing a piece whose frames go on        */
    uint32_t slow_n;        /* --slowest: calls kept per function        */
    struct ct_slow_call **slow;
    uint32_t *nslow;
    size_t nslow_funcs;
};

static void publish(struct ct_profile_state *s);

void ct_prof_dist_new(struct ct_profile *p)
{
    struct ct_profile_state *s = p->state;
    if (!p->opts.stats && !p->opts.slowest)
        return;
    s->dist = ct_xcalloc(1, sizeof *s->dist);
    s->dist->state = s;
    s->dist->slow_n = p->opts.slowest;
    publish(s);
    /* --slowest needs each call's wall start: the general path keeps it */
    s->no_runs = p->opts.slowest != 0;
}

static struct dist_thread *dist_thread(struct ct_prof_dist *d, uint32_t t)
{
    ct_grow_zeroed(&d->threads, &d->nthreads, t, sizeof *d->threads);
    return &d->threads[t];
}

/* Entry i of a table that grows by doubling, zeroed when new. */
static struct ct_call_dist *dist_at(struct ct_call_dist **v, size_t *n,
                                    size_t *cap, size_t i)
{
    if (i >= *cap) {
        size_t c = *cap ? *cap : 64;
        while (c <= i)
            c *= 2;
        *v = ct_xrealloc(*v, c * sizeof **v);
        memset(*v + *cap, 0, (c - *cap) * sizeof **v);
        *cap = c;
    }
    if (i >= *n)
        *n = i + 1;
    return &(*v)[i];
}

static struct ct_call_dist *func_dist(struct ct_prof_dist *d, uint32_t f)
{
    return dist_at(&d->funcs, &d->nfuncs, &d->funcs_cap, f);
}

/* The state's copy for the inline case (profile_private.h). */
static void publish(struct ct_profile_state *s)
{
    struct ct_prof_dist *d = s->dist;
    s->dist_arcs = d->arcs;
    s->dist_narcs = d->narcs;
    s->dist_simple = !d->capture && !d->slow_n;
}

static struct ct_call_dist *arc_dist(struct ct_prof_dist *d, uint32_t a)
{
    struct ct_call_dist *r = dist_at(&d->arcs, &d->narcs, &d->arcs_cap, a);
    publish(d->state);
    return r;
}

static inline __attribute__((always_inline)) void
record(struct ct_prof_dist *d, uint32_t arc,
                          uint64_t span, uint64_t self)
{
    ct_prof_dist_add(arc < d->narcs ? &d->arcs[arc] : arc_dist(d, arc),
                     span, self);
}

static bool slower(const struct ct_slow_call *a, const struct ct_slow_call *b)
{
    if (a->total != b->total)
        return a->total > b->total;
    if (a->start != b->start)
        return a->start < b->start;
    return a->thread < b->thread;
}

/* Keeps the slow_n slowest calls of func, sorted. */
static void slow_add(struct ct_prof_dist *d, uint32_t func,
                     const struct ct_slow_call *c)
{
    if (func >= d->nslow_funcs) {
        size_t old = d->nslow_funcs;
        size_t n = old ? old : 16;
        while (n <= func)
            n *= 2;
        d->slow = ct_xrealloc(d->slow, n * sizeof *d->slow);
        d->nslow = ct_xrealloc(d->nslow, n * sizeof *d->nslow);
        memset(d->slow + old, 0, (n - old) * sizeof *d->slow);
        memset(d->nslow + old, 0, (n - old) * sizeof *d->nslow);
        d->nslow_funcs = n;
    }
    struct ct_slow_call *v = d->slow[func];
    uint32_t n = d->nslow[func];
    if (!v)
        v = d->slow[func] = ct_xcalloc(d->slow_n, sizeof *v);
    if (n == d->slow_n && !slower(c, &v[n - 1]))
        return;
    uint32_t i = n < d->slow_n ? n : n - 1;
    while (i > 0 && slower(c, &v[i - 1])) {
        v[i] = v[i - 1];
        i--;
    }
    v[i] = *c;
    if (n < d->slow_n)
        d->nslow[func] = n + 1;
}

static void frames_push(struct frames *f, const struct piece_frame *e)
{
    ct_grow(&f->v, &f->cap, f->n, sizeof *f->v);
    f->v[f->n++] = *e;
}

void ct_prof_dist_entry(struct ct_profile *p, struct ct_pthread *th)
{
    struct ct_prof_dist *d = p->state->dist;
    if (!d->slow_n || !th->depth)
        return;
    struct dist_thread *dt =
        dist_thread(d, (uint32_t)(th - p->state->threads));
    size_t pos = th->depth - 1;
    if (pos >= dt->entry_cap) {
        size_t n = dt->entry_cap ? dt->entry_cap : 64;
        while (n <= pos)
            n *= 2;
        dt->entry = ct_xrealloc(dt->entry, n * sizeof *dt->entry);
        dt->entry_cap = n;
    }
    dt->entry[pos] = th->cur;
}

void ct_prof_dist_leave(struct ct_profile *p, struct ct_pthread *th,
                        uint32_t thread, const struct ct_frame *fr,
                        uint64_t span, unsigned how)
{
    struct ct_prof_dist *d = p->state->dist;
    if (__builtin_expect(how == CT_CLOSE_RETURN && fr->counted &&
                         !d->capture && !fr->inherited && !d->slow_n, 1)) {
        record(d, fr->arc, span, fr->self);
        return;
    }
    uint32_t pos = (uint32_t)(fr - th->stack);
    if (d->capture || fr->inherited) {
        struct piece_frame e = {
            .pos = pos, .func = fr->func, .arc = fr->arc, .span = span,
            .self = fr->self, .how = (uint8_t)how,
            .inherited = fr->inherited, .counted = fr->counted,
        };
        struct dist_thread *dt = dist_thread(d, thread);
        frames_push(d->capture ? &dt->tail : &dt->head, &e);
        return;
    }
    if (how != CT_CLOSE_RETURN || !fr->counted)
        return;
    if (p->opts.stats)
        record(d, fr->arc, span, fr->self);
    if (d->slow_n) {
        struct dist_thread *dt = dist_thread(d, thread);
        struct ct_slow_call c = {
            .total = span, .self = fr->self, .thread = thread,
            .start = pos < dt->entry_cap ? dt->entry[pos] : 0,
            .end = th->cur,
        };
        slow_add(d, fr->func, &c);
    }
}

void ct_prof_dist_piece_end(struct ct_profile *part, bool capture)
{
    if (part->state->dist) {
        part->state->dist->capture = capture;
        publish(part->state);
    }
}

void ct_prof_dist_move_arc(struct ct_profile *p, uint32_t to, uint32_t from)
{
    struct ct_prof_dist *d = p->state->dist;
    if (!d || to == from || from >= d->narcs)
        return;
    arc_dist(d, to);
    ct_hist_free(&d->arcs[to].total);
    ct_hist_free(&d->arcs[to].self);
    ct_hist_free(&d->arcs[to].same);
    d->arcs[to] = d->arcs[from];
    memset(&d->arcs[from], 0, sizeof d->arcs[from]);
}

static void merge_dist(struct ct_call_dist *into, const struct ct_call_dist *a)
{
    ct_hist_merge(&into->total, &a->total);
    ct_hist_merge(&into->self, &a->self);
    ct_hist_merge(&into->same, &a->same);
}

/* The whole's arc of a part's arc. */
static uint32_t whole_arc(struct ct_profile *whole, const struct ct_profile *part,
                          const uint32_t *func_map, uint32_t arc)
{
    const struct ct_arc *b = &part->arcs[arc];
    uint32_t caller =
        b->caller == CT_FUNC_NONE ? CT_FUNC_NONE : func_map[b->caller];
    return ct_prof_arc(whole, caller, func_map[b->callee]);
}

/* Joins a piece's head to the frames carried from the pieces before, and
 * carries its tail on. */
static void merge_piece(struct ct_profile *whole, struct ct_profile *part,
                        const uint32_t *func_map, struct dist_thread *w,
                        const struct dist_thread *t)
{
    struct ct_prof_dist *wd = whole->state->dist;
    struct frames *carry = &w->carry;
    for (size_t i = 0; i < t->head.n; i++) {
        const struct piece_frame *h = &t->head.v[i];
        if (h->pos >= carry->n)
            continue;
        const struct piece_frame *c = &carry->v[h->pos];
        if (h->how == CT_CLOSE_RETURN && c->counted && whole->opts.stats)
            record(wd, c->arc, c->span + h->span, c->self + h->self);
    }
    size_t depth = 0;
    for (size_t i = 0; i < t->tail.n; i++)
        if (t->tail.v[i].pos + 1 > depth)
            depth = t->tail.v[i].pos + 1;
    while (carry->cap < depth)
        ct_grow(&carry->v, &carry->cap, carry->cap, sizeof *carry->v);
    for (size_t i = 0; i < t->tail.n; i++) {
        const struct piece_frame *e = &t->tail.v[i];
        struct piece_frame *c = &carry->v[e->pos];
        if (e->inherited && e->pos < carry->n) {
            c->span += e->span;
            c->self += e->self;
            continue;
        }
        *c = *e;
        c->func = func_map[e->func];
        c->arc = whole_arc(whole, part, func_map, e->arc);
    }
    carry->n = depth;
}

void ct_prof_dist_merge(struct ct_profile *whole, struct ct_profile *part,
                        const uint32_t *func_map)
{
    struct ct_prof_dist *wd = whole->state->dist, *pd = part->state->dist;
    if (!wd || !pd)
        return;
    for (size_t a = 0; a < pd->narcs && a < part->narcs; a++)
        if (pd->arcs[a].total.count || pd->arcs[a].same.count)
            merge_dist(arc_dist(wd, whole_arc(whole, part, func_map,
                                              (uint32_t)a)),
                       &pd->arcs[a]);
    for (size_t i = 0; i < pd->nthreads; i++) {
        struct dist_thread *t = &pd->threads[i];
        if (t->head.n || t->tail.n)
            merge_piece(whole, part, func_map,
                        dist_thread(wd, (uint32_t)i), t);
    }
}

void ct_prof_dist_finish(struct ct_profile *p)
{
    struct ct_prof_dist *d = p->state->dist;
    if (!d)
        return;
    for (uint32_t a = 0; a < d->narcs && a < p->narcs; a++) {
        struct ct_call_dist *ad = &d->arcs[a];
        ct_hist_merge(&ad->total, &ad->same);
        ct_hist_merge(&ad->self, &ad->same);
        ct_hist_free(&ad->same);
        if (ad->total.count)
            merge_dist(func_dist(d, p->arcs[a].callee), ad);
    }
}

void ct_prof_dist_free(struct ct_profile *p)
{
    struct ct_prof_dist *d = p->state->dist;
    if (!d)
        return;
    for (size_t i = 0; i < d->nfuncs; i++) {
        ct_hist_free(&d->funcs[i].total);
        ct_hist_free(&d->funcs[i].self);
    }
    for (size_t i = 0; i < d->narcs; i++) {
        ct_hist_free(&d->arcs[i].total);
        ct_hist_free(&d->arcs[i].self);
        ct_hist_free(&d->arcs[i].same);
    }
    for (size_t i = 0; i < d->nthreads; i++) {
        free(d->threads[i].head.v);
        free(d->threads[i].tail.v);
        free(d->threads[i].carry.v);
        free(d->threads[i].entry);
    }
    for (size_t i = 0; i < d->nslow_funcs; i++)
        free(d->slow[i]);
    free(d->slow);
    free(d->nslow);
    free(d->funcs);
    free(d->arcs);
    free(d->threads);
    free(d);
    p->state->dist = NULL;
    p->state->dist_arcs = NULL;
    p->state->dist_narcs = 0;
}

const struct ct_call_dist *ct_profile_func_dist(const struct ct_profile *p,
                                                uint32_t func)
{
    const struct ct_prof_dist *d = p->state->dist;
    if (!d || func >= d->nfuncs || !d->funcs[func].total.count)
        return NULL;
    return &d->funcs[func];
}

const struct ct_call_dist *ct_profile_arc_dist(const struct ct_profile *p,
                                               uint32_t arc)
{
    const struct ct_prof_dist *d = p->state->dist;
    if (!d || arc >= d->narcs || !d->arcs[arc].total.count)
        return NULL;
    return &d->arcs[arc];
}

size_t ct_profile_slowest(const struct ct_profile *p, uint32_t func,
                          const struct ct_slow_call **calls)
{
    const struct ct_prof_dist *d = p->state->dist;
    *calls = NULL;
    if (!d || func >= d->nslow_funcs)
        return 0;
    *calls = d->slow[func];
    return d->nslow[func];
}

uint64_t ct_profile_origin(const struct ct_profile *p)
{
    return p->state->origin;
}
