/* --hide: see hide.h.  The filter keeps each thread's stack with a flag
 * per frame, so that a binary trace's returns (which name no function)
 * are dropped exactly when they close a hidden frame. */
#include <stdlib.h>

#include "hide.h"
#include "match.h"
#include "util.h"

static bool hidden(struct ct_hide_filter *h, uint32_t func)
{
    if (func == CT_FUNC_NONE)
        return false;
    ct_grow_zeroed(&h->verdict, &h->nverdict, func, 1);
    if (!h->verdict[func]) {
        const char *name = ct_functab_name(h->info->funcs, func);
        h->verdict[func] = 1;
        for (size_t i = 0; i < h->npatterns; i++)
            if (ct_name_match(h->patterns[i], name) == CT_MATCH_EXACT)
                h->verdict[func] = 2;
    }
    return h->verdict[func] == 2;
}

static void push(struct ct_hide_thread *t, uint32_t func, bool hide)
{
    ct_grow(&t->f, &t->cap, t->n, sizeof *t->f);
    t->f[t->n++] = (struct ct_hide_frame){func, hide};
}

/* Whether the return closes a hidden frame; pops what it closes, with the
 * profile's matching rules (docs/analysis.md). */
static bool return_hidden(struct ct_hide_filter *h, struct ct_hide_thread *t,
                          uint32_t func)
{
    if (func == CT_FUNC_NONE)
        return t->n ? t->f[--t->n].hidden : false;
    for (size_t i = t->n; i-- > 0;)
        if (t->f[i].func == func) {
            t->n = i;
            return t->f[i].hidden;
        }
    t->n = 0;
    return hidden(h, func);
}

/* stack[] (and pcs[]) without the hidden functions, into h->ids. */
static uint32_t keep_shown(struct ct_hide_filter *h, const struct ct_event *ev)
{
    if (ev->depth > h->ids_cap) {
        h->ids_cap = ev->depth;
        h->ids = ct_xrealloc(h->ids, h->ids_cap * sizeof *h->ids);
        h->pcs = ct_xrealloc(h->pcs, h->ids_cap * sizeof *h->pcs);
    }
    uint32_t n = 0;
    for (uint32_t i = 0; i < ev->depth; i++)
        if (!hidden(h, ev->stack[i])) {
            if (ev->pcs)
                h->pcs[n] = ev->pcs[i];
            h->ids[n++] = ev->stack[i];
        }
    return n;
}

static int hide_event(struct ct_sink *self, const struct ct_event *ev)
{
    struct ct_hide_filter *h = (struct ct_hide_filter *)self;
    ct_grow_zeroed(&h->threads, &h->nthreads, ev->thread, sizeof *h->threads);
    struct ct_hide_thread *t = &h->threads[ev->thread];
    struct ct_event copy;
    switch (ev->kind) {
    case CT_EV_CALL: {
        bool hide = hidden(h, ev->func);
        push(t, ev->func, hide);
        if (hide) {
            h->hidden_calls++;
            return 0;
        }
        break;
    }
    case CT_EV_RETURN:
        if (return_hidden(h, t, ev->func))
            return 0;
        break;
    case CT_EV_STACK:
    case CT_EV_SAMPLE:
        if (ev->kind == CT_EV_STACK) {
            t->n = 0;
            for (uint32_t i = 0; i < ev->depth; i++)
                push(t, ev->stack[i], hidden(h, ev->stack[i]));
        }
        copy = *ev;
        copy.depth = keep_shown(h, ev);
        copy.stack = h->ids;
        copy.pcs = ev->pcs ? h->pcs : NULL;
        if (ev->kind == CT_EV_SAMPLE && !copy.depth)
            return 0;
        return h->next->event(h->next, &copy);
    case CT_EV_THREAD_END:
        t->n = 0;
        break;
    default:
        break;
    }
    return h->next->event(h->next, ev);
}

void ct_hide_filter_init(struct ct_hide_filter *h, struct ct_sink *next,
                         const struct ct_trace_info *info,
                         const char *const *patterns, size_t npatterns)
{
    *h = (struct ct_hide_filter){
        .sink = {hide_event},
        .next = next,
        .info = info,
        .patterns = patterns,
        .npatterns = npatterns,
    };
}

void ct_hide_filter_free(struct ct_hide_filter *h)
{
    for (size_t i = 0; i < h->nthreads; i++)
        free(h->threads[i].f);
    free(h->threads);
    free(h->verdict);
    free(h->ids);
    free(h->pcs);
    *h = (struct ct_hide_filter){0};
}
