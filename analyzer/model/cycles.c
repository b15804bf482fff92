/*
 * Cycles: strongly connected components of more than one function in the
 * call graph (self-arcs left out), found with an iterative Tarjan, numbered
 * like gprof, and the time attribution that makes a cycle one unit: arcs
 * inside it keep their counts only, arcs entering it carry the cycle's
 * time.  docs/analysis.md derives why the sums stay exact.
 */
#include <stdlib.h>
#include <string.h>

#include "analyzer/model/profile_private.h"
#include "analyzer/util.h"

#define UNSEEN UINT32_MAX

uint32_t ct_scc(uint32_t n, const uint32_t *off, const uint32_t *succ,
                uint32_t *comp)
{
    uint32_t *index = ct_xmalloc((size_t)n * sizeof *index);
    uint32_t *low = ct_xmalloc((size_t)n * sizeof *low);
    uint32_t *stack = ct_xmalloc((size_t)n * sizeof *stack);
    uint32_t *call = ct_xmalloc((size_t)n * sizeof *call);  /* node      */
    uint32_t *edge = ct_xmalloc((size_t)n * sizeof *edge);  /* next edge */
    bool *on = ct_xcalloc(n ? n : 1, sizeof *on);
    for (uint32_t i = 0; i < n; i++)
        index[i] = UNSEEN;
    uint32_t next = 0, sp = 0, ncomp = 0;
    for (uint32_t root = 0; root < n; root++) {
        if (index[root] != UNSEEN)
            continue;
        uint32_t cp = 0;
        call[cp] = root;
        edge[cp++] = off[root];
        index[root] = low[root] = next++;
        stack[sp++] = root;
        on[root] = true;
        while (cp) {
            uint32_t v = call[cp - 1];
            if (edge[cp - 1] < off[v + 1]) {
                uint32_t w = succ[edge[cp - 1]++];
                if (index[w] == UNSEEN) {
                    index[w] = low[w] = next++;
                    stack[sp++] = w;
                    on[w] = true;
                    call[cp] = w;
                    edge[cp++] = off[w];
                } else if (on[w] && index[w] < low[v]) {
                    low[v] = index[w];
                }
                continue;
            }
            cp--;
            if (low[v] == index[v]) {
                uint32_t w;
                do {
                    w = stack[--sp];
                    on[w] = false;
                    comp[w] = ncomp;
                } while (w != v);
                ncomp++;
            }
            if (cp) {
                uint32_t u = call[cp - 1];
                if (low[v] < low[u])
                    low[u] = low[v];
            }
        }
    }
    free(index);
    free(low);
    free(stack);
    free(call);
    free(edge);
    free(on);
    return ncomp;
}

void ct_apportion(uint64_t total, const uint64_t *weight, uint64_t *share,
                  size_t n)
{
    if (!n)
        return;
    unsigned __int128 sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += weight[i];
    uint64_t given = 0;
    for (size_t i = 0; i < n; i++) {
        share[i] = sum ? (uint64_t)((unsigned __int128)total * weight[i] / sum)
                       : total / n;
        given += share[i];
    }
    /* Hand out what rounding left, one tick each, largest remainder
     * first (ties to the earlier entry). */
    while (given < total) {
        size_t best = 0;
        unsigned __int128 best_rem = 0;
        bool found = false;
        for (size_t i = 0; i < n; i++) {
            unsigned __int128 rem =
                sum ? (unsigned __int128)total * weight[i] -
                          (unsigned __int128)share[i] * sum
                    : (unsigned __int128)(share[i] == total / n);
            if (!found || rem > best_rem) {
                best = i;
                best_rem = rem;
                found = true;
            }
        }
        share[best]++;
        given++;
    }
}

/* gprof numbers cycles in the order of their members' addresses; names
 * from text formats have none, so their order of first appearance stands
 * in. */
static uint64_t order_key(struct ct_profile *p, uint32_t func)
{
    const struct ct_func *f = ct_functab_get(p->info->funcs, func);
    return f && f->addr ? f->addr : func;
}

static int cmp_key(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b;
    return x[0] < y[0] ? -1 : x[0] > y[0];
}

