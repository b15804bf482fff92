/*
 * The calltrace reader applies calls and returns straight into a profile
 * that is its only sink (the fused loop of calltrace_decode.c), and hands
 * everything else, or every event when other sinks listen, over in
 * batches (or one by one).  Both ways must build the same profile: the
 * same records are read into a profile each way and the profiles
 * compared field by field, on a trace that has every case the fused loop
 * leaves to the general path (new functions, overhead intervals, lost
 * events, user events, thread names, blocks that begin with open frames,
 * threads interleaved, a --time-range window's edges).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "analyzer/model/profile.h"
#include "analyzer/readers/read_calltrace.h"
#include "analyzer/readers/reader.h"
#include "analyzer/model/trace.h"
#include "tracegen.h"
#include "analyzer/util.h"

static uint64_t rng_state;

static uint32_t rnd(uint32_t n)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state % n);
}

/* Three threads taking turns, each calling and returning at random over
 * a set of functions that grows as the trace goes on, with the rare
 * records sprinkled in; small blocks, so that many begin with STACK. */
static void build(struct tg_trace *t, uint64_t seed, unsigned steps)
{
    rng_state = seed;
    tg_init(t, 1000000000ull, 4096);
    t->hdr.bias_ps = 2000; /* 2 ticks a call, for --subtract-bias */
    struct tg_thread *th[3] = {tg_thread(t, 100), tg_thread(t, 101),
                               tg_thread(t, 102)};
    uint64_t time = 1000;
    for (unsigned i = 0; i < steps; i++) {
        struct tg_thread *h = th[rnd(8) < 6 ? 0 : 1 + rnd(2)];
        time += 1 + rnd(40);
        unsigned nfuncs = 4 + i / 40;
        uint32_t what = rnd(1000);
        if (what < 5) {
            tg_overhead(t, h, time, time + 3);
            time += 3;
        } else if (what < 8) {
            tg_lost_record(t, h, time, 1 + rnd(5));
        } else if (what < 11) {
            tg_user(t, h, time, "mark");
        } else if (what < 13) {
            tg_thread_name(t, h, time, "worker");
        } else if (h->depth && (what < 480 || h->depth > 60)) {
            tg_exit(t, h, time);
        } else {
            uint64_t fn = 0x401000 + 16 * rnd(nfuncs);
            tg_entry(t, h, time, fn, 0x500000 + rnd(64));
        }
    }
    tg_finish(t);
}

/* Forwards batches to the profile's sink, which the reader then does not
 * recognise as a profile: the buffered path. */
struct relay {
    struct ct_batch_sink sink;
    struct ct_batch_sink *to;
};

static int relay_events(struct ct_batch_sink *self, const struct ct_event *ev,
                        size_t n)
{
    struct relay *r = (struct relay *)self;
    return r->to->events(r->to, ev, n);
}

/* The same, one event at a time (a sink that is not a batch sink). */
struct single {
    struct ct_sink sink;
    struct ct_sink *to;
};

static int single_event(struct ct_sink *self, const struct ct_event *ev)
{
    struct single *s = (struct single *)self;
    return s->to->event(s->to, ev);
}

enum way { FUSED, BATCHED, SINGLE };

struct read {
    struct ct_trace_info info;
    struct ct_profile *p;
};

static void read_way(const struct tg_trace *t, enum way way,
                     const struct ct_profile_opts *po, struct read *out)
{
    uint8_t *copy = malloc(t->size);
    assert_non_null(copy);
    memcpy(copy, t->data, t->size);
    struct ct_input in = {"mem.raw", copy, t->size};
    ct_trace_info_init(&out->info, in.path, "calltrace");
    out->p = ct_profile_new(&out->info, po);
    struct ct_sink *sink = ct_profile_sink(out->p);
    struct relay relay = {{{ct_batch_sink_event}, relay_events},
                          ct_sink_batch(sink)};
    struct single single = {{single_event}, sink};
    struct ct_read_opts ro = {
        .have_range = po->have_range,
        .range_from_ns = po->range_from_ns,
        .range_to_ns = po->range_to_ns,
    };
    if (way == BATCHED)
        sink = &relay.sink.sink;
    else if (way == SINGLE)
        sink = &single.sink;
    assert_int_equal(ct_reader_calltrace.read(&in, &out->info, sink, &ro),
                     CT_EXIT_OK);
    ct_profile_finish(out->p);
    free(copy);
}

