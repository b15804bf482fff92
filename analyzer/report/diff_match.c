/*
 * Matching the functions and arcs of two runs (diff_match.h): sort-based,
 * so that the result does not depend on the order of the input.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/report/diff_match.h"
#include "analyzer/util.h"

static const char *nz(const char *s)
{
    return s ? s : "";
}

static void add_vals(struct ct_diff_vals *a, const struct ct_diff_vals *b)
{
    a->calls += b->calls;
    a->self_ns += b->self_ns;
    a->total_ns += b->total_ns;
    /* quantiles do not add: the larger one bounds the merged calls' p99
     * from below, and no finer figure is kept here */
    if (isnan(b->p99_ns) || b->p99_ns > a->p99_ns)
        a->p99_ns = b->p99_ns;  /* unknown (NAN) stays unknown */
}

static bool empty(const struct ct_diff_vals *v)
{
    return !v->calls && v->self_ns == 0 && v->total_ns == 0;
}

/* A function of one run, as sorted for matching. */
struct entry {
    const struct ct_diff_fn *fn;
    uint8_t side;
    uint32_t index;
};

static int by_name_file(const void *a, const void *b)
{
    const struct entry *x = a, *y = b;
    int c = strcmp(x->fn->name, y->fn->name);
    if (!c)
        c = strcmp(nz(x->fn->file), nz(y->fn->file));
    if (!c)
        c = (int)x->side - (int)y->side;
    if (!c)
        c = x->index < y->index ? -1 : x->index > y->index;
    return c;
}

static struct entry *collect(const struct ct_diff_side side[2], size_t *n)
{
    struct entry *e = ct_xcalloc(side[0].nfns + side[1].nfns + 1, sizeof *e);
    *n = 0;
    for (uint8_t s = 0; s < 2; s++)
        for (size_t i = 0; i < side[s].nfns; i++)
            if (side[s].fns[i].name && !empty(&side[s].fns[i].v))
                e[(*n)++] = (struct entry){&side[s].fns[i], s, (uint32_t)i};
    qsort(e, *n, sizeof *e, by_name_file);
    return e;
}

/* One row per (name, file); map[s][i] = row of function i of run s. */
static void match_exact(struct ct_diff *d, const struct ct_diff_side side[2],
                        uint32_t *map[2])
{
    size_t n;
    struct entry *e = collect(side, &n);
    d->funcs = ct_xcalloc(n + 1, sizeof *d->funcs);
    d->nfuncs = 0;
    for (size_t i = 0; i < n; i++) {
        if (!i || strcmp(e[i].fn->name, e[i - 1].fn->name) ||
            strcmp(nz(e[i].fn->file), nz(e[i - 1].fn->file)))
            d->funcs[d->nfuncs++] = (struct ct_diff_row){
                .name = e[i].fn->name, .file = e[i].fn->file,
                .caller = CT_DIFF_NONE, .callee = CT_DIFF_NONE};
        struct ct_diff_row *r = &d->funcs[d->nfuncs - 1];
        r->in[e[i].side] = true;
        add_vals(&r->v[e[i].side], &e[i].fn->v);
        map[e[i].side][e[i].index] = (uint32_t)(d->nfuncs - 1);
    }
    free(e);
}

/* Rows of one run only whose name no other such row has, in either run,
 * join their counterpart: forward[r] is the row r became. */
static void match_by_name(struct ct_diff *d, uint32_t *forward)
{
    /* the rows are sorted by name, then file: a name's rows are adjacent */
    size_t i = 0;
    while (i < d->nfuncs) {
        size_t j = i + 1, lone[2] = {0, 0}, at[2] = {0, 0};
        while (j < d->nfuncs && !strcmp(d->funcs[j].name, d->funcs[i].name))
            j++;
        for (size_t k = i; k < j; k++)
            for (int s = 0; s < 2; s++)
                if (d->funcs[k].in[s] && !d->funcs[k].in[!s])
                    lone[s]++, at[s] = k;
        if (lone[0] == 1 && lone[1] == 1) {
            struct ct_diff_row *o = &d->funcs[at[0]], *n = &d->funcs[at[1]];
            o->in[1] = true;
            o->v[1] = n->v[1];
            if (!o->file || !*o->file)
                o->file = n->file;
            forward[at[1]] = (uint32_t)at[0];
            n->in[1] = false;
        }
        i = j;
    }
}

/* Drops the rows that joined another; forward then maps to the new
 * places. */
static void compact(struct ct_diff *d, uint32_t *forward)
{
    uint32_t *place = ct_xcalloc(d->nfuncs + 1, sizeof *place);
    size_t n = 0;
    for (size_t r = 0; r < d->nfuncs; r++)
        if (forward[r] == r) {
            place[r] = (uint32_t)n;
            d->funcs[n] = d->funcs[r];
            d->funcs[n].id = (uint32_t)n;
            n++;
        }
    for (size_t r = 0; r < d->nfuncs; r++)
        forward[r] = place[forward[r]];
    d->nfuncs = n;
    free(place);
}

