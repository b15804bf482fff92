/* --dump: exact text for small traces (docs/dump-format.md). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyzer/writers/export.h"
#include "analyzer/readers/reader.h"
#include "tracegen.h"
#include "analyzer/util.h"

struct out {
    char *text;
    size_t len;
    FILE *f;
};

static void out_open(struct out *o)
{
    o->text = NULL;
    o->len = 0;
    o->f = open_memstream(&o->text, &o->len);
    assert_non_null(o->f);
}

static void out_close(struct out *o)
{
    fclose(o->f);
}

/* Reads a synthetic trace and dumps it. */
static void dump_trace(struct tg_trace *t, struct out *o)
{
    struct ct_input in = {"mem.raw", t->data, t->size};
    struct ct_trace_info info;
    ct_trace_info_init(&info, in.path, "calltrace");
    out_open(o);
    struct ct_exporter *ex = ct_dump_new(o->f, &info);
    struct ct_read_opts none = {0};
    assert_int_equal(ct_reader_calltrace.read(&in, &info, &ex->sink, &none),
                     CT_EXIT_OK);
    assert_int_equal(ex->finish(ex, NULL), 0);
    ex->free(ex);
    out_close(o);
    ct_trace_info_free(&info);
}

static void test_binary_trace_two_threads(void **state)
{
    (void)state;
    struct tg_trace t;
    tg_init(&t, 1000000000ull, 4096); /* 1 tick = 1 ns */
    struct tg_thread *m = tg_thread(&t, 100), *w = tg_thread(&t, 101);
    tg_entry(&t, m, 1000000, 0x401000, 0);
    tg_entry(&t, w, 1200000, 0x402000, 0);
    tg_lost_record(&t, w, 1300000, 5);
    tg_entry(&t, m, 1500250, 0x401100, 0);
    tg_exit(&t, w, 1800000);
    tg_user(&t, m, 2000000, "phase\ttwo\n");
    tg_overhead(&t, m, 2500000, 3000001);
    tg_exit(&t, m, 3500000);
    tg_exit(&t, m, 1003500000);
    tg_finish(&t);
    struct out o;
    dump_trace(&t, &o);
    assert_string_equal(o.text,
                        "0.000000 C 0x401000\n"
                        "0.200000 C2 0x402000\n"
                        "0.300000 V2 lost: 5 events\n"
                        "0.500250 C 0x401100\n"
                        "0.800000 R2 0x402000\n"
                        "1.000000 V phase\\ttwo\\n\n"
                        "1.500000 S \n"
                        "2.000001 E \n"
                        "2.500000 R 0x401100\n"
                        "1002.500000 R 0x401000\n");
    free(o.text);
    tg_free(&t);
}

/* Pushes one event. */
static void ev(struct ct_exporter *ex, enum ct_ev_kind kind, uint32_t thread,
               uint64_t time, uint32_t func)
{
    struct ct_event e = {.kind = kind, .thread = thread, .time = time,
                         .func = func};
    assert_int_equal(ex->sink.event(&ex->sink, &e), 0);
}

/* A millisecond clock (like OpenLaszlo's) prints integers. */
static void test_ms_clock_and_every_kind(void **state)
{
    (void)state;
    struct ct_trace_info info;
    ct_trace_info_init(&info, "x", "openlaszlo");
    info.ns_per_tick = 1e6;
    uint32_t oninit = ct_functab_intern_name(info.funcs, "handle cal.oninit",
                                             17);
    uint32_t width = ct_functab_intern_name(info.funcs, "set width", 9);
    uint32_t outer = ct_functab_intern_name(info.funcs, "outer", 5);
    struct out o;
    out_open(&o);
    struct ct_exporter *ex = ct_dump_new(o.f, &info);

    ev(ex, CT_EV_OVERHEAD_START, 0, 1497, CT_FUNC_NONE);
    ev(ex, CT_EV_CALL, 0, 1499, oninit);
    ev(ex, CT_EV_CALL, 0, 1500, width);
    ev(ex, CT_EV_RETURN, 0, 1503, CT_FUNC_NONE);
    struct ct_event user = {.kind = CT_EV_USER, .time = 1504,
                            .func = CT_FUNC_NONE, .text = "done: LzView(cal)xx",
                            .text_len = 17};
    ex->sink.event(&ex->sink, &user);
    uint32_t stack[2] = {width, oninit};
    struct ct_event sample = {.kind = CT_EV_SAMPLE, .time = 1505,
                              .func = CT_FUNC_NONE, .count = 1,
                              .stack = stack, .depth = 2};
    ex->sink.event(&ex->sink, &sample);
    ev(ex, CT_EV_RETURN, 0, 1507, oninit);
    ev(ex, CT_EV_RETURN, 0, 1508, CT_FUNC_NONE); /* nothing open */
    ev(ex, CT_EV_OVERHEAD_END, 0, 1526, CT_FUNC_NONE);
    /* A second thread that began inside "outer" and ends with it open. */
    uint32_t open[1] = {outer};
    struct ct_event st = {.kind = CT_EV_STACK, .thread = 1, .time = 1530,
                          .func = CT_FUNC_NONE, .stack = open, .depth = 1};
    ex->sink.event(&ex->sink, &st);
    ev(ex, CT_EV_CALL, 1, 1531, width);
    ev(ex, CT_EV_THREAD_END, 1, 1540, CT_FUNC_NONE);
    assert_int_equal(ex->finish(ex, NULL), 0);
    ex->free(ex);
    out_close(&o);
    assert_string_equal(o.text,
                        "0 S \n"
                        "2 C handle cal.oninit\n"
                        "3 C set width\n"
                        "6 R set width\n"
                        "7 V done: LzView(cal)\n"
                        "8 V sample: set width;handle cal.oninit\n"
                        "10 R handle cal.oninit\n"
                        "11 R ?\n"
                        "29 E \n"
                        "33 V2 already open: outer\n"
                        "34 C2 set width\n"
                        "43 V2 never returned: set width\n"
                        "43 R2 set width\n"
                        "43 V2 never returned: outer\n"
                        "43 R2 outer\n");
    free(o.text);
    ct_trace_info_free(&info);
}

/* Threads pushed one after the other still come out in time order, and
 * the trace's first event (when the reader knows it) is time 0. */
static void test_reorders_threads(void **state)
{
    (void)state;
    struct ct_trace_info info;
    ct_trace_info_init(&info, "x", "rtl");
    info.ns_per_tick = 1e6;
    info.have_first_time = true;
    info.first_time = 100;
    uint32_t f = ct_functab_intern_name(info.funcs, "f", 1);
    uint32_t g = ct_functab_intern_name(info.funcs, "g", 1);
    struct out o;
    out_open(&o);
    struct ct_exporter *ex = ct_dump_new(o.f, &info);
    ev(ex, CT_EV_CALL, 0, 110, f);
    ev(ex, CT_EV_RETURN, 0, 130, f);
    ev(ex, CT_EV_CALL, 1, 105, g);
    ev(ex, CT_EV_RETURN, 1, 120, g);
    assert_int_equal(ex->finish(ex, NULL), 0);
    ex->free(ex);
    out_close(&o);
    assert_string_equal(o.text, "5 C2 g\n"
                                "10 C f\n"
                                "20 R2 g\n"
                                "30 R f\n");
    free(o.text);
    ct_trace_info_free(&info);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_binary_trace_two_threads),
        cmocka_unit_test(test_ms_clock_and_every_kind),
        cmocka_unit_test(test_reorders_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
