/* The calltrace binary reader on synthetic traces (tracegen.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <fcntl.h>
#include <unistd.h>

#include "analyzer/readers/read_calltrace.h"
#include "analyzer/readers/reader.h"
#include "quiet_stderr.h"
#include "tracegen.h"
#include "analyzer/util.h"


struct rec_event {
    enum ct_ev_kind kind;
    uint32_t thread;
    uint64_t time;
    uint64_t addr;      /* CALL: function address; 0 otherwise          */
    uint64_t site;
    char text[64];
    uint64_t count;
    uint32_t depth;
    uint64_t stack[8];  /* STACK, SAMPLE: addresses                     */
};

struct recorder {
    struct ct_sink sink;
    struct ct_trace_info *info;
    struct rec_event *ev;
    size_t n, cap;
    size_t stop_after;  /* ask the reader to stop after this many, 0 = never */
};

static int record(struct ct_sink *self, const struct ct_event *ev)
{
    struct recorder *r = (struct recorder *)self;
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 256;
        r->ev = realloc(r->ev, r->cap * sizeof *r->ev);
        assert_non_null(r->ev);
    }
    struct rec_event *e = &r->ev[r->n++];
    memset(e, 0, sizeof *e);
    e->kind = ev->kind;
    e->thread = ev->thread;
    e->time = ev->time;
    if (ev->kind == CT_EV_CALL)
        e->addr = ct_functab_get(r->info->funcs, ev->func)->addr;
    else
        assert_int_equal(ev->func, CT_FUNC_NONE);
    e->site = ev->site;
    if (ev->text) {
        size_t n = ev->text_len < 63 ? ev->text_len : 63;
        memcpy(e->text, ev->text, n);
    }
    e->count = ev->count;
    e->depth = ev->depth;
    for (uint32_t i = 0; i < ev->depth && i < 8; i++)
        e->stack[i] = ct_functab_get(r->info->funcs, ev->stack[i])->addr;
    return r->stop_after && r->n >= r->stop_after;
}

/* Reads data[0, size) from an exact-size copy, so ASan sees any overrun. */
static int read_mem(const uint8_t *data, size_t size,
                    const struct ct_read_opts *opts,
                    struct ct_trace_info *info, struct recorder *rec)
{
    uint8_t *copy = malloc(size ? size : 1);
    assert_non_null(copy);
    memcpy(copy, data, size);
    struct ct_input in = {"mem.raw", copy, size};
    ct_trace_info_init(info, in.path, "calltrace");
    memset(rec, 0, sizeof *rec);
    rec->sink.event = record;
    rec->info = info;
    struct ct_read_opts none = {0};
    int status = ct_reader_calltrace.read(&in, info, &rec->sink,
                                          opts ? opts : &none);
    free(copy);
    return status;
}

static void done(struct ct_trace_info *info, struct recorder *rec)
{
    free(rec->ev);
    ct_trace_info_free(info);
}

/* Reads all of T, which must read without error. */
static void read_ok(const struct tg_trace *t, struct ct_trace_info *info,
                    struct recorder *rec)
{
    assert_int_equal(read_mem(t->data, t->size, NULL, info, rec),
                     CT_EXIT_OK);
}

/* A trace at 1 GHz (a tick is a ns) with one thread, tid 100. */
static struct tg_thread *one_thread(struct tg_trace *t)
{
    tg_init(t, 1000000000ull, 4096);
    return tg_thread(t, 100);
}

#define FA 0x401000u
#define FB 0x401100u
#define FC 0x7f0000002000ull

/* Two threads, every record kind; tick = 1 ns. */
static void build_small(struct tg_trace *t)
{
    tg_init(t, 1000000000ull, 4096);
    struct tg_thread *m = tg_thread(t, 100), *w = tg_thread(t, 101);
    tg_entry(t, m, 1000, FA, 0x400500);
    tg_entry(t, m, 1010, FB, 0x401020);
    tg_entry(t, w, 1015, FC, 0);
    tg_user(t, m, 1020, "hello world");
    tg_overhead(t, m, 1030, 1040);
    tg_exit(t, w, 1045);
    tg_exit(t, m, 1050);
    tg_lost_record(t, w, 1060, 7);
    tg_exit(t, m, 1070);
    tg_thread_end(t, w, 1080);
    tg_finish(t);
}