static int by_ends(const void *a, const void *b)
{
    const struct ct_diff_row *x = a, *y = b;
    if (x->caller != y->caller)
        return x->caller < y->caller ? -1 : 1;
    if (x->callee != y->callee)
        return x->callee < y->callee ? -1 : 1;
    return (int)x->in[1] - (int)y->in[1];
}

/* Arcs by the rows of their ends: one row per (caller, callee). */
static void match_arcs(struct ct_diff *d, const struct ct_diff_side side[2],
                       uint32_t *map[2], const uint32_t *forward)
{
    struct ct_diff_row *a = ct_xcalloc(side[0].narcs + side[1].narcs + 1,
                                       sizeof *a);
    size_t n = 0;
    for (int s = 0; s < 2; s++)
        for (size_t i = 0; i < side[s].narcs; i++) {
            const struct ct_diff_arc *arc = &side[s].arcs[i];
            if (arc->callee >= side[s].nfns || empty(&arc->v) ||
                (arc->caller != CT_DIFF_NONE && arc->caller >= side[s].nfns))
                continue;
            uint32_t callee = map[s][arc->callee];
            uint32_t caller = arc->caller == CT_DIFF_NONE
                                  ? CT_DIFF_NONE : map[s][arc->caller];
            if (callee == CT_DIFF_NONE ||
                (arc->caller != CT_DIFF_NONE && caller == CT_DIFF_NONE))
                continue;   /* an end left out: nameless or never called */
            struct ct_diff_row *r = &a[n++];
            *r = (struct ct_diff_row){
                .caller = caller == CT_DIFF_NONE ? caller : forward[caller],
                .callee = forward[callee]};
            r->in[s] = true;
            r->v[s] = arc->v;
        }
    qsort(a, n, sizeof *a, by_ends);
    d->narcs = 0;
    for (size_t i = 0; i < n; i++) {
        struct ct_diff_row *last = d->narcs ? &a[d->narcs - 1] : NULL;
        if (!last || last->caller != a[i].caller ||
            last->callee != a[i].callee) {
            a[d->narcs++] = a[i];
            continue;
        }
        for (int s = 0; s < 2; s++)
            if (a[i].in[s]) {
                last->in[s] = true;
                add_vals(&last->v[s], &a[i].v[s]);
            }
    }
    d->arcs = a;
}

void ct_diff_build(struct ct_diff *d, const struct ct_diff_side side[2])
{
    memset(d, 0, sizeof *d);
    uint32_t *map[2];
    for (int s = 0; s < 2; s++) {
        map[s] = ct_xmalloc((side[s].nfns + 1) * sizeof *map[s]);
        memset(map[s], 0xff, (side[s].nfns + 1) * sizeof *map[s]);
    }
    match_exact(d, side, map);
    uint32_t *forward = ct_xcalloc(d->nfuncs + 1, sizeof *forward);
    for (size_t r = 0; r < d->nfuncs; r++)
        forward[r] = (uint32_t)r;
    match_by_name(d, forward);
    compact(d, forward);
    match_arcs(d, side, map, forward);
    free(forward);
    free(map[0]);
    free(map[1]);
}

void ct_diff_free(struct ct_diff *d)
{
    free(d->funcs);
    free(d->arcs);
    memset(d, 0, sizeof *d);
}

static double change(const struct ct_diff_row *r, int which)
{
    if (which == 0)
        return fabs(r->v[1].self_ns - r->v[0].self_ns);
    if (which == 1)
        return fabs(r->v[1].total_ns - r->v[0].total_ns);
    return fabs((double)r->v[1].calls - (double)r->v[0].calls);
}

static const char *row_name(const struct ct_diff *d, const struct ct_diff_row *r,
                            bool caller)
{
    uint32_t f = caller ? r->caller : r->callee;
    return f == CT_DIFF_NONE ? "" : d->funcs[f].name;
}

static int by_change(const void *a, const void *b, void *ctx)
{
    const struct ct_diff_row *x = a, *y = b;
    const struct ct_diff *d = ctx;
    for (int k = 0; k < 3; k++) {
        double cx = change(x, k), cy = change(y, k);
        if (cx != cy)
            return cx > cy ? -1 : 1;
    }
    if (x->name && y->name) {
        int c = strcmp(x->name, y->name);
        return c ? c : strcmp(nz(x->file), nz(y->file));
    }
    int c = strcmp(row_name(d, x, true), row_name(d, y, true));
    return c ? c : strcmp(row_name(d, x, false), row_name(d, y, false));
}

void ct_diff_sort(struct ct_diff_row *rows, size_t n, const struct ct_diff *d)
{
    qsort_r(rows, n, sizeof *rows, by_change, (void *)d);
}

bool ct_diff_shown(const struct ct_diff_row *r, double min_ns)
{
    return r->in[0] != r->in[1] || r->v[0].calls != r->v[1].calls ||
           change(r, 0) >= min_ns || change(r, 1) >= min_ns;
}