static void attribute(struct ct_profile *p)
{
    uint32_t nc = p->ncycles;
    uint64_t *cself = ct_xcalloc(nc + 1, sizeof *cself);
    uint32_t *nenter = ct_xcalloc(nc + 2, sizeof *nenter);
    for (uint32_t f = 0; f < p->nfuncs; f++) {
        int32_t c = p->funcs[f].cycle;
        if (c) {
            cself[c] += p->funcs[f].self_ticks;
            p->funcs[f].child_ticks = 0;
            p->funcs[f].off_child_ticks = 0;
        }
    }
    for (uint32_t a = 0; a < p->narcs; a++) {
        struct ct_arc *arc = &p->arcs[a];
        int32_t ce = p->funcs[arc->callee].cycle;
        int32_t cr = arc->caller == CT_FUNC_NONE ? 0
                                                  : p->funcs[arc->caller].cycle;
        if (ce && ce == cr) {
            arc->self_ticks = arc->child_ticks = 0;
            arc->off_self_ticks = arc->off_child_ticks = 0;
        } else {
            if (cr) {
                p->funcs[arc->caller].child_ticks +=
                    arc->self_ticks + arc->child_ticks;
                p->funcs[arc->caller].off_child_ticks +=
                    arc->off_self_ticks + arc->off_child_ticks;
            }
            if (ce)
                nenter[ce + 1]++;
        }
    }
    for (uint32_t c = 1; c <= nc; c++)
        nenter[c + 1] += nenter[c];
    uint32_t *list = ct_xcalloc(nenter[nc + 1] + 1, sizeof *list);
    uint32_t *fill = ct_xcalloc(nc + 2, sizeof *fill);
    memcpy(fill, nenter, (nc + 2) * sizeof *fill);
    for (uint32_t a = 0; a < p->narcs; a++) {
        struct ct_arc *arc = &p->arcs[a];
        int32_t ce = p->funcs[arc->callee].cycle;
        int32_t cr = arc->caller == CT_FUNC_NONE ? 0
                                                  : p->funcs[arc->caller].cycle;
        if (ce && ce != cr)
            list[fill[ce]++] = a;
    }
    uint64_t *w = ct_xcalloc(nenter[nc + 1] + 1, sizeof *w);
    uint64_t *share = ct_xcalloc(nenter[nc + 1] + 1, sizeof *share);
    for (uint32_t c = 1; c <= nc; c++) {
        uint32_t lo = nenter[c], n = nenter[c + 1] - lo;
        uint64_t total = 0;
        for (uint32_t i = 0; i < n; i++) {
            const struct ct_arc *arc = &p->arcs[list[lo + i]];
            w[i] = arc->self_ticks + arc->child_ticks;
            total += w[i];
        }
        uint64_t self = cself[c] < total ? cself[c] : total;
        ct_apportion(self, w, share, n);
        for (uint32_t i = 0; i < n; i++) {
            struct ct_arc *arc = &p->arcs[list[lo + i]];
            arc->self_ticks = share[i];
            arc->child_ticks = w[i] - share[i];
        }
    }
    free(cself);
    free(nenter);
    free(list);
    free(fill);
    free(w);
    free(share);
}

void ct_prof_find_cycles(struct ct_profile *p)
{
    uint32_t n = p->nfuncs;
    p->ncycles = 0;
    if (!n)
        return;
    uint32_t *off = ct_xcalloc((size_t)n + 2, sizeof *off);
    for (uint32_t a = 0; a < p->narcs; a++) {
        const struct ct_arc *arc = &p->arcs[a];
        if (arc->caller != CT_FUNC_NONE && arc->caller != arc->callee)
            off[arc->caller + 2]++;
    }
    for (uint32_t i = 0; i < n; i++)
        off[i + 2] += off[i + 1];
    uint32_t *succ = ct_xcalloc(off[n + 1] + 1, sizeof *succ);
    for (uint32_t a = 0; a < p->narcs; a++) {
        const struct ct_arc *arc = &p->arcs[a];
        if (arc->caller != CT_FUNC_NONE && arc->caller != arc->callee)
            succ[off[arc->caller + 1]++] = arc->callee;
    }
    uint32_t *comp = ct_xmalloc((size_t)n * sizeof *comp);
    uint32_t ncomp = ct_scc(n, off, succ, comp);
    /* per component: size and ordering key */
    uint32_t *size = ct_xcalloc(ncomp, sizeof *size);
    uint64_t *key = ct_xmalloc((size_t)ncomp * 2 * sizeof *key);
    for (uint32_t c = 0; c < ncomp; c++)
        key[2 * c] = UINT64_MAX, key[2 * c + 1] = c;
    for (uint32_t f = 0; f < n; f++)
        size[comp[f]]++;
    for (uint32_t f = 0; f < n; f++) {
        uint32_t c = comp[f];
        if (size[c] > 1) {
            uint64_t k = order_key(p, f);
            if (k < key[2 * c])
                key[2 * c] = k;
        }
    }
    qsort(key, ncomp, 2 * sizeof *key, cmp_key);
    uint32_t *number = ct_xcalloc(ncomp, sizeof *number);
    for (uint32_t i = 0; i < ncomp; i++) {
        uint32_t c = (uint32_t)key[2 * i + 1];
        if (size[c] > 1)
            number[c] = ++p->ncycles;
    }
    for (uint32_t f = 0; f < n; f++)
        p->funcs[f].cycle = (int32_t)number[comp[f]];
    if (p->ncycles)
        attribute(p);
    free(off);
    free(succ);
    free(comp);
    free(size);
    free(key);
    free(number);
}
