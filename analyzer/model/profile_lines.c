/*
 * Stack samples by source line (see profile_lines.h).  While reading, each
 * stack goes into a calling context tree keyed by pc: stacks that share
 * their outer frames share nodes, so memory grows with the distinct
 * contexts, not with the samples.  The view is built on first use: one
 * line lookup per distinct pc, then one walk up the tree per node where
 * samples ended.
 */
#include "analyzer/model/profile_lines.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/model/profile_private.h"
#include "analyzer/util.h"

#define NO_NODE UINT32_MAX

struct node {
    uint64_t pc;            /* leaf: as sampled; callers: return address-1 */
    uint32_t parent;        /* NO_NODE for the outermost frame             */
    uint32_t func;
    uint64_t weight;        /* samples whose stack ends here               */
};

struct ct_prof_lines {
    struct node *nodes;
    size_t nnodes, nodes_cap;
    uint32_t *slots;        /* (parent, pc) -> node + 1, 0 = empty         */
    uint32_t slot_cap;      /* power of two                                */
    /* the previous sample's path from the root: samples in a row share
     * their outer frames, whose nodes need no lookup then */
    uint64_t *path_pc;
    uint32_t *path_node;
    uint32_t path_len, path_cap;
    bool resolved;
    struct ct_line_profile view;
};

static uint32_t mix(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    return (uint32_t)k;
}

static uint32_t node_hash(uint32_t parent, uint64_t pc)
{
    return mix(pc * 0x9e3779b97f4a7c15ull ^ parent);
}

static void grow_slots(struct ct_prof_lines *pl)
{
    uint32_t cap = pl->slot_cap ? pl->slot_cap * 2 : 256;
    uint32_t *slots = ct_xcalloc(cap, sizeof *slots);
    for (size_t n = 0; n < pl->nnodes; n++) {
        const struct node *nd = &pl->nodes[n];
        uint32_t h = node_hash(nd->parent, nd->pc);
        while (slots[h & (cap - 1)])
            h++;
        slots[h & (cap - 1)] = (uint32_t)n + 1;
    }
    free(pl->slots);
    pl->slots = slots;
    pl->slot_cap = cap;
}

static uint32_t child(struct ct_prof_lines *pl, uint32_t parent, uint64_t pc,
                      uint32_t func)
{
    if (2 * (pl->nnodes + 1) > pl->slot_cap)
        grow_slots(pl);
    uint32_t mask = pl->slot_cap - 1;
    uint32_t h = node_hash(parent, pc);
    for (;; h++) {
        uint32_t v = pl->slots[h & mask];
        if (!v)
            break;
        const struct node *nd = &pl->nodes[v - 1];
        if (nd->pc == pc && nd->parent == parent)
            return v - 1;
    }
    ct_grow(&pl->nodes, &pl->nodes_cap, pl->nnodes, sizeof *pl->nodes);
    uint32_t n = (uint32_t)pl->nnodes++;
    pl->nodes[n] = (struct node){pc, parent, func, 0};
    pl->slots[h & mask] = n + 1;
    return n;
}

static void free_view(struct ct_line_profile *v)
{
    for (uint32_t i = 0; i < v->nelems; i++)
        free((char *)v->elems[i].file);
    free(v->elems);
    free(v->arcs);
    memset(v, 0, sizeof *v);
}

void ct_prof_lines_add(struct ct_prof_lines **plp, const struct ct_event *ev,
                       uint64_t w)
{
    if (!ev->pcs || !ev->stack || !ev->depth)
        return;
    struct ct_prof_lines *pl = *plp;
    if (!pl)
        pl = *plp = ct_xcalloc(1, sizeof *pl);
    if (pl->resolved) {
        free_view(&pl->view);
        pl->resolved = false;
    }
    if (ev->depth > pl->path_cap) {
        pl->path_cap = ev->depth;
        pl->path_pc = ct_xrealloc(pl->path_pc,
                                  pl->path_cap * sizeof *pl->path_pc);
        pl->path_node = ct_xrealloc(pl->path_node,
                                    pl->path_cap * sizeof *pl->path_node);
    }
    uint32_t n = NO_NODE;
    uint32_t d = 0; /* depth from the root */
    for (uint32_t i = ev->depth; i-- > 0; d++) {
        uint64_t pc = i ? ev->pcs[i] - 1 : ev->pcs[i];
        if (d < pl->path_len && pl->path_pc[d] == pc) {
            n = pl->path_node[d];
            continue;
        }
        n = child(pl, n, pc, ev->stack[i]);
        pl->path_pc[d] = pc;
        pl->path_node[d] = n;
        pl->path_len = d + 1; /* deeper entries hang off another node */
    }
    pl->path_len = d;
    pl->nodes[n].weight += w;
}