static void test_decodes_every_record(void **state)
{
    (void)state;
    struct tg_trace t;
    build_small(&t);
    struct ct_trace_info info;
    struct recorder rec;
    read_ok(&t, &info, &rec);
    assert_string_equal(info.stopped, "");
    assert_int_equal(info.nthreads, 2);
    assert_int_equal(info.threads[0].tid, 100);
    assert_int_equal(info.threads[1].tid, 101);
    assert_true(info.have_first_time);
    assert_int_equal(info.first_time, 1000);

    static const struct {
        enum ct_ev_kind kind;
        uint32_t thread;
        uint64_t time, addr, site;
    } want[] = {
        {CT_EV_CALL, 0, 1000, FA, 0x400500},
        {CT_EV_CALL, 0, 1010, FB, 0x401020},
        {CT_EV_CALL, 1, 1015, FC, 0},
        {CT_EV_USER, 0, 1020, 0, 0},
        {CT_EV_OVERHEAD_START, 0, 1030, 0, 0},
        {CT_EV_OVERHEAD_END, 0, 1040, 0, 0},
        {CT_EV_RETURN, 1, 1045, 0, 0},
        {CT_EV_RETURN, 0, 1050, 0, 0},
        {CT_EV_LOST, 1, 1060, 0, 0},
        {CT_EV_RETURN, 0, 1070, 0, 0},
        {CT_EV_THREAD_END, 1, 1080, 0, 0},
    };
    assert_int_equal(rec.n, sizeof want / sizeof want[0]);
    for (size_t i = 0; i < rec.n; i++) {
        assert_int_equal(rec.ev[i].kind, want[i].kind);
        assert_int_equal(rec.ev[i].thread, want[i].thread);
        assert_int_equal(rec.ev[i].time, want[i].time);
        assert_int_equal(rec.ev[i].addr, want[i].addr);
        assert_int_equal(rec.ev[i].site, want[i].site);
    }
    assert_string_equal(rec.ev[3].text, "hello world");
    assert_int_equal(rec.ev[8].count, 7);
    assert_int_equal(ct_calltrace_stats.records, 11);
    done(&info, &rec);
    tg_free(&t);
}

static void test_header_fields(void **state)
{
    (void)state;
    struct tg_trace t;
    tg_init(&t, 2900000000ull, 4096);
    t.hdr.pid = 4242;
    t.hdr.ppid = 77;
    t.hdr.bias_ps = 12500;
    t.hdr.start_ticks = 1000000;
    t.hdr.start_monotonic_ns = 5000000000ull;
    t.hdr.start_realtime_ns = 1700000000000000000ull;
    /* The end calibration (2 ticks per ns) wins over tick_hz. */
    t.hdr.end_ticks = 1000000 + 2000000000ull;
    t.hdr.end_monotonic_ns = 5000000000ull + 1000000000ull;
    t.hdr.lost = 3;
    t.hdr.flags |= CT_FILE_SAMPLED;
    t.hdr.sample_interval_ns = 10000000;
    strcpy(t.hdr.exe, "/opt/app/bin/app");
    strcpy(t.hdr.cmdline, "app --fast input.txt");
    struct tg_thread *m = tg_thread(&t, 4242);
    tg_entry(&t, m, 2000000, FA, 0);
    tg_lost_in_header(m, 5);
    tg_exit(&t, m, 2000100);
    tg_finish(&t);

    struct ct_trace_info info;
    struct recorder rec;
    read_ok(&t, &info, &rec);
    assert_string_equal(info.program, "/opt/app/bin/app");
    assert_string_equal(info.command, "app --fast input.txt");
    assert_int_equal(info.pid, 4242);
    assert_int_equal(info.ppid, 77);
    assert_true(info.ns_per_tick == 0.5);
    assert_string_equal(info.clock, "tsc 2.00 GHz");
    assert_int_equal(info.start_ticks, 1000000);
    assert_int_equal(info.start_epoch_ns, 1700000000000000000ll);
    assert_true(info.bias_ns_per_call == 12.5);
    assert_true(info.sampled);
    assert_int_equal(info.sample_interval_ns, 10000000);
    assert_int_equal(info.lost_events, 5); /* max(header 3, blocks 5) */
    /* The header's loss comes after the block's last record. */
    assert_int_equal(rec.n, 3);
    assert_int_equal(rec.ev[2].kind, CT_EV_LOST);
    assert_int_equal(rec.ev[2].count, 5);
    assert_int_equal(rec.ev[2].time, 2000100);
    done(&info, &rec);
    tg_free(&t);
}

