/*
 * Shared by the format tests: a sink that records what a reader pushes, and
 * helpers that rebuild per-function call counts and inclusive times from
 * the record, so the tests do not depend on the profile model.
 */
#ifndef TEST_READ_SUPPORT_H
#define TEST_READ_SUPPORT_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <fcntl.h>
#include <unistd.h>

#include "analyzer/readers/reader.h"
#include "analyzer/model/trace.h"
#include "analyzer/util.h"

struct rec_event {
    struct ct_event ev;
    char *text;
};

struct rec_sink {
    struct ct_sink sink;
    struct rec_event *evs;
    size_t n, cap;
    uint64_t *last_time;   /* per thread, to check the ordering contract */
    size_t nthreads;
    int order_violations;
};

static int rec_event_cb(struct ct_sink *self, const struct ct_event *ev)
{
    struct rec_sink *r = (struct rec_sink *)self;
    if (r->n == r->cap) {
        r->cap = r->cap ? r->cap * 2 : 64;
        r->evs = realloc(r->evs, r->cap * sizeof *r->evs);
    }
    struct rec_event *e = &r->evs[r->n++];
    e->ev = *ev;
    e->ev.stack = NULL;
    e->text = ev->text ? strndup(ev->text, ev->text_len) : NULL;
    if (ev->thread >= r->nthreads) {
        size_t old = r->nthreads;
        r->nthreads = ev->thread + 1;
        r->last_time = realloc(r->last_time, r->nthreads * sizeof(uint64_t));
        memset(r->last_time + old, 0, (r->nthreads - old) * sizeof(uint64_t));
    }
    if (ev->time < r->last_time[ev->thread])
        r->order_violations++;
    r->last_time[ev->thread] = ev->time;
    return 0;
}

static inline void rec_init(struct rec_sink *r)
{
    memset(r, 0, sizeof *r);
    r->sink.event = rec_event_cb;
}

static inline void rec_free(struct rec_sink *r)
{
    for (size_t i = 0; i < r->n; i++)
        free(r->evs[i].text);
    free(r->evs);
    free(r->last_time);
    memset(r, 0, sizeof *r);
}

/* Where the format samples are: $CT_FORMATS, else tests/formats (the unit
 * tests run from the top of the repository). */
static inline const char *formats_dir(void)
{
    const char *d = getenv("CT_FORMATS");
    return d && *d ? d : "tests/formats";
}

struct loaded {
    struct ct_input in;
    struct ct_trace_info info;
    struct rec_sink rec;
    int status;
};

/* Reads `path` with reader `r` into l; false if the file is absent. */
static inline bool load_file(struct loaded *l, const struct ct_reader *r,
                             const char *path, bool lenient)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    fclose(f);
    assert_int_equal(ct_input_open(&l->in, path), 0);
    ct_trace_info_init(&l->info, path, r->name);
    rec_init(&l->rec);
    struct ct_read_opts o = {.lenient = lenient};
    l->status = r->read(&l->in, &l->info, &l->rec.sink, &o);
    assert_int_equal(l->rec.order_violations, 0);
    return true;
}

/* Same, from memory. */
static inline void load_mem(struct loaded *l, const struct ct_reader *r,
                            const void *data, size_t size, bool lenient)
{
    memset(&l->in, 0, sizeof l->in);
    l->in.path = "mem";
    l->in.data = data;
    l->in.size = size;
    ct_trace_info_init(&l->info, "mem", r->name);
    rec_init(&l->rec);
    struct ct_read_opts o = {.lenient = lenient};
    l->status = r->read(&l->in, &l->info, &l->rec.sink, &o);
    assert_int_equal(l->rec.order_violations, 0);
}

static inline void load_str(struct loaded *l, const struct ct_reader *r,
                            const char *s, bool lenient)
{
    load_mem(l, r, s, strlen(s), lenient);
}

static inline void unload(struct loaded *l)
{
    rec_free(&l->rec);
    ct_trace_info_free(&l->info);
    if (l->in.path && strcmp(l->in.path, "mem") != 0)
        ct_input_close(&l->in);
}

static inline uint32_t func_id(struct loaded *l, const char *name)
{
    uint32_t n = ct_functab_count(l->info.funcs);
    for (uint32_t i = 0; i < n; i++)
        if (strcmp(ct_functab_name(l->info.funcs, i), name) == 0)
            return i;
    return CT_FUNC_NONE;
}

/* Calls of `name` and their summed inclusive time in ticks, pairing each
 * return with the innermost open call of the same function on its thread
 * (returns without a function close the innermost frame). */