void ct_prof_lines_free(struct ct_prof_lines *pl)
{
    if (!pl)
        return;
    free_view(&pl->view);
    free(pl->nodes);
    free(pl->slots);
    free(pl->path_pc);
    free(pl->path_node);
    free(pl);
}

/* --- building the view ---------------------------------------------- */

/* Open addressing over uint64 keys -> uint32 values, for the pc cache and
 * the arcs. */
struct map64 {
    uint64_t *keys;
    uint32_t *vals;         /* value + 1, 0 = empty                         */
    uint32_t cap, used;
};

static void map64_grow(struct map64 *m)
{
    uint32_t cap = m->cap ? m->cap * 2 : 256;
    uint64_t *keys = ct_xcalloc(cap, sizeof *keys);
    uint32_t *vals = ct_xcalloc(cap, sizeof *vals);
    for (uint32_t i = 0; i < m->cap; i++)
        if (m->vals[i]) {
            uint32_t h = mix(m->keys[i]);
            while (vals[h & (cap - 1)])
                h++;
            keys[h & (cap - 1)] = m->keys[i];
            vals[h & (cap - 1)] = m->vals[i];
        }
    free(m->keys);
    free(m->vals);
    m->keys = keys;
    m->vals = vals;
    m->cap = cap;
}

/* The slot of key: its value is vals[slot] - 1, or vals[slot] == 0 when the
 * key is new (the caller stores key and value + 1 there). */
static uint32_t map64_slot(struct map64 *m, uint64_t key)
{
    if (2 * (m->used + 1) > m->cap)
        map64_grow(m);
    uint32_t mask = m->cap - 1;
    for (uint32_t h = mix(key);; h++) {
        uint32_t s = h & mask;
        if (!m->vals[s] || m->keys[s] == key)
            return s;
    }
}

static void map64_put(struct map64 *m, uint32_t slot, uint64_t key,
                      uint32_t val)
{
    m->keys[slot] = key;
    m->vals[slot] = val + 1;
    m->used++;
}

static void map64_free(struct map64 *m)
{
    free(m->keys);
    free(m->vals);
}

struct builder {
    struct ct_line_profile *v;
    size_t elems_cap, arcs_cap;
    uint32_t *elem_slots;   /* element + 1, 0 = empty                      */
    uint32_t elem_slot_cap;
    struct map64 pcs;       /* pc -> element                               */
    struct map64 arcs;      /* (caller + 1) << 32 | callee -> arc          */
};

static uint32_t elem_hash(uint32_t func, const char *file, uint32_t line)
{
    uint64_t h = 1469598103934665603ull;
    for (const char *c = file ? file : ""; *c; c++)
        h = (h ^ (unsigned char)*c) * 1099511628211ull;
    return mix(h ^ ((uint64_t)func << 32 | line));
}

static bool same_elem(const struct ct_line_elem *e, uint32_t func,
                      const char *file, uint32_t line)
{
    if (e->func != func || e->line != line)
        return false;
    return e->file && file ? strcmp(e->file, file) == 0 : e->file == file;
}

static void grow_elem_slots(struct builder *b)
{
    uint32_t cap = b->elem_slot_cap ? b->elem_slot_cap * 2 : 256;
    uint32_t *slots = ct_xcalloc(cap, sizeof *slots);
    for (uint32_t i = 0; i < b->v->nelems; i++) {
        const struct ct_line_elem *e = &b->v->elems[i];
        uint32_t h = elem_hash(e->func, e->file, e->line);
        while (slots[h & (cap - 1)])
            h++;
        slots[h & (cap - 1)] = i + 1;
    }
    free(b->elem_slots);
    b->elem_slots = slots;
    b->elem_slot_cap = cap;
}