/* The tracer counts a loss in the block header and in a LOST record. */
static void test_lost_not_counted_twice(void **state)
{
    (void)state;
    struct tg_trace t;
    struct tg_thread *m = one_thread(&t);
    tg_entry(&t, m, 10, FA, 0);
    tg_lost_in_header(m, 4);
    tg_lost_record(&t, m, 20, 4);
    tg_lost_in_header(m, 2); /* the process died before recording these */
    tg_exit(&t, m, 30);
    tg_finish(&t);
    struct ct_trace_info info;
    struct recorder rec;
    read_ok(&t, &info, &rec);
    assert_int_equal(rec.n, 4);
    assert_int_equal(rec.ev[1].kind, CT_EV_LOST);
    assert_int_equal(rec.ev[1].count, 4);
    assert_int_equal(rec.ev[1].time, 20);
    assert_int_equal(rec.ev[3].kind, CT_EV_LOST);
    assert_int_equal(rec.ev[3].count, 2);
    assert_int_equal(rec.ev[3].time, 30);
    assert_int_equal(info.lost_events, 6);
    done(&info, &rec);
    tg_free(&t);
}

/* Damaged blocks' lost counts (2^63 in each of 32 threads' blocks) must
 * not sum modulo 2^64 to 0: the sum saturates. */
static void test_damaged_lost_saturates(void **state)
{
    (void)state;
    struct tg_trace t;
    one_thread(&t);
    for (uint32_t k = 0; k < 32; k++) {
        struct tg_thread *th = tg_thread(&t, 100 + k);
        tg_entry(&t, th, 10 + k, FA, 0);
        tg_lost_in_header(th, 1ull << 63);
        tg_exit(&t, th, 100 + k);
    }
    tg_finish(&t);
    struct ct_trace_info info;
    struct recorder rec;
    read_ok(&t, &info, &rec);
    assert_true(info.lost_events == UINT64_MAX);
    done(&info, &rec);
    tg_free(&t);
}

static void expect_header_error(const uint8_t *data, size_t size)
{
    struct ct_trace_info info;
    struct recorder rec;
    assert_int_equal(read_mem(data, size, NULL, &info, &rec),
                     CT_EXIT_BAD_INPUT);
    assert_int_equal(rec.n, 0);
    done(&info, &rec);
}

static void test_bad_headers(void **state)
{
    (void)state;
    struct tg_trace t;
    build_small(&t);
    expect_header_error(t.data, 0);                 /* empty          */
    expect_header_error((const uint8_t *)"GIF89a..", 8); /* foreign    */
    expect_header_error(t.data, 100);               /* truncated      */
    expect_header_error(t.data, CT_FILE_HEADER_SIZE - 1);
    struct ct_file_header *h = (struct ct_file_header *)t.data;
    h->version = CT_FORMAT_VERSION + 1;             /* newer          */
    expect_header_error(t.data, t.size);
    h->version = CT_FORMAT_VERSION;
    h->header_size = 100;
    expect_header_error(t.data, t.size);
    h->header_size = CT_FILE_HEADER_SIZE;
    h->tick_hz = 0;
    expect_header_error(t.data, t.size);

    struct ct_input in = {"x", t.data, t.size};
    assert_int_equal(ct_reader_calltrace.probe(&in), 100);
    in.data = (const uint8_t *)"1499 C main\n";
    in.size = 12;
    assert_int_equal(ct_reader_calltrace.probe(&in), 0);
    tg_free(&t);
}

/* A deep call chain over many small blocks: STACK records carry frames. */
static void build_deep(struct tg_trace *t, unsigned rounds)
{
    tg_init(t, 1000000000ull, 4096);
    struct tg_thread *m = tg_thread(t, 100);
    uint64_t time = 500;
    for (unsigned r = 0; r < rounds; r++) {
        for (unsigned d = 0; d < 5; d++)
            tg_entry(t, m, time += 3, FA + 16 * d, FA + 16 * d + 5);
        tg_user(t, m, time += 1, "tick");
        for (unsigned d = 0; d < 5; d++)
            tg_exit(t, m, time += 2);
    }
    tg_finish(t);
}

static void test_blocks_continue_without_stack_events(void **state)
{
    (void)state;
    struct tg_trace t;
    build_deep(&t, 2000);
    assert_true(t.size > 8 * 4096);
    struct ct_trace_info info;
    struct recorder rec;
    read_ok(&t, &info, &rec);
    assert_int_equal(rec.n, 2000 * 11);
    uint64_t last = 0;
    for (size_t i = 0; i < rec.n; i++) {
        assert_int_not_equal(rec.ev[i].kind, CT_EV_STACK);
        assert_true(rec.ev[i].time >= last);
        last = rec.ev[i].time;
    }
    /* Calls decode to the right addresses across block boundaries. */
    for (size_t i = 0; i < rec.n; i++)
        if (rec.ev[i].kind == CT_EV_CALL)
            assert_int_equal(rec.ev[i].site, rec.ev[i].addr + 5);
    assert_true(ct_calltrace_stats.blocks_decoded > 8);
    done(&info, &rec);
    tg_free(&t);
}

