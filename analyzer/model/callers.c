/* --caller: see callers.h.  The marks of a thread come out in ascending
 * order: the frames open at a call of NAME that are not marked yet were
 * all entered after every frame marked before (the marked frames of an
 * open stack are always its outermost ones), so each call of NAME appends
 * its new marks, innermost last after reversing, and the second reading
 * walks them with one cursor. */
#include <stdlib.h>

#include "analyzer/model/callers.h"
#include "analyzer/model/match.h"
#include "analyzer/util.h"

#define V_NO   1
#define V_NAME 2

static bool is_name(struct ct_callers_filter *c, uint32_t func)
{
    if (func == CT_FUNC_NONE)
        return false;
    ct_grow_zeroed(&c->verdict, &c->nverdict, func, 1);
    if (!c->verdict[func]) {
        const char *name = ct_functab_name(c->info->funcs, func);
        c->verdict[func] =
            ct_name_match_any(c->names, c->nnames, name) ? V_NAME : V_NO;
    }
    return c->verdict[func] == V_NAME;
}

static struct ct_callers_thread *thread_of(struct ct_callers_filter *c,
                                           uint32_t thread)
{
    ct_grow_zeroed(&c->threads, &c->nthreads, thread, sizeof *c->threads);
    return &c->threads[thread];
}

static struct ct_callers_frame *push(struct ct_callers_thread *t,
                                     uint64_t call, uint32_t func)
{
    ct_grow(&t->f, &t->cap, t->n, sizeof *t->f);
    t->f[t->n] = (struct ct_callers_frame){.call = call, .func = func};
    return &t->f[t->n++];
}

/* The frame a return closes, with the profile's matching rules
 * (docs/analysis.md, as hide.c applies them): the innermost open frame of
 * its function, or the innermost one when the return names none; a return
 * of a function not open ends every frame.  Pops what it closes. */
enum closes { CLOSES_NOTHING, CLOSES_FRAME, CLOSES_ALL };

static enum closes pop(struct ct_callers_thread *t, uint32_t func,
                       struct ct_callers_frame *closed)
{
    if (func == CT_FUNC_NONE) {
        if (!t->n)
            return CLOSES_NOTHING;
        *closed = t->f[--t->n];
        return CLOSES_FRAME;
    }
    for (size_t i = t->n; i-- > 0;)
        if (t->f[i].func == func) {
            *closed = t->f[i];
            t->n = i;
            return CLOSES_FRAME;
        }
    t->n = 0;
    return CLOSES_ALL;
}

/* MARK: a call of NAME (the innermost open frame) marks itself and the
 * open frames below it not marked yet: those numbered above the last
 * mark. */
static void mark(struct ct_callers_thread *t)
{
    size_t first = t->nkept;
    bool any = t->nkept > 0;
    uint64_t last = any ? t->kept[t->nkept - 1] : 0;
    for (size_t i = t->n; i-- > 0 && !(any && t->f[i].call <= last);) {
        ct_grow(&t->kept, &t->capkept, t->nkept, sizeof *t->kept);
        t->kept[t->nkept++] = t->f[i].call;
    }
    /* appended innermost first: put them in ascending order */
    for (size_t a = first, b = t->nkept; a + 1 < b; a++, b--) {
        uint64_t x = t->kept[a];
        t->kept[a] = t->kept[b - 1];
        t->kept[b - 1] = x;
    }
}

static bool kept(struct ct_callers_thread *t, uint64_t call)
{
    while (t->next < t->nkept && t->kept[t->next] < call)
        t->next++;
    return t->next < t->nkept && t->kept[t->next] == call;
}

/* MARK: frame func entered (a call, or a frame open before the data). */
static void mark_enter(struct ct_callers_filter *c, struct ct_callers_thread *t,
                       uint32_t func)
{
    push(t, t->calls++, func);
    if (is_name(c, func)) {
        c->targets++;
        mark(t);
    }
}

