/*
 * Helpers for the profile and report tests: a trace info with named
 * functions and a profile fed with events written out by hand.
 */
#ifndef CT_PROFILE_FIXTURE_H
#define CT_PROFILE_FIXTURE_H

#include <string.h>

#include "analyzer/model/profile.h"
#include "analyzer/model/trace.h"

struct fx {
    struct ct_trace_info info;
    struct ct_profile *p;
    struct ct_sink *sink;
};

static inline void fx_init_opts(struct fx *x, const struct ct_profile_opts *o)
{
    ct_trace_info_init(&x->info, "test.trace", "calltrace");
    x->info.ns_per_tick = 1.0;
    ct_trace_thread(&x->info, 100);
    ct_trace_thread(&x->info, 200);
    ct_trace_thread(&x->info, 300);
    x->p = ct_profile_new(&x->info, o);
    x->sink = ct_profile_sink(x->p);
}

static inline void fx_init(struct fx *x)
{
    struct ct_profile_opts o = {0};
    fx_init_opts(x, &o);
}

static inline void fx_free(struct fx *x)
{
    ct_profile_free(x->p);
    ct_trace_info_free(&x->info);
}

static inline uint32_t fx_fn(struct fx *x, const char *name)
{
    return ct_functab_intern_name(x->info.funcs, name, strlen(name));
}

static inline void fx_ev(struct fx *x, enum ct_ev_kind kind, uint32_t thread,
                         uint64_t time, uint32_t func)
{
    struct ct_event ev = {.kind = kind, .thread = thread, .time = time,
                          .func = func};
    x->sink->event(x->sink, &ev);
}

#define FX_CALL(x, th, t, name) fx_ev(x, CT_EV_CALL, th, t, fx_fn(x, name))
#define FX_RET(x, th, t, name) fx_ev(x, CT_EV_RETURN, th, t, fx_fn(x, name))
#define FX_POP(x, th, t) fx_ev(x, CT_EV_RETURN, th, t, CT_FUNC_NONE)

static inline void fx_user(struct fx *x, uint32_t thread, uint64_t time,
                           const char *text)
{
    struct ct_event ev = {.kind = CT_EV_USER, .thread = thread, .time = time,
                          .func = CT_FUNC_NONE, .text = text,
                          .text_len = strlen(text)};
    x->sink->event(x->sink, &ev);
}

static inline void fx_stack(struct fx *x, enum ct_ev_kind kind,
                            uint32_t thread, uint64_t time,
                            const uint32_t *stack, uint32_t depth,
                            uint64_t weight)
{
    struct ct_event ev = {.kind = kind, .thread = thread, .time = time,
                          .func = CT_FUNC_NONE, .stack = stack,
                          .depth = depth, .count = weight};
    x->sink->event(x->sink, &ev);
}

static inline const struct ct_fstats *fx_f(struct fx *x, const char *name)
{
    return &x->p->funcs[fx_fn(x, name)];
}

/* The arc caller -> callee (caller NULL = spontaneous), or NULL. */
static inline const struct ct_arc *fx_arc(struct fx *x, const char *caller,
                                          const char *callee)
{
    uint32_t cr = caller ? fx_fn(x, caller) : CT_FUNC_NONE;
    uint32_t ce = fx_fn(x, callee);
    for (uint32_t i = 0; i < x->p->narcs; i++)
        if (x->p->arcs[i].caller == cr && x->p->arcs[i].callee == ce)
            return &x->p->arcs[i];
    return NULL;
}

#endif /* CT_PROFILE_FIXTURE_H */