static void test_time_range_skips_blocks(void **state)
{
    (void)state;
    struct tg_trace t;
    build_deep(&t, 8000); /* 11 records, 26 ticks a round */
    struct ct_trace_info info;
    struct recorder rec;
    read_ok(&t, &info, &rec);
    uint64_t all_blocks = ct_calltrace_stats.blocks_decoded;
    size_t all = rec.n;
    done(&info, &rec);
    assert_true(all_blocks > 40);

    /* A window in the middle: from 26000 ns to 26500 ns after the start. */
    struct ct_read_opts o = {.have_range = true,
                             .range_from_ns = 26000,
                             .range_to_ns = 26500};
    assert_int_equal(read_mem(t.data, t.size, &o, &info, &rec), CT_EXIT_OK);
    assert_true(ct_calltrace_stats.blocks_decoded <= 3);
    assert_true(ct_calltrace_stats.blocks_decoded >= 1);
    assert_true(rec.n < all / 10);
    assert_int_equal(info.first_time, 503);
    /* The first block read begins inside a call chain: its frames first. */
    assert_int_equal(rec.ev[0].kind, CT_EV_STACK);
    assert_true(rec.ev[0].depth >= 1 && rec.ev[0].depth <= 5);
    for (uint32_t i = 0; i < rec.ev[0].depth; i++)
        assert_int_equal(rec.ev[0].stack[i], FA + 16 * i);
    /* Everything in the window was read. */
    assert_true(rec.ev[0].time <= 503 + 26000);
    assert_true(rec.ev[rec.n - 1].time >= 503 + 26500);
    done(&info, &rec);

    /* An open end reads to the last block. */
    o.range_from_ns = 40000;
    o.range_to_ns = INT64_MAX;
    assert_int_equal(read_mem(t.data, t.size, &o, &info, &rec), CT_EXIT_OK);
    assert_true(ct_calltrace_stats.blocks_decoded < all_blocks);
    assert_int_equal(rec.ev[rec.n - 1].time, 503 - 3 + 8000 * 26);
    done(&info, &rec);
    tg_free(&t);
}

static void test_unclosed_block(void **state)
{
    (void)state;
    struct tg_trace t;
    struct tg_thread *m = one_thread(&t);
    tg_entry(&t, m, 10, FA, 0);
    tg_entry(&t, m, 20, FB, 0);
    tg_exit(&t, m, 30);
    size_t cut = m->pos;
    tg_finish_crashed(&t);
    struct ct_trace_info info;
    struct recorder rec;
    read_ok(&t, &info, &rec);
    assert_int_equal(rec.n, 3);
    done(&info, &rec);

    /* Records up to the block's end, the last one cut short by it: an
     * unclosed block ends there quietly, a closed one is damaged. */
    size_t block_end = CT_FILE_HEADER_SIZE + t.block_size;
    memset(t.data + cut, CT_REC_EXIT | 1 << CT_REC_TYPE_BITS,
           block_end - 2 - cut);
    t.data[block_end - 2] = (uint8_t)(CT_REC_ENTRY | 1 << CT_REC_TYPE_BITS);
    t.data[block_end - 1] = 0x80;
    size_t exits = block_end - 2 - cut;
    read_ok(&t, &info, &rec);
    assert_int_equal(rec.n, 3 + exits);
    assert_int_equal(rec.ev[rec.n - 1].time, 30 + exits);
    assert_string_equal(info.stopped, "");
    done(&info, &rec);

    struct ct_block_header *b =
        (struct ct_block_header *)(t.data + CT_FILE_HEADER_SIZE);
    b->flags = CT_BLOCK_CLOSED;
    b->used = t.block_size - CT_BLOCK_HEADER_SIZE;
    b->last_ticks = 30 + exits;
    quiet_stderr(true);
    assert_int_equal(read_mem(t.data, t.size, NULL, &info, &rec),
                     CT_EXIT_BAD_INPUT);
    quiet_stderr(false);
    assert_int_equal(rec.n, 3 + exits);
    assert_non_null(strstr(info.stopped, "bad record"));
    done(&info, &rec);
    tg_free(&t);
}