struct fsum {
    uint64_t calls, returns, ticks;
};

static inline struct fsum func_sum(struct loaded *l, const char *name)
{
    struct fsum s = {0, 0, 0};
    uint32_t f = func_id(l, name);
    if (f == CT_FUNC_NONE)
        return s;
    for (size_t i = 0; i < l->rec.n; i++) {
        const struct ct_event *e = &l->rec.evs[i].ev;
        if (e->kind != CT_EV_CALL || e->func != f)
            continue;
        s.calls++;
        int depth = 0;
        for (size_t j = i + 1; j < l->rec.n; j++) {
            const struct ct_event *x = &l->rec.evs[j].ev;
            if (x->thread != e->thread)
                continue;
            if (x->kind == CT_EV_CALL)
                depth++;
            else if (x->kind == CT_EV_RETURN) {
                if (depth == 0) {
                    if (x->func == f || x->func == CT_FUNC_NONE) {
                        s.returns++;
                        s.ticks += x->time - e->time;
                    }
                    break;
                }
                depth--;
            }
        }
    }
    return s;
}

static inline size_t count_kind(struct loaded *l, enum ct_ev_kind k)
{
    size_t n = 0;
    for (size_t i = 0; i < l->rec.n; i++)
        n += l->rec.evs[i].ev.kind == k;
    return n;
}

/* The i-th user event's text, or NULL. */
static inline const char *user_text(struct loaded *l, size_t i)
{
    for (size_t j = 0; j < l->rec.n; j++)
        if (l->rec.evs[j].ev.kind == CT_EV_USER && i-- == 0)
            return l->rec.evs[j].text;
    return NULL;
}

static inline const char *meta(struct loaded *l, const char *key)
{
    for (size_t i = 0; i < l->info.nmeta; i++)
        if (strcmp(l->info.meta[i].key, key) == 0)
            return l->info.meta[i].value;
    return NULL;
}

/* Feeds every prefix of data, and copies with a few bytes changed, strict
 * and lenient: the reader must not crash (ASan watches) and must keep the
 * per-thread time order.  The status is free: damage may be an error. */
static inline void torture(const struct ct_reader *r, const void *data,
                           size_t size, unsigned flips)
{
    uint8_t *buf = malloc(size + 1);
    /* thousands of expected error lines would bury the test output */
    fflush(stderr);
    int saved = dup(2);
    int devnull = open("/dev/null", O_WRONLY);
    dup2(devnull, 2);
    close(devnull);
    for (size_t cut = 0; cut <= size; cut++) {
        memcpy(buf, data, cut);
        struct loaded l;
        /* exactly-sized heap copy so ASan catches reads past the end */
        uint8_t *exact = malloc(cut ? cut : 1);
        memcpy(exact, buf, cut);
        for (int len = 0; len < 2; len++) {
            memset(&l.in, 0, sizeof l.in);
            l.in.path = "mem";
            l.in.data = exact;
            l.in.size = cut;
            ct_trace_info_init(&l.info, "mem", r->name);
            rec_init(&l.rec);
            struct ct_read_opts o = {.lenient = len == 1};
            r->read(&l.in, &l.info, &l.rec.sink, &o);
            assert_int_equal(l.rec.order_violations, 0);
            rec_free(&l.rec);
            ct_trace_info_free(&l.info);
        }
        free(exact);
    }
    srand(12345);
    for (unsigned k = 0; k < flips && size; k++) {
        memcpy(buf, data, size);
        for (unsigned j = 0; j < 1 + k % 4; j++)
            buf[(size_t)rand() % size] = (uint8_t)rand();
        struct loaded l;
        memset(&l.in, 0, sizeof l.in);
        l.in.path = "mem";
        l.in.data = buf;
        l.in.size = size;
        ct_trace_info_init(&l.info, "mem", r->name);
        rec_init(&l.rec);
        struct ct_read_opts o = {.lenient = k & 1};
        r->read(&l.in, &l.info, &l.rec.sink, &o);
        assert_int_equal(l.rec.order_violations, 0);
        rec_free(&l.rec);
        ct_trace_info_free(&l.info);
    }
    free(buf);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
}

/* Reads a whole file into memory (NULL if absent). */
static inline void *slurp(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    void *p = malloc(n > 0 ? (size_t)n : 1);
    *size = fread(p, 1, (size_t)n, f);
    fclose(f);
    return p;
}

#endif /* TEST_READ_SUPPORT_H */
