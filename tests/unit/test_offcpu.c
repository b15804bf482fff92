/* Off-CPU time: decoding SWITCH payloads, and the profile taking off-CPU
 * intervals out of nested frames' self and children time. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "analyzer/readers/calltrace_reader.h"
#include "profile_fixture.h"

static size_t payload(uint8_t *buf, uint32_t prev, uint64_t anchor_ticks,
                      uint64_t anchor_ns, uint64_t lost, const uint64_t *pairs,
                      size_t npairs)
{
    uint8_t *p = buf;
    for (int i = 0; i < 4; i++)
        *p++ = (uint8_t)(prev >> (8 * i));
    p = ct_put_varint(p, anchor_ticks);
    p = ct_put_varint(p, anchor_ns);
    p = ct_put_varint(p, lost);
    for (size_t i = 0; i < 2 * npairs; i++)
        p = ct_put_varint(p, pairs[i]);
    return (size_t)(p - buf);
}

/* Two intervals before an anchor, with 2 ticks a nanosecond. */
static void decodes_intervals(void **state)
{
    (void)state;
    uint8_t buf[128];
    const uint64_t pairs[] = {1000, 200 << 1 | 1, 100, 50 << 1};
    size_t len = payload(buf, 5, 10000, 5000, 3, pairs, 2);
    struct ctr_interval *iv = NULL;
    size_t n = 0, cap = 0;
    uint32_t prev = 0;
    uint64_t lost = 0;
    assert_true(ctr_switch_decode(buf, len, 0.5, &iv, &n, &cap, &prev, &lost));
    assert_int_equal(prev, 5);
    assert_int_equal(lost, 3);
    assert_int_equal(n, 2);
    assert_int_equal(iv[0].start, 8000);
    assert_int_equal(iv[0].end, 8400);
    assert_true(iv[0].preempted);
    assert_int_equal(iv[1].start, 9800);
    assert_int_equal(iv[1].end, 9900);
    assert_false(iv[1].preempted);
    free(iv);
}

/* An empty drain (the one at every block start) and damaged payloads. */
static void decodes_empty_and_refuses_damage(void **state)
{
    (void)state;
    uint8_t buf[128];
    struct ctr_interval *iv = NULL;
    size_t n = 0, cap = 0;
    uint32_t prev;
    uint64_t lost;
    size_t len = payload(buf, 0, 77, 88, 0, NULL, 0);
    assert_true(ctr_switch_decode(buf, len, 1.0, &iv, &n, &cap, &prev, &lost));
    assert_int_equal(n, 0);
    assert_false(ctr_switch_decode(buf, 3, 1.0, &iv, &n, &cap, &prev, &lost));
    const uint64_t pairs[] = {300, 20};
    len = payload(buf, 0, 1000, 1000, 0, pairs, 1);
    /* the pair cut in half */
    assert_false(ctr_switch_decode(buf, len - 1, 1.0, &iv, &n, &cap, &prev,
                                   &lost));
    /* an interval before the trace's time 0 starts at 0 */
    const uint64_t early[] = {5000, 20};
    len = payload(buf, 0, 1000, 9000, 0, early, 1);
    n = 0;
    assert_true(ctr_switch_decode(buf, len, 1.0, &iv, &n, &cap, &prev, &lost));
    assert_int_equal(n, 1);
    assert_int_equal(iv[0].start, 0);
    free(iv);
}

static void off(struct fx *x, uint32_t thread, uint64_t from, uint64_t to)
{
    fx_ev(x, CT_EV_OFFCPU_START, thread, from, CT_FUNC_NONE);
    fx_ev(x, CT_EV_OFFCPU_END, thread, to, CT_FUNC_NONE);
}

/*
 * main [0, 100] calls f [10, 60], which calls g [20, 40].  Off the CPU:
 * [25, 35] in g, [45, 55] in f itself, [58, 65] across f's return, and
 * [70, 80] in main.
 */
