/* --hide and --notrace: see hide.h.  The filter keeps each thread's stack with a flag
 * per frame, so that a binary trace's returns (which name no function)
 * are dropped exactly when they close a hidden frame. */
#include <stdlib.h>

#include "analyzer/model/hide.h"
#include "analyzer/model/match.h"
#include "analyzer/util.h"

#define V_SHOWN   1
#define V_HIDDEN  2
#define V_NOTRACE 3  /* hidden, and everything it calls */

static int verdict(struct ct_hide_filter *h, uint32_t func)
{
    if (func == CT_FUNC_NONE)
        return V_SHOWN;
    ct_grow_zeroed(&h->verdict, &h->nverdict, func, 1);
    if (!h->verdict[func]) {
        const char *name = ct_functab_name(h->info->funcs, func);
        h->verdict[func] =
            ct_name_match_any(h->notrace, h->nnotrace, name)     ? V_NOTRACE
            : ct_name_match_any(h->patterns, h->npatterns, name) ? V_HIDDEN
                                                                  : V_SHOWN;
    }
    return h->verdict[func];
}

static bool hidden(struct ct_hide_filter *h, uint32_t func)
{
    return verdict(h, func) != V_SHOWN;
}

/* Pushes a frame: hidden when it is, or when a --notrace frame is open. */
static bool push(struct ct_hide_filter *h, struct ct_hide_thread *t,
                 uint32_t func)
{
    int v = verdict(h, func);
    bool hide = v != V_SHOWN || t->inside;
    ct_grow(&t->f, &t->cap, t->n, sizeof *t->f);
    t->f[t->n++] = (struct ct_hide_frame){func, hide, v == V_NOTRACE};
    t->inside += v == V_NOTRACE;
    return hide;
}

static void pop_to(struct ct_hide_thread *t, size_t n)
{
    while (t->n > n)
        t->inside -= t->f[--t->n].notrace;
}

/* Whether the return closes a hidden frame; pops what it closes, with the
 * profile's matching rules (docs/analysis.md). */
static bool return_hidden(struct ct_hide_filter *h, struct ct_hide_thread *t,
                          uint32_t func)
{
    if (func == CT_FUNC_NONE) {
        if (!t->n)
            return false;
        pop_to(t, t->n - 1);
        return t->f[t->n].hidden;
    }
    for (size_t i = t->n; i-- > 0;)
        if (t->f[i].func == func) {
            pop_to(t, i);
            return t->f[i].hidden;
        }
    pop_to(t, 0);
    return hidden(h, func);
}

/* stack[] (and pcs[]) without the hidden functions, into h->ids; none
 * below a --notrace one. */
static uint32_t keep_shown(struct ct_hide_filter *h, const struct ct_event *ev,
                           bool *in_notrace)
{
    *in_notrace = false;
    if (ev->depth > h->ids_cap) {
        h->ids_cap = ev->depth;
        h->ids = ct_xrealloc(h->ids, h->ids_cap * sizeof *h->ids);
        h->pcs = ct_xrealloc(h->pcs, h->ids_cap * sizeof *h->pcs);
    }
    uint32_t n = 0;
    for (uint32_t i = 0; i < ev->depth && !*in_notrace; i++)
        if (verdict(h, ev->stack[i]) == V_NOTRACE)
            *in_notrace = true;
        else if (!hidden(h, ev->stack[i])) {
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
    bool in_notrace;
    switch (ev->kind) {
    case CT_EV_CALL: {
        if (push(h, t, ev->func)) {
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
            pop_to(t, 0);
            for (uint32_t i = 0; i < ev->depth; i++)
                push(h, t, ev->stack[i]);
        }
        copy = *ev;
        copy.depth = keep_shown(h, ev, &in_notrace);
        copy.stack = h->ids;
        copy.pcs = ev->pcs ? h->pcs : NULL;
        /* a sample inside a --notrace function is left out with it */
        if (ev->kind == CT_EV_SAMPLE && (!copy.depth || in_notrace))
            return 0;
        return h->next->event(h->next, &copy);
    case CT_EV_THREAD_END:
        pop_to(t, 0);
        break;
    case CT_EV_ARGS:
    case CT_EV_RETVAL: /* a hidden call's values are not its caller's */
        if (t->n && t->f[t->n - 1].hidden)
            return 0;
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

void ct_hide_filter_notrace(struct ct_hide_filter *h,
                            const char *const *patterns, size_t npatterns)
{
    h->notrace = patterns;
    h->nnotrace = npatterns;
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