static void assert_same(const struct ct_profile *a, const struct ct_profile *b)
{
    assert_int_equal(a->nfuncs, b->nfuncs);
    for (uint32_t i = 0; i < a->nfuncs; i++) {
        const struct ct_fstats *x = &a->funcs[i], *y = &b->funcs[i];
        assert_int_equal(x->calls, y->calls);
        assert_int_equal(x->self_calls, y->self_calls);
        assert_int_equal(x->self_ticks, y->self_ticks);
        assert_int_equal(x->child_ticks, y->child_ticks);
        assert_int_equal(x->off_self_ticks, y->off_self_ticks);
        assert_int_equal(x->off_child_ticks, y->off_child_ticks);
        assert_int_equal(x->cycle, y->cycle);
    }
    assert_int_equal(a->narcs, b->narcs);
    for (uint32_t i = 0; i < a->narcs; i++) {
        const struct ct_arc *x = &a->arcs[i], *y = &b->arcs[i];
        assert_int_equal(x->caller, y->caller);
        assert_int_equal(x->callee, y->callee);
        assert_int_equal(x->count, y->count);
        assert_int_equal(x->self_ticks, y->self_ticks);
        assert_int_equal(x->child_ticks, y->child_ticks);
    }
    assert_memory_equal(&a->totals, &b->totals, sizeof a->totals);
    assert_memory_equal(&a->counts, &b->counts, sizeof a->counts);
    assert_int_equal(a->nevents, b->nevents);
    assert_int_equal(a->ncycles, b->ncycles);
}

static void free_read(struct read *r)
{
    ct_profile_free(r->p);
    ct_trace_info_free(&r->info);
}

static void compare_ways(const struct ct_profile_opts *po)
{
    for (uint64_t seed = 1; seed <= 6; seed++) {
        struct tg_trace t;
        build(&t, seed * 0x9e3779b97f4a7c15ull, 6000);
        struct read fused, other;
        read_way(&t, FUSED, po, &fused);
        /* most records in the window took the fused loop, not all */
        assert_true(ct_calltrace_stats.fused >
                    ct_calltrace_stats.records / (po->have_range ? 5 : 2));
        assert_true(ct_calltrace_stats.fused < ct_calltrace_stats.records);
        /* the trace has what it must: calls on every path */
        assert_true(fused.p->counts.calls > (po->have_range ? 500 : 2000));
        assert_true(fused.p->counts.lost > 0);
        assert_true(fused.p->totals.overhead > 0);
        static const enum way others[] = {BATCHED, SINGLE};
        for (size_t w = 0; w < sizeof others / sizeof others[0]; w++) {
            read_way(&t, others[w], po, &other);
            assert_int_equal(ct_calltrace_stats.fused, 0);
            assert_same(fused.p, other.p);
            free_read(&other);
        }
        free_read(&fused);
        tg_free(&t);
    }
}

static void test_fused_matches_buffered(void **state)
{
    (void)state;
    struct ct_profile_opts po = {0};
    compare_ways(&po);
}

static void test_fused_matches_buffered_bias(void **state)
{
    (void)state;
    struct ct_profile_opts po = {.subtract_bias = true};
    compare_ways(&po);
}

/* A window that opens and closes inside the trace: the fused loop stops
 * at its end and leaves the clipping to the general path. */
static void test_fused_matches_buffered_in_window(void **state)
{
    (void)state;
    struct ct_profile_opts po = {.have_range = true,
                                 .range_from_ns = 20000,
                                 .range_to_ns = 60000};
    compare_ways(&po);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fused_matches_buffered),
        cmocka_unit_test(test_fused_matches_buffered_bias),
        cmocka_unit_test(test_fused_matches_buffered_in_window),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
