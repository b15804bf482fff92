/* Per-function arrays and the (caller, callee) -> arc table of a profile. */
#include <stdlib.h>
#include <string.h>

#include "analyzer/model/profile_private.h"
#include "analyzer/util.h"

void ct_prof_need_func(struct ct_profile *p, uint32_t func)
{
    struct ct_profile_state *s = p->state;
    if (func < p->nfuncs)
        return;
    size_t old = s->funcs_cap;
    if (func >= old) {
        ct_grow(&p->funcs, &s->funcs_cap, func, sizeof *p->funcs);
        size_t n = s->funcs_cap, add = n - old;
        s->mark = ct_xrealloc(s->mark, n * sizeof *s->mark);
        s->owner = ct_xrealloc(s->owner, n * sizeof *s->owner);
        s->callees = ct_xrealloc(s->callees, n * sizeof *s->callees);
        memset(p->funcs + old, 0, add * sizeof *p->funcs);
        memset(s->mark + old, 0, add * sizeof *s->mark);
        memset(s->owner + old, 0, add * sizeof *s->owner);
        memset(s->callees + old, 0xff, add * sizeof *s->callees);
    }
    p->nfuncs = func + 1;
}

static void insert(struct ct_arc_slot *slots, uint32_t cap, uint64_t key,
                   uint32_t arc)
{
    uint32_t h = ct_prof_arc_hash(key);
    while (slots[h & (cap - 1)].arc)
        h++;
    slots[h & (cap - 1)] = (struct ct_arc_slot){key, arc + 1};
}

static void rehash(struct ct_profile *p)
{
    struct ct_profile_state *s = p->state;
    uint32_t cap = s->arc_slot_cap ? s->arc_slot_cap * 2 : 256;
    struct ct_arc_slot *slots = ct_xcalloc(cap, sizeof *slots);
    for (uint32_t i = 0; i < p->narcs; i++)
        insert(slots, cap,
               ct_prof_arc_key(p->arcs[i].caller, p->arcs[i].callee), i);
    free(s->arc_slots);
    s->arc_slots = slots;
    s->arc_slot_cap = cap;
    /* Arcs may have moved (ct_prof_drop_empty_arcs): forget where. */
    if (s->callees)
        memset(s->callees, 0xff, s->funcs_cap * sizeof *s->callees);
}

uint32_t ct_prof_arc(struct ct_profile *p, uint32_t caller, uint32_t callee)
{
    return ct_prof_arc_inline(p->state, p, caller, callee);
}

/* Adds the arc caller -> callee, which the table does not hold. */
uint32_t ct_prof_new_arc(struct ct_profile *p, uint32_t caller,
                         uint32_t callee)
{
    struct ct_profile_state *s = p->state;
    if ((uint64_t)(p->narcs + 1) * 2 > s->arc_slot_cap)
        rehash(p);
    uint32_t idx = p->narcs++;
    if (idx >= s->arcs_cap) {
        size_t cap = s->arcs_cap ? s->arcs_cap * 2 : 64;
        p->arcs = ct_xrealloc(p->arcs, cap * sizeof *p->arcs);
        s->sarc_self = ct_xrealloc(s->sarc_self, cap * sizeof *s->sarc_self);
        s->sarc_child =
            ct_xrealloc(s->sarc_child, cap * sizeof *s->sarc_child);
        s->sarc_count =
            ct_xrealloc(s->sarc_count, cap * sizeof *s->sarc_count);
        s->arcs_cap = cap;
    }
    p->arcs[idx] = (struct ct_arc){.caller = caller, .callee = callee};
    s->sarc_self[idx] = s->sarc_child[idx] = s->sarc_count[idx] = 0;
    insert(s->arc_slots, s->arc_slot_cap, ct_prof_arc_key(caller, callee),
           idx);
    return idx;
}

void ct_prof_drop_empty_arcs(struct ct_profile *p)
{
    struct ct_profile_state *s = p->state;
    uint32_t k = 0;
    for (uint32_t i = 0; i < p->narcs; i++) {
        const struct ct_arc *a = &p->arcs[i];
        if (!a->count && !a->self_ticks && !a->child_ticks)
            continue;
        p->arcs[k] = p->arcs[i];
        ct_prof_dist_move_arc(p, k, i);
        s->sarc_self[k] = s->sarc_self[i];
        s->sarc_child[k] = s->sarc_child[i];
        s->sarc_count[k] = s->sarc_count[i];
        k++;
    }
    if (k == p->narcs)
        return;
    p->narcs = k;
    s->arc_slot_cap /= 2;  /* rehash doubles it */
    rehash(p);
}