/* The block the exiting thread writes for a thread still running at
 * exit() is stamped when exit() ran; the thread may have gone on a moment
 * in its own block.  That last block is read at the thread's last time;
 * any other block that goes back in time is damage. */
static void test_exit_block_behind(void **state)
{
    (void)state;
    for (int last = 1; last >= 0; last--) {
        struct tg_trace t;
        struct tg_thread *m = one_thread(&t);
        tg_entry(&t, m, 10, FA, 0);
        tg_entry(&t, m, 20, FB, 0);
        tg_close_block(&t, m, false);
        tg__open_block(&t, m, 15);  /* the exit block: STACK at 15 */
        tg_thread_end(&t, m, 15);
        if (!last) {
            struct ct_block_header *b = (struct ct_block_header *)(
                t.data + CT_FILE_HEADER_SIZE + t.block_size);
            b->flags &= ~CT_BLOCK_LAST;
        }
        tg_finish(&t);
        struct ct_trace_info info;
        struct recorder rec;
        if (last) {
            read_ok(&t, &info, &rec);
            assert_string_equal(info.stopped, "");
            for (size_t i = 1; i < rec.n; i++)
                assert_true(rec.ev[i].time >= rec.ev[i - 1].time);
            assert_true(rec.n >= 2);
        } else {
            quiet_stderr(true);
            assert_int_equal(read_mem(t.data, t.size, NULL, &info, &rec),
                             CT_EXIT_BAD_INPUT);
            quiet_stderr(false);
            assert_non_null(strstr(info.stopped, "back in time"));
        }
        done(&info, &rec);
        tg_free(&t);
    }
}

static void test_unknown_ext_is_skipped(void **state)
{
    (void)state;
    struct tg_trace t;
    struct tg_thread *m = one_thread(&t);
    tg_entry(&t, m, 10, FA, 0);
    static const uint8_t future[40] = {CT_REC_ENTRY, 1, 2, 3, 0};
    tg_ext(&t, m, 15, 200, future, sizeof future);
    tg_ext(&t, m, 16, CT_EXT_TOGGLE, "\1", 1);
    tg_thread_name(&t, m, 17, "worker-pool-1");
    tg_exit(&t, m, 20);
    tg_finish(&t);
    struct ct_trace_info info;
    struct recorder rec;
    read_ok(&t, &info, &rec);
    assert_int_equal(rec.n, 2);
    assert_int_equal(rec.ev[0].kind, CT_EV_CALL);
    assert_int_equal(rec.ev[1].kind, CT_EV_RETURN);
    assert_int_equal(rec.ev[1].time, 20);
    assert_string_equal(info.threads[0].name, "worker-pool-1");
    done(&info, &rec);
    tg_free(&t);
}

static void test_samples_without_symbols(void **state)
{
    (void)state;
    struct tg_trace t;
    struct tg_thread *m = one_thread(&t);
    static const uint64_t pcs[3] = {0x401234, 0x401567, 0x4019ab};
    tg_sample(&t, m, 50, 2, pcs, 3);
    tg_finish(&t);
    struct ct_trace_info info;
    struct recorder rec;
    read_ok(&t, &info, &rec);
    assert_int_equal(rec.n, 1);
    assert_int_equal(rec.ev[0].kind, CT_EV_SAMPLE);
    assert_int_equal(rec.ev[0].count, 2);
    assert_int_equal(rec.ev[0].depth, 3);
    /* No MAPS block: the pcs themselves stand for their functions. */
    for (int i = 0; i < 3; i++)
        assert_int_equal(rec.ev[0].stack[i], pcs[i]);
    done(&info, &rec);
    tg_free(&t);
}

static void test_sink_can_stop(void **state)
{
    (void)state;
    struct tg_trace t;
    build_deep(&t, 100);
    struct ct_trace_info info;
    struct recorder rec;
    uint8_t *copy = malloc(t.size);
    memcpy(copy, t.data, t.size);
    struct ct_input in = {"mem.raw", copy, t.size};
    ct_trace_info_init(&info, in.path, "calltrace");
    memset(&rec, 0, sizeof rec);
    rec.sink.event = record;
    rec.info = &info;
    rec.stop_after = 17;
    struct ct_read_opts none = {0};
    ct_reader_calltrace.read(&in, &info, &rec.sink, &none);
    assert_int_equal(rec.n, 17);
    free(copy);
    done(&info, &rec);
    tg_free(&t);
}

