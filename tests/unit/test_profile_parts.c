/*
 * Profiles made in parts (profile_parts.c) add up to the profile of the
 * whole event stream: the same events fed once to one profile and, cut
 * into pieces, to parts that are then merged.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "analyzer/model/profile_dist.h"
#include "profile_fixture.h"

struct ev {
    enum ct_ev_kind kind;
    uint32_t thread;
    uint64_t time;
    const char *func;       /* NULL: CT_FUNC_NONE                          */
};

static void feed(struct fx *x, struct ct_sink *sink, const struct ev *ev,
                 size_t n)
{
    for (size_t i = 0; i < n; i++) {
        struct ct_event e = {
            .kind = ev[i].kind, .thread = ev[i].thread, .time = ev[i].time,
            .func = ev[i].func ? fx_fn(x, ev[i].func) : CT_FUNC_NONE};
        if (e.kind == CT_EV_USER) {
            e.text = ev[i].func;
            e.text_len = strlen(ev[i].func);
            e.func = CT_FUNC_NONE;
        }
        sink->event(sink, &e);
    }
}

static void stack_event(struct fx *x, struct ct_sink *sink, uint32_t thread,
                        uint64_t t, const char *const *names, uint32_t n)
{
    uint32_t ids[8];
    for (uint32_t i = 0; i < n; i++)
        ids[i] = fx_fn(x, names[i]);
    struct ct_event e = {.kind = CT_EV_STACK, .thread = thread, .time = t,
                         .func = CT_FUNC_NONE, .stack = ids, .depth = n};
    sink->event(sink, &e);
}

#define C(th, t, f) {CT_EV_CALL, th, t, f}
#define R(th, t, f) {CT_EV_RETURN, th, t, f}
#define U(th, t, text) {CT_EV_USER, th, t, text}
#define S(th, t) {CT_EV_OVERHEAD_START, th, t, NULL}
#define E(th, t) {CT_EV_OVERHEAD_END, th, t, NULL}

/* Thread 0, cut at time 30 inside a recursion; the block switch there is
 * the tracer's overhead until 33. */
static const struct ev t0_a[] = {
    C(0, 0, "main"), C(0, 10, "f"), C(0, 20, "f"), C(0, 25, "g"), S(0, 30),
};
static const char *const t0_open[] = {"main", "f", "f", "g"};
static const struct ev t0_b[] = {
    E(0, 33), R(0, 45, "g"), R(0, 50, "f"), U(0, 52, "mid"), R(0, 60, "f"),
    C(0, 70, "h"), R(0, 80, "h"), R(0, 100, "main"),
};
/* Thread 1, whole. */
static const struct ev t1[] = {
    C(1, 5, "x"), C(1, 8, "f"), R(1, 12, "f"), R(1, 15, "x"), U(1, 16, "t1"),
    C(1, 17, "x"), /* open at the end */
};
/* Thread 2: unmetered time before a return with no call, across a cut. */
static const struct ev t2_a[] = {U(2, 0, "a"), U(2, 10, "b")};
static const struct ev t2_b[] = {R(2, 20, "lost"), C(2, 22, "y"),
                                 R(2, 30, "y")};

static void whole_profile(struct fx *x)
{
    feed(x, x->sink, t0_a, sizeof t0_a / sizeof *t0_a);
    feed(x, x->sink, t1, sizeof t1 / sizeof *t1);
    feed(x, x->sink, t2_a, sizeof t2_a / sizeof *t2_a);
    /* The serial pass ignores a STACK record that continues a thread. */
    feed(x, x->sink, t0_b, sizeof t0_b / sizeof *t0_b);
    feed(x, x->sink, t2_b, sizeof t2_b / sizeof *t2_b);
    ct_profile_finish(x->p);
}

