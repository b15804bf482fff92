/* The calltrace reader on coroutines: CONTEXT records (docs/trace-format.md)
 * move a thread's events to a lane of their own, with its own stack, on
 * synthetic traces (tracegen.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyzer/readers/read_calltrace.h"
#include "analyzer/readers/reader.h"
#include "tracegen.h"
#include "analyzer/util.h"

#define FMAIN 0x401000u
#define FFOO 0x401100u
#define FBAR 0x401200u
#define FBAZ 0x401300u

struct ev {
    enum ct_ev_kind kind;
    uint32_t thread;
    uint64_t time, addr;
    uint32_t depth;
    uint64_t stack[4];
};

struct rec {
    struct ct_sink sink;
    struct ct_trace_info *info;
    struct ev ev[64];
    size_t n;
};

static int record(struct ct_sink *self, const struct ct_event *e)
{
    struct rec *r = (struct rec *)self;
    /* the tracer's own brackets of a block's start are not the point */
    if (e->kind == CT_EV_OVERHEAD_START || e->kind == CT_EV_OVERHEAD_END)
        return 0;
    assert_true(r->n < 64);
    struct ev *v = &r->ev[r->n++];
    memset(v, 0, sizeof *v);
    v->kind = e->kind;
    v->thread = e->thread;
    v->time = e->time;
    if (e->kind == CT_EV_CALL)
        v->addr = ct_functab_get(r->info->funcs, e->func)->addr;
    v->depth = e->depth;
    for (uint32_t i = 0; i < e->depth && i < 4; i++)
        v->stack[i] = ct_functab_get(r->info->funcs, e->stack[i])->addr;
    return 0;
}

static void read_trace(const struct tg_trace *t, const struct ct_read_opts *o,
                       struct ct_trace_info *info, struct rec *r)
{
    uint8_t *copy = malloc(t->size);
    assert_non_null(copy);
    memcpy(copy, t->data, t->size);
    struct ct_input in = {"mem.raw", copy, t->size};
    ct_trace_info_init(info, in.path, "calltrace");
    memset(r, 0, sizeof *r);
    r->sink.event = record;
    r->info = info;
    struct ct_read_opts none = {0};
    assert_int_equal(ct_reader_calltrace.read(&in, info, &r->sink,
                                              o ? o : &none),
                     CT_EXIT_OK);
    free(copy);
}

/* A CONTEXT record: id, and at a switch the frames listed. */
static void context(struct tg_trace *t, struct tg_thread *th, uint64_t time,
                    uint64_t id, int depth, const uint64_t *fns)
{
    uint8_t buf[64], *p = ct_put_varint(buf, id);
    if (depth >= 0) {
        p = ct_put_varint(p, (uint64_t)depth);
        for (int i = 0; i < depth; i++)
            p = ct_put_varint(p, fns[i]);
    }
    tg_ext(t, th, time, CT_EXT_CONTEXT, buf, (size_t)(p - buf));
}

static void expect(const struct ev *e, enum ct_ev_kind kind, uint32_t thread,
                   uint64_t time, uint64_t addr)
{
    assert_int_equal(e->kind, kind);
    assert_int_equal(e->thread, thread);
    assert_int_equal(e->time, time);
    assert_int_equal(e->addr, addr);
}

/* main -> foo -> switch to context 1 (bar), back, again, bar returns. */
static void test_switches_go_to_lanes(void **state)
{
    (void)state;
    struct tg_trace t;
    tg_init(&t, 1000000000ull, 4096);
    struct tg_thread *m = tg_thread(&t, 100);
    const uint64_t home[] = {FMAIN, FFOO}, co[] = {FBAR};
    tg_entry(&t, m, 10, FMAIN, 0);
    tg_entry(&t, m, 20, FFOO, 0);
    context(&t, m, 30, 1, 0, NULL);
    tg_entry(&t, m, 40, FBAR, 0);
    tg_entry(&t, m, 41, FBAZ, 0);
    tg_exit(&t, m, 42);
    context(&t, m, 50, 0, 2, home);
    tg_exit(&t, m, 60);        /* foo */
    tg_entry(&t, m, 61, FFOO, 0);
    context(&t, m, 70, 1, 1, co);
    tg_exit(&t, m, 80);        /* bar */
    context(&t, m, 90, 0, 2, home);
    tg_exit(&t, m, 95);        /* foo */
    tg_exit(&t, m, 100);       /* main */
    tg_finish(&t);
    struct ct_trace_info info;
    struct rec r;
    read_trace(&t, NULL, &info, &r);
    assert_int_equal(info.nthreads, 2);
    assert_int_equal(info.threads[1].tid, 100);
    assert_int_equal(info.threads[1].context, 1);
    assert_int_equal(info.threads[0].context, 0);
    char label[64];
    ct_trace_thread_label(&info, 1, label, sizeof label);
    assert_string_equal(label, "thread 100 context 1");
    /* the lanes known from their records: no STACK event for them */
    assert_int_equal(r.n, 10);
    expect(&r.ev[0], CT_EV_CALL, 0, 10, FMAIN);
    expect(&r.ev[1], CT_EV_CALL, 0, 20, FFOO);
    expect(&r.ev[2], CT_EV_CALL, 1, 40, FBAR);
    expect(&r.ev[3], CT_EV_CALL, 1, 41, FBAZ);
    expect(&r.ev[4], CT_EV_RETURN, 1, 42, 0);
    expect(&r.ev[5], CT_EV_RETURN, 0, 60, 0);
    expect(&r.ev[6], CT_EV_CALL, 0, 61, FFOO);
    expect(&r.ev[7], CT_EV_RETURN, 1, 80, 0);
    expect(&r.ev[8], CT_EV_RETURN, 0, 95, 0);
    expect(&r.ev[9], CT_EV_RETURN, 0, 100, 0);
    ct_trace_info_free(&info);
    tg_free(&t);
}