static int mark_event(struct ct_sink *self, const struct ct_event *ev)
{
    struct ct_callers_filter *c = (struct ct_callers_filter *)self;
    struct ct_callers_thread *t = thread_of(c, ev->thread);
    struct ct_callers_frame closed;
    switch (ev->kind) {
    case CT_EV_CALL:
        mark_enter(c, t, ev->func);
        break;
    case CT_EV_RETURN:
        pop(t, ev->func, &closed);
        break;
    case CT_EV_STACK:
        /* frames open before the data: numbered as calls, so that a call
         * of NAME below one keeps it; one of NAME itself is such a call */
        t->n = 0;
        for (uint32_t i = 0; i < ev->depth; i++)
            mark_enter(c, t, ev->stack[i]);
        break;
    case CT_EV_THREAD_END:
        t->n = 0;
        break;
    default:
        break;
    }
    return 0;
}

/* PASS: whether the innermost open frame's events are passed on. */
static bool top_shown(const struct ct_callers_thread *t)
{
    return t->n && t->f[t->n - 1].shown;
}

/* Inside a call of NAME: what it calls is left out. */
static bool inside_name(const struct ct_callers_thread *t)
{
    return t->n && (t->f[t->n - 1].target || !t->f[t->n - 1].shown);
}

/* PASS: frame func entered; whether it is passed on. */
static bool pass_enter(struct ct_callers_filter *c, struct ct_callers_thread *t,
                       uint32_t func)
{
    bool below = inside_name(t);
    struct ct_callers_frame *f = push(t, t->calls++, func);
    f->shown = !below && kept(t, f->call);
    f->target = f->shown && is_name(c, func);
    return f->shown;
}

static int pass_event(struct ct_sink *self, const struct ct_event *ev)
{
    struct ct_callers_filter *c = (struct ct_callers_filter *)self;
    struct ct_callers_thread *t = thread_of(c, ev->thread);
    struct ct_callers_frame closed;
    switch (ev->kind) {
    case CT_EV_CALL:
        if (!pass_enter(c, t, ev->func))
            return 0;
        break;
    case CT_EV_RETURN: {
        /* a return that closes nothing kept is left out; one that closes
         * no open frame at all goes on, for the views to count */
        enum closes what = pop(t, ev->func, &closed);
        if (what == CLOSES_FRAME && !closed.shown)
            return 0;
        break;
    }
    case CT_EV_STACK: {
        /* the frames kept, in their order; those below a frame of NAME
         * or leading nowhere are left out, as their calls would be */
        t->n = 0;
        uint32_t *ids = ct_xcalloc(ev->depth + 1, sizeof *ids);
        uint32_t n = 0;
        for (uint32_t i = 0; i < ev->depth; i++)
            if (pass_enter(c, t, ev->stack[i]))
                ids[n++] = ev->stack[i];
        struct ct_event copy = *ev;
        copy.stack = ids;
        copy.depth = n;
        int r = c->next->event(c->next, &copy);
        free(ids);
        return r;
    }
    case CT_EV_THREAD_END:
        t->n = 0;
        break;
    case CT_EV_ARGS:
    case CT_EV_RETVAL: /* values of a call left out */
        if (!top_shown(t))
            return 0;
        break;
    default:
        break;
    }
    return c->next->event(c->next, ev);
}

void ct_callers_init(struct ct_callers_filter *c, const struct ct_trace_info *info,
                     const char *const *names, size_t nnames)
{
    *c = (struct ct_callers_filter){
        .sink = {mark_event},
        .info = info,
        .names = names,
        .nnames = nnames,
    };
}

void ct_callers_pass(struct ct_callers_filter *c, struct ct_sink *next,
                     const struct ct_trace_info *info)
{
    c->sink.event = pass_event;
    c->next = next;
    c->info = info;
    /* function ids are the second reading's own */
    free(c->verdict);
    c->verdict = NULL;
    c->nverdict = 0;
    for (size_t i = 0; i < c->nthreads; i++) {
        c->threads[i].n = 0;
        c->threads[i].calls = 0;
        c->threads[i].next = 0;
    }
}

void ct_callers_free(struct ct_callers_filter *c)
{
    for (size_t i = 0; i < c->nthreads; i++) {
        free(c->threads[i].f);
        free(c->threads[i].kept);
    }
    free(c->threads);
    free(c->verdict);
    *c = (struct ct_callers_filter){0};
}
