/*
 * Helpers for the exporter tests: a trace info with named functions, an
 * exporter and the profile fed the same events through a tee (so a test
 * can hold the export against the report's figures), and the exporter's
 * output captured in memory.
 */
#ifndef CT_EXPORT_FIXTURE_H
#define CT_EXPORT_FIXTURE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyzer/writers/export.h"
#include "analyzer/options.h"
#include "analyzer/model/profile.h"

struct ex {
    struct ct_trace_info info;
    struct ct_options opts;
    struct ct_profile *p;
    struct ct_exporter *x;
    struct ct_tee tee;
    char *buf;
    size_t len;
    FILE *out;
};

/* Threads 0 and 1 are tids 100 and 200; one tick is one ns. */
static inline void ex_init(struct ex *e, const char *format)
{
    memset(e, 0, sizeof *e);
    ct_trace_info_init(&e->info, "test.trace", "calltrace");
    e->info.ns_per_tick = 1.0;
    e->info.pid = 42;
    ct_trace_thread(&e->info, 100);
    ct_trace_thread(&e->info, 200);
    e->opts.view.range_to_ns = INT64_MAX;
    e->out = open_memstream(&e->buf, &e->len);
    e->x = ct_exporter_new(format, e->out, &e->info, &e->opts.view);
    assert_non_null(e->x);
}

static inline uint32_t ex_fn(struct ex *e, const char *name)
{
    return ct_functab_intern_name(e->info.funcs, name, strlen(name));
}

static inline void ex_event(struct ex *e, const struct ct_event *ev)
{
    if (!e->p) {
        struct ct_profile_opts po = {.subtract_bias = e->opts.view.subtract_bias};
        e->p = ct_profile_new(&e->info, &po);
        ct_tee_init(&e->tee, ct_profile_sink(e->p), &e->x->sink);
    }
    e->tee.sink.event(&e->tee.sink, ev);
}

static inline void ex_ev(struct ex *e, enum ct_ev_kind kind, uint32_t thread,
                         uint64_t time, const char *name)
{
    struct ct_event ev = {.kind = kind, .thread = thread, .time = time,
                          .func = name ? ex_fn(e, name) : CT_FUNC_NONE};
    ex_event(e, &ev);
}

static inline void ex_text(struct ex *e, enum ct_ev_kind kind,
                           uint32_t thread, uint64_t time, const char *text,
                           size_t len, uint64_t count)
{
    struct ct_event ev = {.kind = kind, .thread = thread, .time = time,
                          .func = CT_FUNC_NONE, .text = text,
                          .text_len = len, .count = count};
    ex_event(e, &ev);
}

/* STACK (outermost first) or SAMPLE (leaf first) of named functions. */
static inline void ex_stack(struct ex *e, enum ct_ev_kind kind,
                            uint32_t thread, uint64_t time,
                            const char *const *names, uint32_t depth,
                            uint64_t weight)
{
    uint32_t ids[16];
    for (uint32_t i = 0; i < depth; i++)
        ids[i] = ex_fn(e, names[i]);
    struct ct_event ev = {.kind = kind, .thread = thread, .time = time,
                          .func = CT_FUNC_NONE, .stack = ids, .depth = depth,
                          .count = weight};
    ex_event(e, &ev);
}

/* Finishes both; returns the exporter's status.  e->buf holds the output. */
static inline int ex_finish(struct ex *e)
{
    if (e->p)
        ct_profile_finish(e->p);
    int r = e->x->finish(e->x, e->p);
    fclose(e->out);
    e->out = NULL;
    return r;
}

static inline void ex_free(struct ex *e)
{
    e->x->free(e->x);
    ct_profile_free(e->p);
    free(e->buf);
    ct_trace_info_free(&e->info);
}

#endif /* CT_EXPORT_FIXTURE_H */