/* The element (func, file, line); file is taken over. */
static uint32_t intern_elem(struct builder *b, uint32_t func, char *file,
                            uint32_t line)
{
    struct ct_line_profile *v = b->v;
    if (2 * (v->nelems + 1) > b->elem_slot_cap)
        grow_elem_slots(b);
    uint32_t mask = b->elem_slot_cap - 1;
    uint32_t h = elem_hash(func, file, line);
    for (;; h++) {
        uint32_t s = b->elem_slots[h & mask];
        if (!s)
            break;
        if (same_elem(&v->elems[s - 1], func, file, line)) {
            free(file);
            return s - 1;
        }
    }
    ct_grow(&v->elems, &b->elems_cap, v->nelems, sizeof *v->elems);
    uint32_t id = v->nelems++;
    v->elems[id] = (struct ct_line_elem){.func = func, .file = file,
                                         .line = line};
    b->elem_slots[h & mask] = id + 1;
    return id;
}

static uint32_t pc_elem(struct builder *b, const struct ct_trace_info *info,
                        uint64_t pc, uint32_t func)
{
    uint32_t slot = map64_slot(&b->pcs, pc);
    if (b->pcs.vals[slot])
        return b->pcs.vals[slot] - 1;
    char *file = NULL;
    uint32_t line = 0;
    if (info->pc_line && !info->pc_line(info->pc_line_ctx, pc, &file, &line)) {
        file = NULL;
        line = 0;
    }
    uint32_t e = intern_elem(b, func, file, line);
    slot = map64_slot(&b->pcs, pc); /* the table may have grown */
    map64_put(&b->pcs, slot, pc, e);
    return e;
}

static uint32_t arc_of(struct builder *b, uint32_t caller, uint32_t callee)
{
    uint64_t key = (uint64_t)(caller + 1u) << 32 | callee;
    uint32_t slot = map64_slot(&b->arcs, key);
    if (b->arcs.vals[slot])
        return b->arcs.vals[slot] - 1;
    struct ct_line_profile *v = b->v;
    ct_grow(&v->arcs, &b->arcs_cap, v->narcs, sizeof *v->arcs);
    uint32_t a = v->narcs++;
    v->arcs[a] = (struct ct_line_arc){caller, callee, 0};
    map64_put(&b->arcs, slot, key, a);
    return a;
}

static void build(struct ct_prof_lines *pl, const struct ct_trace_info *info)
{
    struct builder b = {.v = &pl->view};
    uint32_t *elem_of = ct_xmalloc((pl->nnodes + 1) * sizeof *elem_of);
    for (size_t n = 0; n < pl->nnodes; n++)
        elem_of[n] = pc_elem(&b, info, pl->nodes[n].pc, pl->nodes[n].func);
    uint64_t *elem_mark = ct_xcalloc(pl->view.nelems + 1, sizeof *elem_mark);
    uint64_t *arc_mark = NULL;
    size_t arc_mark_cap = 0;
    uint64_t gen = 0;
    for (size_t n = 0; n < pl->nnodes; n++) {
        uint64_t w = pl->nodes[n].weight;
        if (!w)
            continue;
        gen++;
        pl->view.samples += w;
        pl->view.elems[elem_of[n]].self += w;
        /* Up from the top element: each element and each link once. */
        for (uint32_t i = (uint32_t)n; i != NO_NODE; i = pl->nodes[i].parent) {
            uint32_t e = elem_of[i];
            uint32_t parent = pl->nodes[i].parent;
            uint32_t caller = parent == NO_NODE ? CT_FUNC_NONE
                                                : elem_of[parent];
            if (elem_mark[e] != gen) {
                elem_mark[e] = gen;
                pl->view.elems[e].total += w;
            }
            uint32_t a = arc_of(&b, caller, e);
            if (a >= arc_mark_cap) {
                size_t old = arc_mark_cap;
                ct_grow(&arc_mark, &arc_mark_cap, a, sizeof *arc_mark);
                memset(arc_mark + old, 0,
                       (arc_mark_cap - old) * sizeof *arc_mark);
            }
            if (arc_mark[a] != gen) {
                arc_mark[a] = gen;
                pl->view.arcs[a].count += w;
                pl->view.elems[e].calls += w;
            }
        }
    }
    free(arc_mark);
    free(elem_mark);
    free(elem_of);
    free(b.elem_slots);
    map64_free(&b.pcs);
    map64_free(&b.arcs);
}

const struct ct_line_profile *ct_profile_lines(struct ct_profile *p)
{
    struct ct_prof_lines *pl = p->state->lines;
    if (!pl || !pl->nnodes)
        return NULL;
    if (!pl->resolved) {
        build(pl, p->info);
        pl->resolved = true;
    }
    pl->view.ticks_per_sample = p->state->ticks_per_sample;
    return &pl->view;
}