static void parted_profile(struct fx *x, uint32_t *map)
{
    struct ct_profile *a = ct_profile_part_new(x->p, &x->info);
    struct ct_profile *b = ct_profile_part_new(x->p, &x->info);
    struct ct_profile *c = ct_profile_part_new(x->p, &x->info);
    struct ct_profile *d = ct_profile_part_new(x->p, &x->info);
    /* a: thread 0's first piece; c: thread 2's first; d: thread 1 whole */
    feed(x, ct_profile_sink(a), t0_a, sizeof t0_a / sizeof *t0_a);
    feed(x, ct_profile_sink(c), t2_a, sizeof t2_a / sizeof *t2_a);
    feed(x, ct_profile_sink(d), t1, sizeof t1 / sizeof *t1);
    bool in_overhead;
    uint32_t open[8];
    assert_int_equal(ct_profile_part_open(a, 0, open, 8, &in_overhead), 4);
    assert_true(in_overhead);
    assert_int_equal(open[2], fx_fn(x, "f"));
    ct_profile_part_end(a, false);
    ct_profile_part_end(c, false);
    ct_profile_part_end(d, true);
    /* b: the rest of threads 0 and 2, each opened as the reader opens a
     * piece: OVERHEAD_START and STACK at the block's first tick. */
    ct_profile_part_resume(b, 0, 30);
    ct_profile_part_resume(b, 2, 10);
    struct ev s0 = S(0, 30);
    feed(x, ct_profile_sink(b), &s0, 1);
    stack_event(x, ct_profile_sink(b), 0, 30, t0_open, 4);
    stack_event(x, ct_profile_sink(b), 2, 10, NULL, 0);
    feed(x, ct_profile_sink(b), t0_b, sizeof t0_b / sizeof *t0_b);
    feed(x, ct_profile_sink(b), t2_b, sizeof t2_b / sizeof *t2_b);
    ct_profile_part_end(b, true);
    ct_profile_merge(x->p, d, map, 0);
    ct_profile_merge(x->p, a, map, 0);
    ct_profile_merge(x->p, c, map, 0);
    ct_profile_merge(x->p, b, map, 3);
    ct_profile_free(a);
    ct_profile_free(b);
    ct_profile_free(c);
    ct_profile_free(d);
    ct_profile_finish(x->p);
}

