/*
 * Random well-formed event streams (several threads, recursion, cycles,
 * overhead S/E, user events, open frames at the end) from a fixed list of
 * seeds.  The generator keeps its own books, interval by interval; the
 * profile must agree with them exactly and satisfy gprof's identities.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "profile_fixture.h"

#define MAXF 12
#define MAXT 4
#define MAXD 40

struct books {
    uint64_t self[MAXF], onstack[MAXF], calls[MAXF], self_calls[MAXF];
    uint64_t cycle_onstack[MAXF + 1];
    uint64_t overhead, unmetered;
};

struct gthread {
    uint32_t stack[MAXD];
    int depth;
    uint64_t time;
    bool started, overhead, ended;
};

static uint64_t rng;

static uint32_t rnd(uint32_t n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng % n);
}

/* The time from the thread's previous event to its next one. */
static void account(struct books *b, struct gthread *t, uint64_t d,
                    const int32_t *cycle_of)
{
    if (t->overhead) {
        b->overhead += d;
        return;
    }
    if (!t->depth) {
        b->unmetered += d;
        return;
    }
    b->self[t->stack[t->depth - 1]] += d;
    bool seen[MAXF] = {0}, cseen[MAXF + 1] = {0};
    for (int i = 0; i < t->depth; i++) {
        uint32_t f = t->stack[i];
        if (!seen[f]) {
            seen[f] = true;
            b->onstack[f] += d;
        }
        int32_t c = cycle_of ? cycle_of[f] : 0;
        if (c && !cseen[c]) {
            cseen[c] = true;
            b->cycle_onstack[c] += d;
        }
    }
}

static void generate(uint64_t seed, struct fx *x, struct books *b,
                     const int32_t *cycle_of)
{
    rng = seed * 0x9e3779b97f4a7c15ull + 1;
    memset(b, 0, sizeof *b);
    uint32_t nthreads = 1 + rnd(MAXT), nfuncs = 2 + rnd(MAXF - 2);
    uint32_t fid[MAXF];
    for (uint32_t i = 0; i < nfuncs; i++) {
        char name[16];
        snprintf(name, sizeof name, "f%u", i);
        fid[i] = fx_fn(x, name);
    }
    struct gthread th[MAXT] = {0};
    for (uint32_t i = 0; i < nthreads; i++)
        th[i].time = rnd(1000);
    uint32_t steps = 500 + rnd(3000);
    for (uint32_t s = 0; s < steps; s++) {
        uint32_t ti = rnd(nthreads);
        struct gthread *t = &th[ti];
        if (t->ended)
            continue;
        uint64_t now = t->time + rnd(60);
        if (t->started)
            account(b, t, now - t->time, cycle_of);
        t->started = true;
        t->time = now;
        uint32_t r = rnd(100);
        if (r < 45 && t->depth < MAXD) {
            /* calls favour low ids, so recursion and cycles form */
            uint32_t f = rnd(2) ? rnd(nfuncs) : rnd(nfuncs < 4 ? nfuncs : 4);
            uint32_t caller = t->depth ? t->stack[t->depth - 1] : UINT32_MAX;
            if (caller == f)
                b->self_calls[f]++;
            else
                b->calls[f]++;
            t->stack[t->depth++] = f;
            fx_ev(x, CT_EV_CALL, ti, now, fid[f]);
        } else if (r < 88 && t->depth) {
            uint32_t f = t->stack[--t->depth];
            fx_ev(x, CT_EV_RETURN, ti, now, rnd(2) ? fid[f] : CT_FUNC_NONE);
        } else if (r < 93) {
            fx_ev(x, t->overhead ? CT_EV_OVERHEAD_END : CT_EV_OVERHEAD_START,
                  ti, now, CT_FUNC_NONE);
            t->overhead = !t->overhead;
        } else if (r < 98) {
            fx_user(x, ti, now, "event");
        } else if (r < 99 && nthreads > 1) {
            /* the thread exits with frames open; they close here */
            fx_ev(x, CT_EV_THREAD_END, ti, now, CT_FUNC_NONE);
            t->depth = 0;
            t->ended = true;
        } else {
            fx_user(x, ti, now, "tick");
        }
    }
    /* frames still open at the end close at each thread's last event */
}

static uint64_t arc_total(const struct ct_arc *a)
{
    return a->self_ticks + a->child_ticks;
}