/* Two threads, several blocks each, every record kind. */
static void build_mixed(struct tg_trace *t)
{
    tg_init(t, 3000000000ull, 4096);
    struct tg_thread *a = tg_thread(t, 100), *b = tg_thread(t, 200);
    static const struct tg_map maps[1] = {
        {0x400000, 0x401000, 0x402000, (const uint8_t *)"\1\2\3\4", 4,
         "/nonexistent/app"}};
    tg_maps(t, 1, maps, 1);
    uint64_t time = 100;
    for (unsigned i = 0; i < 300; i++) {
        struct tg_thread *th = i % 3 ? a : b;
        tg_entry(t, th, time += 7, FA + i % 5, 0x401000 + i);
        if (i % 10 == 0)
            tg_user(t, th, time += 1, "note");
        if (i % 17 == 0) {
            static const uint64_t pcs[2] = {0x401010, 0x401020};
            tg_sample(t, th, time += 1, 1, pcs, 2);
        }
        if (i % 29 == 0)
            tg_lost_record(t, th, time += 1, i);
        if (i % 4)
            tg_exit(t, th, time += 5);
    }
    tg_finish(t);
}

static void test_truncated_at_every_byte(void **state)
{
    (void)state;
    struct tg_trace t;
    build_mixed(&t);
    struct ct_trace_info info;
    struct recorder rec;
    read_ok(&t, &info, &rec);
    size_t full = rec.n;
    done(&info, &rec);
    assert_true(full > 400);
    quiet_stderr(true);
    for (size_t cut = 0; cut < t.size; cut++) {
        int status = read_mem(t.data, cut, NULL, &info, &rec);
        assert_true(rec.n <= full);
        if (cut < CT_FILE_HEADER_SIZE)
            assert_int_equal(status, CT_EXIT_BAD_INPUT);
        if (status == CT_EXIT_OK)
            assert_string_equal(info.stopped, "");
        else
            assert_true(cut < CT_FILE_HEADER_SIZE || info.stopped[0]);
        /* Whatever was read is a prefix of each thread's events. */
        for (size_t i = 1; i < rec.n; i++)
            if (rec.ev[i].thread == rec.ev[i - 1].thread)
                assert_true(rec.ev[i].time >= rec.ev[i - 1].time);
        done(&info, &rec);
    }
    quiet_stderr(false);
    tg_free(&t);
}

static void test_random_corruption(void **state)
{
    (void)state;
    struct tg_trace t;
    build_mixed(&t);
    uint8_t *bad = malloc(t.size);
    quiet_stderr(true);
    for (unsigned seed = 1; seed <= 400; seed++) {
        srand(seed);
        memcpy(bad, t.data, t.size);
        unsigned flips = 1 + (unsigned)rand() % 8;
        for (unsigned i = 0; i < flips; i++) {
            /* Mostly block headers and records, sometimes the file header. */
            size_t at = seed % 5 == 0 ? (size_t)rand() % 200
                                      : CT_FILE_HEADER_SIZE +
                                            (size_t)rand() %
                                                (t.size - CT_FILE_HEADER_SIZE);
            bad[at] ^= (uint8_t)(1 + rand() % 255);
        }
        struct ct_trace_info info;
        struct recorder rec;
        int status = read_mem(bad, t.size, NULL, &info, &rec);
        assert_true(status == CT_EXIT_OK || status == CT_EXIT_BAD_INPUT);
        for (size_t i = 1; i < rec.n; i++)
            if (rec.ev[i].thread == rec.ev[i - 1].thread)
                assert_true(rec.ev[i].time >= rec.ev[i - 1].time);
        /* Names of whatever was interned can be asked for. */
        for (uint32_t id = 0; id < ct_functab_count(info.funcs); id++)
            assert_non_null(ct_functab_name(info.funcs, id));
        done(&info, &rec);
    }
    quiet_stderr(false);
    free(bad);
    tg_free(&t);
}

static void test_damaged_block_header_stops(void **state)
{
    (void)state;
    struct tg_trace t;
    build_deep(&t, 2000);
    struct ct_trace_info info;
    struct recorder rec;
    read_ok(&t, &info, &rec);
    size_t full = rec.n;
    done(&info, &rec);
    /* Damage the fourth block's magic. */
    size_t at = CT_FILE_HEADER_SIZE + 3 * 4096;
    t.data[at] ^= 0x55;
    assert_int_equal(read_mem(t.data, t.size, NULL, &info, &rec),
                     CT_EXIT_BAD_INPUT);
    char want[64];
    snprintf(want, sizeof want, "damaged block header at byte %zu", at);
    assert_string_equal(info.stopped, want);
    assert_true(rec.n > 0 && rec.n < full);
    assert_int_equal(ct_calltrace_stats.blocks, 3);
    done(&info, &rec);
    tg_free(&t);
}