static void test_parts_add_up(void **state)
{
    (void)state;
    struct fx w, m;
    fx_init(&w);
    fx_init(&m);
    /* The same names get the same ids in both tables: an identity map. */
    static const char *const names[] = {"main", "f", "g", "h", "x", "y"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        assert_int_equal(fx_fn(&w, names[i]), fx_fn(&m, names[i]));
    uint32_t map[64];
    for (uint32_t i = 0; i < 64; i++)
        map[i] = i;
    whole_profile(&w);
    parted_profile(&m, map);

    assert_memory_equal(&w.p->totals, &m.p->totals, sizeof w.p->totals);
    assert_memory_equal(&w.p->counts, &m.p->counts, sizeof w.p->counts);
    assert_int_equal(w.p->counts.unmatched_returns, 1);
    assert_int_equal(w.p->counts.open_at_end, 1);
    assert_int_equal(w.p->totals.unknown, 20);
    assert_int_equal(w.p->nfuncs, m.p->nfuncs);
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        assert_memory_equal(fx_f(&w, names[i]), fx_f(&m, names[i]),
                            sizeof(struct ct_fstats));
    assert_int_equal(w.p->narcs, m.p->narcs);
    for (uint32_t i = 0; i < w.p->narcs; i++) {
        const struct ct_arc *a = &w.p->arcs[i], *b = NULL;
        for (uint32_t k = 0; k < m.p->narcs; k++)
            if (m.p->arcs[k].caller == a->caller &&
                m.p->arcs[k].callee == a->callee)
                b = &m.p->arcs[k];
        assert_non_null(b);
        assert_memory_equal(a, b, sizeof *a);
    }
    assert_int_equal(w.p->nthread_time, m.p->nthread_time);
    for (uint32_t i = 0; i < w.p->nthread_time; i++)
        assert_memory_equal(&w.p->thread_time[i], &m.p->thread_time[i],
                            sizeof *w.p->thread_time);
    assert_int_equal(w.p->nevents, 4);
    assert_int_equal(m.p->nevents, 4);
    for (size_t i = 0; i < w.p->nevents; i++) {
        assert_int_equal(w.p->events[i].time, m.p->events[i].time);
        assert_int_equal(w.p->events[i].func, m.p->events[i].func);
        assert_string_equal(w.p->events[i].text, m.p->events[i].text);
    }
    fx_free(&w);
    fx_free(&m);
}

static void same_hist(const struct ct_hist *a, const struct ct_hist *b)
{
    assert_int_equal(a->count, b->count);
    assert_int_equal(a->sum, b->sum);
    assert_int_equal(a->min, b->min);
    assert_int_equal(a->max, b->max);
    for (unsigned q = 0; q <= 1000; q += 100)
        assert_int_equal(ct_hist_quantile(a, q), ct_hist_quantile(b, q));
}

/* --stats: a call open across the cut (main, both f, g on thread 0) is one
 * call in the merged profile, as in the whole one. */
static void test_stats_join(void **state)
{
    (void)state;
    struct fx w, m;
    struct ct_profile_opts o = {.stats = true};
    fx_init_opts(&w, &o);
    fx_init_opts(&m, &o);
    static const char *const names[] = {"main", "f", "g", "h", "x", "y"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        assert_int_equal(fx_fn(&w, names[i]), fx_fn(&m, names[i]));
    uint32_t map[64];
    for (uint32_t i = 0; i < 64; i++)
        map[i] = i;
    whole_profile(&w);
    parted_profile(&m, map);
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        const struct ct_call_dist *a =
            ct_profile_func_dist(w.p, fx_fn(&w, names[i]));
        const struct ct_call_dist *b =
            ct_profile_func_dist(m.p, fx_fn(&m, names[i]));
        assert_true((a == NULL) == (b == NULL));
        if (a) {
            same_hist(&a->total, &b->total);
            same_hist(&a->self, &b->self);
        }
    }
    /* f: 10..60 less the overhead 30..33, 20..50 likewise, and 8..12 */
    const struct ct_call_dist *f = ct_profile_func_dist(w.p, fx_fn(&w, "f"));
    assert_non_null(f);
    assert_int_equal(f->total.count, 3);
    assert_int_equal(f->total.min, 4);
    assert_int_equal(f->total.max, 47);
    assert_int_equal(f->total.sum, 47 + 27 + 4);
    /* g: 25..45 less the overhead; main: 0..100 less it */
    assert_int_equal(ct_profile_func_dist(w.p, fx_fn(&w, "g"))->total.max, 17);
    assert_int_equal(ct_profile_func_dist(w.p, fx_fn(&w, "main"))->total.max,
                     97);
    /* x: the call left open at the end is not counted */
    assert_int_equal(ct_profile_func_dist(w.p, fx_fn(&w, "x"))->total.count,
                     1);
    fx_free(&w);
    fx_free(&m);
}

/* A part's function ids are its own: the map takes them to the whole's. */
static void test_ids_are_mapped(void **state)
{
    (void)state;
    struct fx x;
    fx_init(&x);
    uint32_t p = fx_fn(&x, "p"), q = fx_fn(&x, "q");
    struct ct_profile *part = ct_profile_part_new(x.p, &x.info);
    struct ct_sink *s = ct_profile_sink(part);
    /* In the part, "p" is called by "q"; the map swaps the two ids. */
    struct ct_event ev[] = {
        {.kind = CT_EV_CALL, .time = 1, .func = q},
        {.kind = CT_EV_CALL, .time = 2, .func = p},
        {.kind = CT_EV_RETURN, .time = 5, .func = CT_FUNC_NONE},
        {.kind = CT_EV_RETURN, .time = 9, .func = CT_FUNC_NONE},
    };
    for (size_t i = 0; i < 4; i++)
        s->event(s, &ev[i]);
    ct_profile_part_end(part, true);
    uint32_t map[2];
    map[p] = q;
    map[q] = p;
    ct_profile_merge(x.p, part, map, 0);
    ct_profile_free(part);
    ct_profile_finish(x.p);
    assert_int_equal(fx_f(&x, "p")->self_ticks, 5);  /* was q's: 1..2, 5..9 */
    assert_int_equal(fx_f(&x, "q")->self_ticks, 3);
    const struct ct_arc *a = fx_arc(&x, "p", "q");
    assert_non_null(a);
    assert_int_equal(a->count, 1);
    assert_null(fx_arc(&x, "q", "p"));
    fx_free(&x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parts_add_up),
        cmocka_unit_test(test_ids_are_mapped),
        cmocka_unit_test(test_stats_join),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
