/* The call paths of two runs matched (stackdiff.h). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/writers/stackdiff.h"
#include "analyzer/util.h"

struct rounding {
    const struct ct_stacktree *t;
    int which;
    uint64_t *v;
    struct ct_ns_rounder r;
};

static int round_node(void *ctx, uint32_t node, uint32_t depth)
{
    (void)depth;
    struct rounding *x = ctx;
    uint64_t v = ct_st_value(&x->t->nodes[node], x->which);
    x->v[node] = x->which == CT_ST_SELF ? ct_ns_round(&x->r, v) : v;
    return 0;
}

uint64_t *ct_stack_values(const struct ct_stacktree *t, int which)
{
    /* in walk order, as the folded export rounds, so that the figures
     * are those of each run's own export */
    struct rounding x = {.t = t, .which = which,
                         .v = ct_xcalloc(t->nnodes + 1, sizeof *x.v),
                         .r = {.ns_per_tick = t->info->ns_per_tick}};
    ct_stacktree_walk(t, round_node, &x);
    return x.v;
}

static bool same_function(const struct ct_stacktree *a, uint32_t na,
                          const struct ct_stacktree *b, uint32_t nb)
{
    uint32_t fa = a->nodes[na].func, fb = b->nodes[nb].func;
    if (fa == CT_FUNC_NONE || fb == CT_FUNC_NONE)
        return fa == fb;
    const struct ct_func *x = ct_functab_get(a->info->funcs, fa);
    const struct ct_func *y = ct_functab_get(b->info->funcs, fb);
    if (!x || !y || !x->name || !y->name || strcmp(x->name, y->name))
        return false;
    /* static functions of one name in several files stay apart */
    return !x->file || !y->file || !strcmp(x->file, y->file);
}

struct matching {
    struct ct_stackdiff *sd;
    const struct ct_stacktree *newt;
};

/* Parents come before their children in the walk. */
static int match_node(void *ctx, uint32_t node, uint32_t depth)
{
    (void)depth;
    struct matching *m = ctx;
    struct ct_stackdiff *sd = m->sd;
    if (node == CT_ST_ROOT) {
        sd->match[node] = CT_ST_ROOT;
        return 0;
    }
    uint32_t parent = sd->match[m->newt->nodes[node].parent];
    sd->match[node] = CT_SD_NONE;
    if (parent == CT_SD_NONE)
        return 0;
    for (uint32_t c = sd->old->nodes[parent].child; c;
         c = sd->old->nodes[c].next)
        if (same_function(m->newt, node, sd->old, c)) {
            sd->match[node] = c;
            break;
        }
    return 0;
}

int ct_stackdiff_load(struct ct_stackdiff *sd, const struct ct_stacktree *old,
                      const struct ct_stacktree *newt, int which,
                      const char *format)
{
    memset(sd, 0, sizeof *sd);
    sd->old = old;
    int old_which = ct_stacktree_measure(old, which == CT_ST_CALLS, format);
    if (old_which < 0)
        return 1;
    if (old_which != which) {
        ct_error("%s has %s, %s %s: the two runs cannot be compared in a "
                 "%s export", old->info->path,
                 old_which == CT_ST_SAMPLES ? "samples" : "timed calls",
                 newt->info->path,
                 which == CT_ST_SAMPLES ? "samples" : "timed calls", format);
        return 1;
    }
    sd->old_value = ct_stack_values(old, which);
    sd->match = ct_xcalloc(newt->nnodes + 1, sizeof *sd->match);
    struct matching m = {sd, newt};
    ct_stacktree_walk(newt, match_node, &m);
    return 0;
}

void ct_stackdiff_free(struct ct_stackdiff *sd)
{
    free(sd->old_value);
    free(sd->match);
    memset(sd, 0, sizeof *sd);
}

/* ------------------------------------------------------------------- */
/* The folded path of node n: names from the root down, ';' between them;
 * a ';' or line break inside a name becomes '_', as in the folded
 * export. */
static void put_path(FILE *out, const struct ct_stacktree *t, uint32_t n,
                     uint32_t **chain, size_t *cap)
{
    /* no recursion: deep stacks are fine */
    size_t depth = 0;
    for (uint32_t p = n; p != CT_ST_ROOT; p = t->nodes[p].parent) {
        ct_grow(chain, cap, depth, sizeof **chain);
        (*chain)[depth++] = p;
    }
    char buf[96];
    while (depth--) {
        const char *name = ct_stacktree_name(t, (*chain)[depth], buf,
                                             sizeof buf);
        for (const char *c = name; *c; c++)
            fputc(*c == ';' || *c == '\n' || *c == '\r' ? '_' : *c, out);
        if (depth)
            fputc(';', out);
    }
}

struct folding {
    FILE *out;
    const struct ct_stackdiff *sd;
    const struct ct_stacktree *t;
    const uint64_t *value;
    bool *matched;          /* per old node                              */
    bool old_side;
    uint32_t *chain;        /* put_path's                                */
    size_t chain_cap;
};

static int fold_line(void *ctx, uint32_t node, uint32_t depth)
{
    (void)depth;
    struct folding *f = ctx;
    if (node == CT_ST_ROOT)
        return 0;
    uint64_t old, new;
    if (f->old_side) {
        if (f->matched[node])
            return 0;       /* written with the new run's path */
        old = f->value[node];
        new = 0;
    } else {
        old = ct_stackdiff_old(f->sd, node);
        new = f->value[node];
        if (f->sd->match[node] != CT_SD_NONE)
            f->matched[f->sd->match[node]] = true;
    }
    if (!old && !new)
        return 0;
    put_path(f->out, f->t, node, &f->chain, &f->chain_cap);
    fprintf(f->out, " %" PRIu64 " %" PRIu64 "\n", old, new);
    return 0;
}

void ct_stackdiff_folded(FILE *out, const struct ct_stackdiff *sd,
                         const struct ct_stacktree *newt,
                         const uint64_t *new_value)
{
    struct folding f = {out, sd, newt, new_value,
                        ct_xcalloc(sd->old->nnodes + 1, sizeof *f.matched),
                        false, NULL, 0};
    ct_stacktree_walk(newt, fold_line, &f);
    /* then the paths only the old run has */
    f.t = sd->old;
    f.value = sd->old_value;
    f.old_side = true;
    ct_stacktree_walk(sd->old, fold_line, &f);
    free(f.matched);
    free(f.chain);
}