/* A block opens with STACK and OVERHEAD_END, the tracer's convention:
 * read from that block on (a --time-range window), the time from the
 * block's start is the tracer's, so an OVERHEAD_START comes first. */
static void test_window_block_start_is_overhead(void **state)
{
    (void)state;
    struct tg_trace t;
    struct tg_thread *m = one_thread(&t);
    tg_entry(&t, m, 10, FA, 0);
    tg_entry(&t, m, 20, FB, 0);
    tg_ext(&t, m, 30, CT_EXT_OVERHEAD_START, "", 0);
    tg_close_block(&t, m, false);
    tg_ext(&t, m, 40, CT_EXT_OVERHEAD_END, "", 0); /* new block: STACK, E */
    tg_exit(&t, m, 50);
    tg_exit(&t, m, 60);
    tg_finish(&t);
    struct ct_trace_info info;
    struct recorder rec;

    /* Whole trace: the block switch's S and E only, no S added. */
    read_ok(&t, &info, &rec);
    size_t starts = 0;
    for (size_t i = 0; i < rec.n; i++)
        starts += rec.ev[i].kind == CT_EV_OVERHEAD_START;
    assert_int_equal(starts, 1);
    done(&info, &rec);

    /* From 25 ns after the first event: the first block is skipped. */
    struct ct_read_opts o = {.have_range = true, .range_from_ns = 25,
                             .range_to_ns = INT64_MAX};
    assert_int_equal(read_mem(t.data, t.size, &o, &info, &rec), CT_EXIT_OK);
    assert_true(rec.n >= 3);
    assert_int_equal(rec.ev[0].kind, CT_EV_OVERHEAD_START);
    assert_int_equal(rec.ev[0].time, 40);
    assert_int_equal(rec.ev[1].kind, CT_EV_STACK);
    assert_int_equal(rec.ev[1].depth, 2);
    assert_int_equal(rec.ev[2].kind, CT_EV_OVERHEAD_END);
    done(&info, &rec);
    tg_free(&t);
}

/*
 * A flight recorder's ring (CT_FILE_FLIGHT): slots of 8 KiB holding the
 * last three 4 KiB blocks of a long run, out of order, each slot's tail
 * still holding an older block (with a valid-looking header); one slot
 * half emptied (zero header, old bytes behind).  Read slot by slot, it
 * tells exactly what the same three blocks tell as a plain trace.
 */
static void test_flight_ring(void **state)
{
    (void)state;
    struct tg_trace t;
    build_deep(&t, 2000);
    size_t nb = (t.size - CT_FILE_HEADER_SIZE) / 4096, slot = 8192;
    assert_true(nb > 8);
    const uint8_t *blk[3];
    for (int i = 0; i < 3; i++)
        blk[i] = t.data + CT_FILE_HEADER_SIZE + (nb - 3 + i) * 4096;

    /* The plain trace of the same three blocks. */
    size_t plain_size = CT_FILE_HEADER_SIZE + 3 * 4096;
    uint8_t *plain = calloc(1, plain_size);
    memcpy(plain, t.data, CT_FILE_HEADER_SIZE);
    for (int i = 0; i < 3; i++)
        memcpy(plain + CT_FILE_HEADER_SIZE + i * 4096, blk[i], 4096);
    struct ct_trace_info info;
    struct recorder want;
    assert_int_equal(read_mem(plain, plain_size, NULL, &info, &want),
                     CT_EXIT_OK);
    ct_trace_info_free(&info);

    /* The ring: slot 0 half emptied, then the blocks newest first. */
    size_t ring_size = CT_FILE_HEADER_SIZE + 4 * slot;
    uint8_t *ring = calloc(1, ring_size);
    memcpy(ring, t.data, CT_FILE_HEADER_SIZE);
    struct ct_file_header *h = (struct ct_file_header *)ring;
    h->flags |= CT_FILE_FLIGHT;
    h->flight_slot_size = (uint32_t)slot;
    h->flight_slots = 4;
    for (int s = 0; s < 4; s++) {
        uint8_t *p = ring + CT_FILE_HEADER_SIZE + s * slot;
        /* What an older, larger block left behind. */
        memcpy(p, t.data + CT_FILE_HEADER_SIZE, 2 * 4096);
        if (s == 0)
            memset(p, 0, CT_BLOCK_HEADER_SIZE);
        else
            memcpy(p, blk[3 - s], 4096);
    }
    struct recorder got;
    assert_int_equal(read_mem(ring, ring_size, NULL, &info, &got),
                     CT_EXIT_OK);
    assert_string_equal(info.stopped, "");
    assert_int_equal(got.n, want.n);
    for (size_t i = 0; i < got.n; i++) {
        assert_int_equal(got.ev[i].kind, want.ev[i].kind);
        assert_int_equal(got.ev[i].time, want.ev[i].time);
        assert_int_equal(got.ev[i].addr, want.ev[i].addr);
    }
    /* It begins inside the call chain: the oldest block's frames. */
    assert_int_equal(got.ev[0].kind, CT_EV_STACK);
    assert_true(got.ev[0].depth >= 1 && got.ev[0].depth <= 5);
    const char *v = NULL;
    for (size_t i = 0; i < info.nmeta; i++)
        if (!strcmp(info.meta[i].key, "flight recorder"))
            v = info.meta[i].value;
    assert_non_null(v);
    char head[96];
    snprintf(head, sizeof head, "ring of 4 blocks, 32 KiB; %zu older blocks "
             "overwritten; covers the last ", nb - 3);
    assert_memory_equal(v, head, strlen(head));
    done(&info, &got);
    free(want.ev);
    free(ring);
    free(plain);
    tg_free(&t);
}