/* A block that begins inside context 1: its STACK frames are the
 * context's (the mark after it says so), and a context met first at a
 * switch opens with the frames the record lists. */
static void test_reading_from_a_later_block(void **state)
{
    (void)state;
    struct tg_trace t;
    tg_init(&t, 1000000000ull, 4096);
    struct tg_thread *m = tg_thread(&t, 100);
    const uint64_t home[] = {FMAIN, FFOO};
    tg_entry(&t, m, 10, FMAIN, 0);
    tg_entry(&t, m, 20, FFOO, 0);
    context(&t, m, 30, 1, 0, NULL);
    tg_entry(&t, m, 40, FBAR, 0);
    /* the block ends; the next one starts in context 1, inside bar */
    tg_close_block(&t, m, false);
    m->depth = 1;
    m->stack[0] = FBAR;
    tg_entry(&t, m, 1000000, FBAZ, 0); /* opens the block: STACK [bar] */
    tg_exit(&t, m, 1000001);
    context(&t, m, 1000010, 0, 2, home);
    tg_exit(&t, m, 1000020);   /* foo */
    tg_exit(&t, m, 1000030);   /* main */
    tg_finish(&t);
    /* The mark must follow the STACK record: put it there by hand. */
    size_t second = 4096 + 4096;
    struct ct_block_header *b = (struct ct_block_header *)(t.data + second);
    assert_int_equal(b->magic, CT_BLOCK_MAGIC);
    assert_int_equal(b->seq, 1);
    uint8_t *p = t.data + second + CT_BLOCK_HEADER_SIZE;
    const uint8_t *q = p;
    uint64_t head, len;
    assert_int_equal(ct_get_varint(&q, p + b->used, &head), 0);
    assert_int_equal(*q++, CT_EXT_STACK);
    assert_int_equal(ct_get_varint(&q, p + b->used, &len), 0);
    q += len;
    size_t at = (size_t)(q - p);
    const uint8_t mark[] = {CT_REC_EXT, CT_EXT_CONTEXT, 1, 1};
    memmove(p + at + sizeof mark, p + at, b->used - at);
    memcpy(p + at, mark, sizeof mark);
    b->used += sizeof mark;

    struct ct_read_opts o = {.have_range = true,
                             .range_from_ns = 500000,
                             .range_to_ns = INT64_MAX};
    struct ct_trace_info info;
    struct rec r;
    read_trace(&t, &o, &info, &r);
    assert_int_equal(info.nthreads, 2);
    assert_int_equal(info.threads[1].context, 1);
    /* bar open on the coroutine's lane, then main and foo on the
     * thread's own from the switch's list */
    assert_int_equal(r.ev[0].kind, CT_EV_STACK);
    assert_int_equal(r.ev[0].thread, 1);
    assert_int_equal(r.ev[0].depth, 1);
    assert_int_equal(r.ev[0].stack[0], FBAR);
    expect(&r.ev[1], CT_EV_CALL, 1, 1000000, FBAZ);
    expect(&r.ev[2], CT_EV_RETURN, 1, 1000001, 0);
    assert_int_equal(r.ev[3].kind, CT_EV_STACK);
    assert_int_equal(r.ev[3].thread, 0);
    assert_int_equal(r.ev[3].depth, 2);
    assert_int_equal(r.ev[3].stack[0], FMAIN);
    assert_int_equal(r.ev[3].stack[1], FFOO);
    expect(&r.ev[4], CT_EV_RETURN, 0, 1000020, 0);
    expect(&r.ev[5], CT_EV_RETURN, 0, 1000030, 0);
    ct_trace_info_free(&info);
    tg_free(&t);
}

/* A trace of a tracer before CONTEXT records (or a reader that skips
 * them) reads as one thread: nothing else changes. */
static void test_no_context_one_lane(void **state)
{
    (void)state;
    struct tg_trace t;
    tg_init(&t, 1000000000ull, 4096);
    struct tg_thread *m = tg_thread(&t, 100);
    tg_entry(&t, m, 10, FMAIN, 0);
    tg_exit(&t, m, 20);
    tg_finish(&t);
    struct ct_trace_info info;
    struct rec r;
    read_trace(&t, NULL, &info, &r);
    assert_int_equal(info.nthreads, 1);
    assert_int_equal(info.threads[0].context, 0);
    ct_trace_info_free(&info);
    tg_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_switches_go_to_lanes),
        cmocka_unit_test(test_reading_from_a_later_block),
        cmocka_unit_test(test_no_context_one_lane),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