static void subtracts_from_nested_frames(void **state)
{
    (void)state;
    struct fx x;
    fx_init(&x);
    FX_CALL(&x, 0, 0, "main");
    FX_CALL(&x, 0, 10, "f");
    FX_CALL(&x, 0, 20, "g");
    off(&x, 0, 25, 35);
    FX_POP(&x, 0, 40);
    off(&x, 0, 45, 55);
    fx_ev(&x, CT_EV_OFFCPU_START, 0, 58, CT_FUNC_NONE);
    FX_POP(&x, 0, 60);
    fx_ev(&x, CT_EV_OFFCPU_END, 0, 65, CT_FUNC_NONE);
    off(&x, 0, 70, 80);
    FX_POP(&x, 0, 100);
    ct_profile_finish(x.p);
    const struct ct_fstats *g = fx_f(&x, "g"), *f = fx_f(&x, "f"),
                           *m = fx_f(&x, "main");
    assert_int_equal(g->self_ticks, 20);
    assert_int_equal(g->off_self_ticks, 10);
    assert_int_equal(g->off_child_ticks, 0);
    assert_int_equal(f->self_ticks, 30);
    assert_int_equal(f->off_self_ticks, 10 + 2);
    assert_int_equal(f->child_ticks, 20);
    assert_int_equal(f->off_child_ticks, 10);
    assert_int_equal(m->self_ticks, 50);
    assert_int_equal(m->off_self_ticks, 5 + 10);
    assert_int_equal(m->off_child_ticks, 22);
    /* the arcs carry the same split */
    const struct ct_arc *a = fx_arc(&x, "main", "f");
    assert_int_equal(a->off_self_ticks, 12);
    assert_int_equal(a->off_child_ticks, 10);
    assert_int_equal(x.p->totals.offcpu, 37);
    assert_int_equal(x.p->thread_time[0].off, 37);
    assert_int_equal(x.p->thread_time[0].off_cpu, 37);
    assert_int_equal(x.p->totals.cpu + x.p->totals.overhead +
                         x.p->totals.unmetered + x.p->totals.unknown,
                     x.p->totals.elapsed);
    fx_free(&x);
}

/* Recursion counts off-CPU time once, like the wall time; time off the
 * CPU with nothing traced open is the thread's, not a function's. */
static void recursion_and_unmetered(void **state)
{
    (void)state;
    struct fx x;
    fx_init(&x);
    off(&x, 0, 0, 10);            /* before anything is open */
    FX_CALL(&x, 0, 10, "r");
    FX_CALL(&x, 0, 20, "r");
    off(&x, 0, 22, 28);
    FX_POP(&x, 0, 30);
    FX_POP(&x, 0, 40);
    ct_profile_finish(x.p);
    const struct ct_fstats *r = fx_f(&x, "r");
    assert_int_equal(r->self_ticks, 30);
    assert_int_equal(r->off_self_ticks, 6);
    assert_int_equal(r->off_child_ticks, 0);
    assert_int_equal(x.p->totals.offcpu, 6);
    assert_int_equal(x.p->thread_time[0].off, 16);
    assert_int_equal(x.p->thread_time[0].elapsed, 40);
    fx_free(&x);
}

/* CPUTIME readings give a per-thread total, from first to last reading. */
static void cpu_clock_readings(void **state)
{
    (void)state;
    struct fx x;
    fx_init(&x);
    struct ct_event ev = {.kind = CT_EV_CPUTIME, .thread = 1, .time = 100,
                          .func = CT_FUNC_NONE, .count = 5000};
    x.sink->event(x.sink, &ev);
    FX_CALL(&x, 1, 110, "f");
    FX_POP(&x, 1, 900);
    ev.time = 1000;
    ev.count = 5300;
    x.sink->event(x.sink, &ev);
    ct_profile_finish(x.p);
    assert_int_equal(x.p->thread_time[1].clock_ticks, 900);
    assert_int_equal(x.p->thread_time[1].clock_cpu_ns, 300);
    /* neither is an event of the program */
    assert_int_equal(x.p->counts.events, 2);
    fx_free(&x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(decodes_intervals),
        cmocka_unit_test(decodes_empty_and_refuses_damage),
        cmocka_unit_test(subtracts_from_nested_frames),
        cmocka_unit_test(recursion_and_unmetered),
        cmocka_unit_test(cpu_clock_readings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