/* The kernel reuses the tid of a thread that ended: the blocks of the
 * second thread start again at seq 0, and are another thread's. */
static void test_reused_tid(void **state)
{
    (void)state;
    struct tg_trace t;
    tg_init(&t, 1000000000ull, 4096);
    t.hdr.pid = 100;
    struct tg_thread *m = tg_thread(&t, 100), *a = tg_thread(&t, 101);
    uint64_t now = 1000;
    tg_entry(&t, m, now++, FA, 0);
    for (int i = 0; i < 2000; i++) {   /* several blocks */
        tg_entry(&t, a, now++, FB, 0);
        tg_exit(&t, a, now++);
    }
    tg_thread_end(&t, a, now++);
    struct tg_thread *b = tg_thread_new(&t, 101);
    for (int i = 0; i < 1500; i++) {
        tg_entry(&t, b, now++, FC, 0);
        tg_exit(&t, b, now++);
    }
    tg_thread_end(&t, b, now++);
    tg_exit(&t, m, now++);
    tg_finish(&t);

    struct ct_trace_info info;
    struct recorder rec;
    read_ok(&t, &info, &rec);
    assert_string_equal(info.stopped, "");
    assert_int_equal(info.nthreads, 3);
    assert_int_equal(info.threads[0].tid, 100);
    assert_int_equal(info.threads[1].tid, 101);
    assert_int_equal(info.threads[2].tid, 101);
    size_t calls[3][3] = {{0}};   /* thread x (FA, FB, FC) */
    for (size_t i = 0; i < rec.n; i++) {
        if (rec.ev[i].kind != CT_EV_CALL)
            continue;
        assert_true(rec.ev[i].thread < 3);
        int f = rec.ev[i].addr == FA ? 0 : rec.ev[i].addr == FB ? 1 : 2;
        calls[rec.ev[i].thread][f]++;
    }
    assert_int_equal(calls[0][0], 1);
    assert_int_equal(calls[1][1], 2000);
    assert_int_equal(calls[2][2], 1500);
    assert_int_equal(calls[1][2] + calls[2][1] + calls[0][1] + calls[0][2], 0);
    done(&info, &rec);
    tg_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decodes_every_record),
        cmocka_unit_test(test_header_fields),
        cmocka_unit_test(test_lost_not_counted_twice),
        cmocka_unit_test(test_damaged_lost_saturates),
        cmocka_unit_test(test_bad_headers),
        cmocka_unit_test(test_blocks_continue_without_stack_events),
        cmocka_unit_test(test_time_range_skips_blocks),
        cmocka_unit_test(test_window_block_start_is_overhead),
        cmocka_unit_test(test_flight_ring),
        cmocka_unit_test(test_unclosed_block),
        cmocka_unit_test(test_exit_block_behind),
        cmocka_unit_test(test_unknown_ext_is_skipped),
        cmocka_unit_test(test_samples_without_symbols),
        cmocka_unit_test(test_sink_can_stop),
        cmocka_unit_test(test_truncated_at_every_byte),
        cmocka_unit_test(test_random_corruption),
        cmocka_unit_test(test_damaged_block_header_stops),
        cmocka_unit_test(test_reused_tid),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