static void check_seed(uint64_t seed, bool per_thread)
{
    struct fx x;
    struct ct_profile_opts o = {.per_thread = per_thread};
    fx_init_opts(&x, &o);
    struct books b;
    generate(seed, &x, &b, NULL);
    ct_profile_finish(x.p);
    const struct ct_profile *p = x.p;
    const struct ct_totals *t = &p->totals;

    assert_int_equal(t->cpu + t->overhead + t->unmetered + t->unknown,
                     t->elapsed);
    assert_int_equal(t->overhead, b.overhead);
    assert_int_equal(t->unmetered, b.unmetered);
    assert_int_equal(t->unknown, 0);
    assert_int_equal(p->counts.unmatched_calls, 0);
    assert_int_equal(p->counts.unmatched_returns, 0);

    int32_t cycle_of[MAXF] = {0};
    uint64_t cpu = 0;
    for (uint32_t f = 0; f < p->nfuncs && f < MAXF; f++) {
        const struct ct_fstats *fs = &p->funcs[f];
        cycle_of[f] = fs->cycle;
        cpu += fs->self_ticks;
        assert_int_equal(fs->self_ticks, b.self[f]);
        assert_int_equal(fs->calls, b.calls[f]);
        assert_int_equal(fs->self_calls, b.self_calls[f]);
        if (!fs->cycle)
            assert_int_equal(fs->self_ticks + fs->child_ticks, b.onstack[f]);
    }
    assert_int_equal(cpu, t->cpu);

    /* identities per function, and per cycle */
    uint64_t in_self[MAXF] = {0}, out_total[MAXF] = {0};
    uint64_t c_in_self[MAXF + 1] = {0}, c_in_total[MAXF + 1] = {0};
    uint64_t c_self[MAXF + 1] = {0}, c_child[MAXF + 1] = {0};
    for (uint32_t a = 0; a < p->narcs; a++) {
        const struct ct_arc *arc = &p->arcs[a];
        int32_t ce = p->funcs[arc->callee].cycle;
        int32_t cr = arc->caller == CT_FUNC_NONE ? 0
                                                  : p->funcs[arc->caller].cycle;
        if (arc->caller == arc->callee || (ce && ce == cr)) {
            assert_int_equal(arc_total(arc), 0);
            continue;
        }
        in_self[arc->callee] += arc->self_ticks;
        if (arc->caller != CT_FUNC_NONE)
            out_total[arc->caller] += arc_total(arc);
        if (ce) {
            c_in_self[ce] += arc->self_ticks;
            c_in_total[ce] += arc_total(arc);
        }
    }
    for (uint32_t f = 0; f < p->nfuncs; f++) {
        const struct ct_fstats *fs = &p->funcs[f];
        assert_int_equal(fs->child_ticks, out_total[f]);
        if (!fs->cycle)
            assert_int_equal(fs->self_ticks, in_self[f]);
        c_self[fs->cycle] += fs->self_ticks;
        c_child[fs->cycle] += fs->child_ticks;
    }
    /* replay with the cycles known: time with any member on the stack */
    struct fx y;
    fx_init(&y);
    struct books cb;
    generate(seed, &y, &cb, cycle_of);
    fx_free(&y);
    for (uint32_t c = 1; c <= p->ncycles; c++) {
        assert_int_equal(c_in_self[c], c_self[c]);
        assert_int_equal(c_in_total[c], c_self[c] + c_child[c]);
        assert_int_equal(c_in_total[c], cb.cycle_onstack[c]);
    }
    if (per_thread) {
        uint64_t sum = 0;
        for (uint32_t i = 0; i < p->nthreads; i++)
            if (p->threads[i])
                sum += p->threads[i]->totals.cpu;
        assert_int_equal(sum, t->cpu);
    }
    fx_free(&x);
}

static void random_streams(void **state)
{
    (void)state;
    static const uint64_t seeds[] = {1, 2, 3, 5, 8, 13, 21, 34, 55, 89,
                                     144, 233, 377, 610, 987, 1597, 2584,
                                     4181, 6765, 10946};
    uint32_t with_cycles = 0;
    for (size_t i = 0; i < sizeof seeds / sizeof seeds[0]; i++) {
        check_seed(seeds[i], i % 2);
        struct fx x;
        fx_init(&x);
        struct books b;
        generate(seeds[i], &x, &b, NULL);
        ct_profile_finish(x.p);
        with_cycles += x.p->ncycles > 0;
        fx_free(&x);
    }
    /* the seeds must exercise cycles, or the cycle checks test nothing */
    assert_true(with_cycles >= 10);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(random_streams),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
