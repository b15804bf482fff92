/*
 * Per-thread counts of open frames per function, for the rare function
 * open on several threads at once (the per-function owner arrays count
 * the usual case without hashing; profile_run.h).
 */
#include <stdlib.h>

#include "analyzer/model/profile_private.h"
#include "analyzer/util.h"

static struct ct_active *act_slot(struct ct_pthread *th, uint32_t func)
{
    uint32_t mask = th->act_cap - 1;
    uint32_t h = (uint32_t)(func * 0x9e3779b1u);
    for (;; h++) {
        struct ct_active *a = &th->act[h & mask];
        if (a->func == func || a->func == CT_FUNC_NONE)
            return a;
    }
}

static void act_grow(struct ct_pthread *th)
{
    struct ct_active *old = th->act;
    uint32_t oldcap = th->act_cap;
    th->act_cap = oldcap ? oldcap * 2 : 16;
    th->act = ct_xmalloc(th->act_cap * sizeof *th->act);
    for (uint32_t i = 0; i < th->act_cap; i++)
        th->act[i].func = CT_FUNC_NONE;
    for (uint32_t i = 0; i < oldcap; i++)
        if (old[i].func != CT_FUNC_NONE)
            *act_slot(th, old[i].func) = old[i];
    free(old);
}

/* Backward-shift deletion keeps probe chains intact without tombstones. */
static void act_remove(struct ct_pthread *th, struct ct_active *a)
{
    uint32_t mask = th->act_cap - 1;
    uint32_t i = (uint32_t)(a - th->act);
    uint32_t j = i;
    for (;;) {
        j = (j + 1) & mask;
        if (th->act[j].func == CT_FUNC_NONE)
            break;
        uint32_t home = (uint32_t)(th->act[j].func * 0x9e3779b1u) & mask;
        /* move j into the hole i unless its home lies in (i, j] */
        bool stays = i <= j ? (home > i && home <= j)
                            : (home > i || home <= j);
        if (!stays) {
            th->act[i] = th->act[j];
            i = j;
        }
    }
    th->act[i].func = CT_FUNC_NONE;
    th->act_used--;
}

/* A frame of func joins th's own count of them: the rare case of a
 * function open on two threads at once. */
uint32_t ct_prof_act_enter(struct ct_pthread *th, uint32_t func, size_t depth)
{
    if ((th->act_used + 1) * 2 > th->act_cap)
        act_grow(th);
    struct ct_active *a = act_slot(th, func);
    if (a->func == CT_FUNC_NONE) {
        a->func = func;
        a->count = 0;
        a->outer_pos = (uint32_t)depth;
        th->act_used++;
    }
    a->count++;
    return a->outer_pos;
}

void ct_prof_act_leave(struct ct_pthread *th, uint32_t func)
{
    struct ct_active *a = act_slot(th, func);
    if (--a->count == 0)
        act_remove(th, a);
}

bool ct_prof_act_open(struct ct_pthread *th, uint32_t func)
{
    return th->act_used && act_slot(th, func)->func != CT_FUNC_NONE;
}
