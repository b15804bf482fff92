/* The --time-range filter in front of --dump and the exports
 * (analyzer/model/sink.c): what it passes on, and when.  The frames open
 * as the window begins come as one STACK at the window's start, also for
 * a thread whose next event comes after the window (a pause of tracing, a
 * sleep), so every view draws them where the profile charges them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyzer/model/trace.h"

struct seen {
    struct ct_sink sink;
    struct ct_event ev[16];
    uint32_t stack[16][4];
    size_t n;
};

static int record(struct ct_sink *self, const struct ct_event *ev)
{
    struct seen *s = (struct seen *)self;
    assert_true(s->n < 16);
    s->ev[s->n] = *ev;
    if (ev->kind == CT_EV_STACK) {
        assert_true(ev->depth <= 4);
        memcpy(s->stack[s->n], ev->stack, ev->depth * sizeof *ev->stack);
        s->ev[s->n].stack = s->stack[s->n];
    }
    s->n++;
    return 0;
}

struct rx {
    struct ct_trace_info info;
    struct seen seen;
    struct ct_range_filter f;
};

/* A window [from, to] in ns; one tick is one ns, the trace begins at 0. */
static void rx_init(struct rx *x, int64_t from, int64_t to)
{
    memset(x, 0, sizeof *x);
    ct_trace_info_init(&x->info, "test.trace", "calltrace");
    x->info.ns_per_tick = 1.0;
    x->info.have_first_time = true;
    x->info.first_time = 0;
    x->seen.sink.event = record;
    ct_range_filter_init(&x->f, &x->seen.sink, &x->info, from, to);
}

static void rx_ev(struct rx *x, enum ct_ev_kind kind, uint32_t thread,
                  uint64_t time, uint32_t func)
{
    struct ct_event ev = {.kind = kind, .thread = thread, .time = time,
                          .func = func};
    assert_int_equal(x->f.sink.event(&x->f.sink, &ev), 0);
}

static void rx_free(struct rx *x)
{
    ct_range_filter_free(&x->f);
    ct_trace_info_free(&x->info);
}

/* Frames open before the window come at its start, then the events
 * inside; what comes after is held back and remembered. */
static void open_frames_at_window_start(void **state)
{
    (void)state;
    struct rx x;
    rx_init(&x, 100, 200);
    rx_ev(&x, CT_EV_CALL, 0, 10, 1);
    rx_ev(&x, CT_EV_CALL, 0, 20, 2);
    rx_ev(&x, CT_EV_CALL, 0, 30, 3);
    rx_ev(&x, CT_EV_RETURN, 0, 40, CT_FUNC_NONE);
    rx_ev(&x, CT_EV_OFFCPU_START, 0, 150, CT_FUNC_NONE);
    rx_ev(&x, CT_EV_CALL, 0, 160, 4);
    rx_ev(&x, CT_EV_RETURN, 0, 250, CT_FUNC_NONE);
    assert_int_equal(x.seen.n, 3);
    assert_int_equal(x.seen.ev[0].kind, CT_EV_STACK);
    assert_int_equal(x.seen.ev[0].time, 100);
    assert_int_equal(x.seen.ev[0].depth, 2);
    assert_int_equal(x.seen.ev[0].stack[0], 1);
    assert_int_equal(x.seen.ev[0].stack[1], 2);
    assert_int_equal(x.seen.ev[1].kind, CT_EV_OFFCPU_START);
    assert_int_equal(x.seen.ev[2].kind, CT_EV_CALL);
    assert_int_equal(x.seen.ev[2].time, 160);
    assert_true(ct_range_past(&x.f, 0));
    rx_free(&x);
}

/* A thread with frames open and no event inside the window (paused, or
 * asleep, from before it to after it): its frames are open all through;
 * a thread with nothing open is not mentioned. */
static void no_event_inside(void **state)
{
    (void)state;
    struct rx x;
    rx_init(&x, 100, 200);
    rx_ev(&x, CT_EV_CALL, 0, 10, 1);
    rx_ev(&x, CT_EV_CALL, 1, 20, 5);
    rx_ev(&x, CT_EV_RETURN, 1, 30, CT_FUNC_NONE);
    rx_ev(&x, CT_EV_RETURN, 0, 300, CT_FUNC_NONE);
    rx_ev(&x, CT_EV_CALL, 1, 310, 6);
    assert_int_equal(x.seen.n, 1);
    assert_int_equal(x.seen.ev[0].kind, CT_EV_STACK);
    assert_int_equal(x.seen.ev[0].thread, 0);
    assert_int_equal(x.seen.ev[0].time, 100);
    assert_int_equal(x.seen.ev[0].depth, 1);
    assert_int_equal(x.seen.ev[0].stack[0], 1);
    assert_true(ct_range_past(&x.f, 0));
    assert_true(ct_range_past(&x.f, 1));
    rx_free(&x);
}

/* A thread whose data begins inside the window gets no STACK of its own
 * making, and one that ends inside it is not past it. */
static void begins_and_ends_inside(void **state)
{
    (void)state;
    struct rx x;
    rx_init(&x, 100, 200);
    rx_ev(&x, CT_EV_CALL, 0, 120, 1);
    rx_ev(&x, CT_EV_THREAD_END, 0, 130, CT_FUNC_NONE);
    assert_int_equal(x.seen.n, 2);
    assert_int_equal(x.seen.ev[0].kind, CT_EV_CALL);
    assert_int_equal(x.seen.ev[1].kind, CT_EV_THREAD_END);
    assert_false(ct_range_past(&x.f, 0));
    rx_free(&x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(open_frames_at_window_start),
        cmocka_unit_test(no_event_inside),
        cmocka_unit_test(begins_and_ends_inside),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
