/*
 * Following a trace while it grows (calltrace_follow.c): fed in pieces,
 * the profile ends with the figures of one read of the whole file.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyzer/readers/calltrace_follow.h"
#include "analyzer/model/profile.h"
#include "analyzer/model/profile_live.h"
#include "analyzer/readers/reader.h"
#include "tracegen.h"
#include "analyzer/util.h"

#define NF 5
static const uint64_t fns[NF] = {0x401000, 0x401100, 0x401200, 0x401300,
                                 0x7f0000002000ull};

/* Three threads over many small blocks: nested calls, recursion, user
 * events, overhead brackets, losses told by records and by headers. */
static void build(struct tg_trace *t, bool crashed)
{
    tg_init(t, 1000000000ull, 4096);
    struct tg_thread *th[3] = {tg_thread(t, 100), tg_thread(t, 101),
                               tg_thread(t, 102)};
    uint64_t time = 1000;
    unsigned seed = 7;
    for (int i = 0; i < 20000; i++) {
        seed = seed * 1103515245u + 12345u;
        struct tg_thread *w = th[(seed >> 8) % 3];
        time += 1 + (seed >> 12) % 50;
        unsigned what = (seed >> 20) % 16;
        if (w->depth && (what < 7 || w->depth > 30)) {
            tg_exit(t, w, time);
        } else if (what == 7) {
            tg_user(t, w, time, "mark");
        } else if (what == 8) {
            tg_overhead(t, w, time, time + 3);
            time += 3;
        } else if (what == 9 && w->depth) {
            tg_lost_record(t, w, time, 2);
            tg_lost_in_header(w, 3);
        } else {
            uint64_t fn = fns[(seed >> 24) % NF];
            if (what == 10 && w->depth)
                fn = w->stack[w->depth - 1]; /* recursion */
            tg_entry(t, w, time, fn, 0x400500 + (seed & 0xff));
        }
    }
    if (crashed) {
        tg_finish_crashed(t);
    } else {
        tg_thread_end(t, th[2], time + 10);
        tg_finish(t);
    }
}

struct figures {
    uint64_t calls[NF], self[NF], total[NF];
    uint64_t lost, cpu, overhead, user_events;
};

static int index_of(uint64_t addr)
{
    for (int i = 0; i < NF; i++)
        if (fns[i] == addr)
            return i;
    fail_msg("unknown function %#llx", (unsigned long long)addr);
    return -1;
}

static void collect(struct ct_trace_info *info, struct ct_profile *p,
                    struct figures *out)
{
    memset(out, 0, sizeof *out);
    for (uint32_t id = 0; id < p->nfuncs; id++) {
        int k = index_of(ct_functab_get(info->funcs, id)->addr);
        out->calls[k] = p->funcs[id].calls + p->funcs[id].self_calls;
        out->self[k] = p->funcs[id].self_ticks;
        out->total[k] = p->funcs[id].self_ticks + p->funcs[id].child_ticks;
    }
    out->lost = p->counts.lost;
    out->cpu = p->totals.cpu;
    out->overhead = p->totals.overhead;
    out->user_events = p->counts.user_events;
}

static void whole_read(const struct tg_trace *t, struct figures *out)
{
    struct ct_input in = {"whole.raw", t->data, t->size};
    struct ct_trace_info info;
    ct_trace_info_init(&info, in.path, "calltrace");
    struct ct_profile_opts po = {0};
    struct ct_profile *p = ct_profile_new(&info, &po);
    struct ct_read_opts ro = {0};
    assert_int_equal(ct_reader_calltrace.read(&in, &info, ct_profile_sink(p),
                                              &ro),
                     CT_EXIT_OK);
    ct_profile_finish(p);
    collect(&info, p, out);
    ct_profile_free(p);
    ct_trace_info_free(&info);
}

struct follower {
    struct ct_trace_info info;
    struct ct_profile *p;
    struct ct_follow *f;
};

static void follower_init(struct follower *fl)
{
    ct_trace_info_init(&fl->info, "piece.raw", "calltrace");
    struct ct_profile_opts po = {0};
    fl->p = ct_profile_new(&fl->info, &po);
    fl->f = ct_follow_new(&fl->info, ct_profile_sink(fl->p));
}

/* Feeds data[0, size) from an exact-size copy, so ASan sees overruns. */
static void feed(struct follower *fl, const uint8_t *data, size_t size,
                 enum ct_writer w)
{
    uint8_t *copy = malloc(size ? size : 1);
    assert_non_null(copy);
    memcpy(copy, data, size);
    struct ct_input in = {"piece.raw", copy, size};
    assert_int_equal(ct_follow_feed(fl->f, &in, w), CT_EXIT_OK);
    free(copy);
}

static void follower_done(struct follower *fl, struct figures *out)
{
    ct_profile_finish(fl->p);
    collect(&fl->info, fl->p, out);
    ct_follow_free(fl->f);
    ct_profile_free(fl->p);
    ct_trace_info_free(&fl->info);
}

static void assert_same(const struct figures *a, const struct figures *b)
{
    for (int i = 0; i < NF; i++) {
        assert_int_equal(a->calls[i], b->calls[i]);
        assert_int_equal(a->self[i], b->self[i]);
        assert_int_equal(a->total[i], b->total[i]);
    }
    assert_int_equal(a->lost, b->lost);
    assert_int_equal(a->cpu, b->cpu);
    assert_int_equal(a->overhead, b->overhead);
    assert_int_equal(a->user_events, b->user_events);
}

/* A stream received by recv: the file grows by appending, cut anywhere
 * (inside headers and records too). */
static void test_appended_pieces(void **state)
{
    (void)state;
    struct tg_trace t;
    build(&t, false);
    struct figures whole, pieces;
    whole_read(&t, &whole);
    assert_true(whole.calls[0] > 100);
    assert_true(whole.lost > 0 && whole.overhead > 0 && whole.user_events);
    assert_true(t.size > 12 * 4096); /* many blocks */

    size_t steps[] = {1, 7, 4095, 4096, 4100, 4161, 777, 5000, 12289};
    for (size_t s = 0; s < sizeof steps / sizeof *steps; s++) {
        struct follower fl;
        follower_init(&fl);
        for (size_t cut = 0; cut < t.size; cut += steps[s] + cut / 3)
            feed(&fl, t.data, cut, CT_WRITER_UNKNOWN);
        feed(&fl, t.data, t.size, CT_WRITER_DONE);
        assert_true(ct_follow_status(fl.f)->caught_up);
        follower_done(&fl, &pieces);
        assert_same(&whole, &pieces);
    }
    tg_free(&t);
}

/*
 * A local file the tracer fills in place: blocks are there whole (zeros
 * not yet written) and the block being written is not closed yet.  The
 * image at a moment: every byte before `upto`, nothing after, and the
 * block holding `upto` unclosed.
 */
static void image_at(const struct tg_trace *t, size_t upto, uint8_t *img)
{
    memset(img, 0, t->size);
    memcpy(img, t->data, upto);
    memcpy(img, t->data, CT_FILE_HEADER_SIZE);
    struct ct_file_header *h = (struct ct_file_header *)img;
    h->flags &= ~CT_FILE_FINISHED;
    size_t blk = CT_FILE_HEADER_SIZE +
                 (upto - CT_FILE_HEADER_SIZE) / t->block_size * t->block_size;
    if (upto > CT_FILE_HEADER_SIZE && upto < t->size &&
        upto - blk >= CT_BLOCK_HEADER_SIZE) {
        struct ct_block_header *b = (struct ct_block_header *)(img + blk);
        b->flags = 0;
        b->used = 0;
        b->lost = 0;
    } else if (upto < t->size && upto > blk) {
        memset(img + blk, 0, upto - blk); /* header not stored yet */
    }
}

static void test_filled_in_place(void **state)
{
    (void)state;
    for (int crashed = 0; crashed <= 1; crashed++) {
        struct tg_trace t;
        build(&t, crashed);
        struct figures whole, pieces;
        whole_read(&t, &whole);
        uint8_t *img = malloc(t.size);
        assert_non_null(img);
        struct follower fl;
        follower_init(&fl);
        struct ct_live_fstats prev[NF] = {{0}};
        for (size_t upto = CT_FILE_HEADER_SIZE; upto < t.size;
             upto += 333 + upto / 5) {
            image_at(&t, upto, img);
            feed(&fl, img, t.size, CT_WRITER_RUNNING);
            const struct ct_follow_status *st = ct_follow_status(fl.f);
            assert_false(st->caught_up);
            /* The live view never goes back. */
            struct ct_live_fstats live[NF];
            uint32_t n = ct_functab_count(fl.info.funcs);
            ct_profile_live(fl.p, live, n < NF ? n : NF);
            for (uint32_t i = 0; i < (n < NF ? n : NF); i++) {
                assert_true(live[i].calls >= prev[i].calls);
                assert_true(live[i].self_ticks >= prev[i].self_ticks);
                assert_true(live[i].total_ticks >= prev[i].total_ticks);
                assert_true(live[i].total_ticks >= live[i].self_ticks);
                prev[i] = live[i];
            }
        }
        feed(&fl, t.data, t.size,
             crashed ? CT_WRITER_GONE : CT_WRITER_DONE);
        assert_true(ct_follow_status(fl.f)->caught_up);
        follower_done(&fl, &pieces);
        assert_same(&whole, &pieces);
        free(img);
        tg_free(&t);
    }
}

/* While the writer runs, the record a zero byte follows may be half
 * stored: it waits; once the writer is gone it is read. */
static void test_last_record_waits(void **state)
{
    (void)state;
    struct tg_trace t;
    tg_init(&t, 1000000000ull, 4096);
    struct tg_thread *m = tg_thread(&t, 100);
    tg_entry(&t, m, 10, fns[0], 0);
    tg_entry(&t, m, 20, fns[1], 0);
    tg_exit(&t, m, 30);
    tg_finish_crashed(&t);
    const uint8_t *payload = t.data + CT_FILE_HEADER_SIZE +
                             CT_BLOCK_HEADER_SIZE;
    size_t used = m->pos - CT_FILE_HEADER_SIZE - CT_BLOCK_HEADER_SIZE;
    /* the exit is one byte: the complete part ends before it */
    assert_int_equal(ct_follow_complete_len(payload, used + 100, false), used - 1);

    struct follower fl;
    follower_init(&fl);
    feed(&fl, t.data, t.size, CT_WRITER_RUNNING);
    assert_int_equal(ct_follow_status(fl.f)->records, 2);
    struct ct_live_fstats live[2];
    ct_profile_live(fl.p, live, 2);
    assert_int_equal(live[0].calls, 1);
    assert_int_equal(live[1].calls, 1);
    assert_int_equal(live[0].total_ticks, 10); /* open, up to time 20 */
    assert_int_equal(live[0].self_ticks, 10);
    assert_int_equal(ct_profile_live_now(fl.p), 20);
    feed(&fl, t.data, t.size, CT_WRITER_GONE);
    assert_int_equal(ct_follow_status(fl.f)->records, 3);
    assert_true(ct_follow_status(fl.f)->caught_up);
    ct_profile_live(fl.p, live, 2);
    assert_int_equal(live[1].self_ticks, 10);
    assert_int_equal(live[0].total_ticks, 20);
    struct figures fig;
    follower_done(&fl, &fig);
    tg_free(&t);
}

#ifndef CT_FILE_STREAM
#define CT_FILE_STREAM 0x80u
#define CT_BLOCK_STREAM 4u
#define CT_STREAM_PARTIAL 1u
#define CT_STREAM_TRAILER 2u
#endif

static void append(uint8_t **buf, size_t *n, const void *p, size_t len)
{
    *buf = realloc(*buf, *n + len);
    assert_non_null(*buf);
    memcpy(*buf + *n, p, len);
    *n += len;
}

/*
 * The trace as calltrace recv stores a stream of it (docs/trace-format.md
 * "Streams"): the header with CT_FILE_STREAM, before each EVENTS block a
 * PARTIAL snapshot of its first whole records, and a TRAILER with the
 * final header.
 */
static uint8_t *as_stream(const struct tg_trace *t, size_t *size)
{
    uint8_t *out = NULL;
    size_t n = 0;
    struct ct_file_header h;
    memcpy(&h, t->data, sizeof h);
    struct ct_file_header final = h;
    h.flags = (h.flags | CT_FILE_STREAM) & ~CT_FILE_FINISHED;
    h.lost = 0;
    uint8_t page[CT_FILE_HEADER_SIZE] = {0};
    memcpy(page, &h, sizeof h);
    append(&out, &n, page, sizeof page);
    for (size_t off = CT_FILE_HEADER_SIZE; off < t->size;
         off += t->block_size) {
        const struct ct_block_header *b =
            (const struct ct_block_header *)(t->data + off);
        if (b->kind == CT_BLOCK_EVENTS && b->used > 8) {
            struct ct_block_header snap = *b;
            const uint8_t *payload = t->data + off + CT_BLOCK_HEADER_SIZE;
            snap.kind = CT_BLOCK_STREAM;
            snap.reserved = CT_STREAM_PARTIAL;
            snap.flags = 0;
            snap.used = (uint32_t)ct_follow_complete_len(payload,
                                                         b->used / 2, false);
            uint8_t blk[4096] = {0};
            memcpy(blk, &snap, sizeof snap);
            memcpy(blk + CT_BLOCK_HEADER_SIZE, payload, snap.used);
            append(&out, &n, blk, sizeof blk);
        }
        append(&out, &n, t->data + off, t->block_size);
    }
    struct ct_block_header tr = {.magic = CT_BLOCK_MAGIC,
                                 .kind = CT_BLOCK_STREAM,
                                 .header_size = CT_BLOCK_HEADER_SIZE,
                                 .size = 8192, .used = 4096,
                                 .reserved = CT_STREAM_TRAILER};
    uint8_t blk[8192] = {0};
    memcpy(blk, &tr, sizeof tr);
    final.flags |= CT_FILE_STREAM;
    memcpy(blk + CT_BLOCK_HEADER_SIZE, &final, sizeof final);
    append(&out, &n, blk, sizeof blk);
    *size = n;
    return out;
}

/* A stream being received: snapshots of open blocks are read, then the
 * blocks themselves from where the snapshots ended; the trailer ends it. */
static void test_stream_snapshots(void **state)
{
    (void)state;
    struct tg_trace t;
    build(&t, false);
    struct figures whole, pieces;
    whole_read(&t, &whole);
    size_t size;
    uint8_t *s = as_stream(&t, &size);
    struct follower fl;
    follower_init(&fl);
    uint64_t records = 0;
    for (size_t cut = 0; cut < size; cut += 1000 + cut / 4) {
        feed(&fl, s, cut, CT_WRITER_UNKNOWN);
        assert_false(ct_follow_status(fl.f)->caught_up);
        assert_true(ct_follow_status(fl.f)->records >= records);
        records = ct_follow_status(fl.f)->records;
    }
    feed(&fl, s, size, CT_WRITER_UNKNOWN);
    const struct ct_follow_status *st = ct_follow_status(fl.f);
    assert_int_equal(st->writer, CT_WRITER_DONE);
    assert_true(st->caught_up);
    assert_false(st->damaged);
    follower_done(&fl, &pieces);
    assert_same(&whole, &pieces);
    free(s);
    tg_free(&t);
}

/*
 * A block reserved ahead of need (the tracer's block supplier) stays zero
 * while its thread fills the one before, for many polls, with later
 * blocks of other threads after it: the follower reads those, and the
 * block and its thread's later ones once they start.
 */
static void test_block_reserved_ahead(void **state)
{
    (void)state;
    struct tg_trace t;
    build(&t, false);
    struct figures whole, pieces;
    whole_read(&t, &whole);
    /* The third EVENTS block, and every later block of its thread, not
     * started yet. */
    uint8_t *img = malloc(t.size);
    assert_non_null(img);
    memcpy(img, t.data, t.size);
    ((struct ct_file_header *)img)->flags &= ~CT_FILE_FINISHED;
    uint32_t tid = 0;
    int events = 0, zeroed = 0;
    for (size_t off = CT_FILE_HEADER_SIZE; off < t.size;) {
        struct ct_block_header h;
        memcpy(&h, t.data + off, sizeof h);
        assert_int_equal(h.magic, CT_BLOCK_MAGIC);
        if (h.kind == CT_BLOCK_EVENTS && ++events == 3)
            tid = h.tid;
        if (tid && h.kind == CT_BLOCK_EVENTS && h.tid == tid) {
            memset(img + off, 0, h.size);
            zeroed++;
        }
        off += h.size;
    }
    assert_true(zeroed >= 2);
    struct follower fl;
    follower_init(&fl);
    for (int poll = 0; poll < 6; poll++)
        feed(&fl, img, t.size, CT_WRITER_RUNNING);
    assert_false(ct_follow_status(fl.f)->caught_up);
    feed(&fl, t.data, t.size, CT_WRITER_DONE);
    assert_true(ct_follow_status(fl.f)->caught_up);
    assert_false(ct_follow_status(fl.f)->damaged);
    follower_done(&fl, &pieces);
    assert_same(&whole, &pieces);
    free(img);
    tg_free(&t);
}

/* Damage is told once, with its place, and the follower stops there. */
static void test_damage_stops(void **state)
{
    (void)state;
    struct tg_trace t;
    build(&t, false);
    t.data[CT_FILE_HEADER_SIZE + 3 * 4096] ^= 0xff; /* a block's magic */
    struct follower fl;
    follower_init(&fl);
    struct ct_input in = {"bad.raw", t.data, t.size};
    FILE *saved = stderr;
    stderr = fopen("/dev/null", "w");
    assert_int_equal(ct_follow_feed(fl.f, &in, CT_WRITER_DONE),
                     CT_EXIT_BAD_INPUT);
    fclose(stderr);
    stderr = saved;
    assert_true(ct_follow_status(fl.f)->damaged);
    assert_non_null(strstr(fl.info.stopped, "damaged block header"));
    struct figures fig;
    follower_done(&fl, &fig);
    tg_free(&t);
}

/* --- a tid the kernel gave to a later thread ------------------------------ */

#define MAX_TH 8

/* Calls per thread of the trace info, and the threads that ended. */
struct per_thread {
    struct ct_sink sink;
    uint64_t calls[MAX_TH], ends[MAX_TH];
};

static int count_event(struct ct_sink *self, const struct ct_event *ev)
{
    struct per_thread *pt = (struct per_thread *)self;
    assert_true(ev->thread < MAX_TH);
    if (ev->kind == CT_EV_CALL)
        pt->calls[ev->thread]++;
    else if (ev->kind == CT_EV_THREAD_END)
        pt->ends[ev->thread]++;
    return 0;
}

/* "tid:calls:ends" of each thread, in index order, into buf. */
static void describe(const struct ct_trace_info *info,
                     const struct per_thread *pt, char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = '\0';
    for (uint32_t i = 0; i < info->nthreads && i < MAX_TH; i++)
        n += (size_t)snprintf(buf + n, cap - n, "%llu:%llu:%llu ",
                              (unsigned long long)info->threads[i].tid,
                              (unsigned long long)pt->calls[i],
                              (unsigned long long)pt->ends[i]);
}

/* Main thread 100; thread 101 over several blocks, ended; a later thread
 * given tid 101 again, ended; a third 101 still running at the end. */
static void build_reused(struct tg_trace *t)
{
    tg_init(t, 1000000000ull, 4096);
    t->hdr.pid = 100;
    struct tg_thread *m = tg_thread(t, 100);
    uint64_t now = 1000;
    tg_entry(t, m, now++, fns[0], 0);
    static const int calls[3] = {2000, 1500, 700};
    for (int k = 0; k < 3; k++) {
        struct tg_thread *a = tg_thread_new(t, 101);
        for (int i = 0; i < calls[k]; i++) {
            tg_entry(t, a, now++, fns[1 + k], 0);
            tg_exit(t, a, now++);
            if (i % 100 == 0) {
                tg_entry(t, m, now++, fns[4], 0); /* interleaved blocks */
                tg_exit(t, m, now++);
            }
        }
        if (k < 2)
            tg_thread_end(t, a, now++);
    }
    tg_exit(t, m, now++);
    tg_finish(t);
}

static void whole_threads(const uint8_t *data, size_t size, char *buf,
                          size_t cap)
{
    struct ct_input in = {"whole.raw", data, size};
    struct ct_trace_info info;
    ct_trace_info_init(&info, in.path, "calltrace");
    struct per_thread pt = {.sink = {count_event}};
    struct ct_read_opts ro = {0};
    assert_int_equal(ct_reader_calltrace.read(&in, &info, &pt.sink, &ro),
                     CT_EXIT_OK);
    describe(&info, &pt, buf, cap);
    ct_trace_info_free(&info);
}

struct tfollower {
    struct ct_trace_info info;
    struct per_thread pt;
    struct ct_follow *f;
};

static void tfollower_init(struct tfollower *fl)
{
    ct_trace_info_init(&fl->info, "piece.raw", "calltrace");
    memset(&fl->pt, 0, sizeof fl->pt);
    fl->pt.sink.event = count_event;
    fl->f = ct_follow_new(&fl->info, &fl->pt.sink);
}

static void tfeed(struct tfollower *fl, const uint8_t *data, size_t size,
                  enum ct_writer w)
{
    uint8_t *copy = malloc(size ? size : 1);
    assert_non_null(copy);
    memcpy(copy, data, size);
    struct ct_input in = {"piece.raw", copy, size};
    assert_int_equal(ct_follow_feed(fl->f, &in, w), CT_EXIT_OK);
    free(copy);
}

static void tfollower_done(struct tfollower *fl, char *buf, size_t cap,
                           uint32_t threads, uint32_t ended)
{
    const struct ct_follow_status *st = ct_follow_status(fl->f);
    assert_true(st->caught_up);
    assert_int_equal(st->threads, threads);
    assert_int_equal(st->threads_ended, ended);
    describe(&fl->info, &fl->pt, buf, cap);
    ct_follow_free(fl->f);
    ct_trace_info_free(&fl->info);
}

/* The follower splits a reused tid as the whole-file reader does: read at
 * once, filled in place (the ended thread's last block was read before its
 * close marked it the last), and received as a stream. */
static void test_reused_tid(void **state)
{
    (void)state;
    struct tg_trace t;
    build_reused(&t);
    char whole[256], got[256];
    whole_threads(t.data, t.size, whole, sizeof whole);
    assert_string_equal(whole, "100:43:0 101:2000:1 101:1500:1 101:700:0 ");

    struct tfollower fl;
    tfollower_init(&fl);
    tfeed(&fl, t.data, t.size, CT_WRITER_DONE);
    tfollower_done(&fl, got, sizeof got, 4, 2);
    assert_string_equal(got, whole);

    uint8_t *img = malloc(t.size);
    assert_non_null(img);
    tfollower_init(&fl);
    /* at most two polls see a block's header still zero: fewer than the
     * follower waits before it skips a page as never started */
    for (size_t upto = CT_FILE_HEADER_SIZE; upto < t.size;
         upto += 2100 + upto / 7) {
        image_at(&t, upto, img);
        tfeed(&fl, img, t.size, CT_WRITER_RUNNING);
    }
    tfeed(&fl, t.data, t.size, CT_WRITER_DONE);
    tfollower_done(&fl, got, sizeof got, 4, 2);
    assert_string_equal(got, whole);
    free(img);

    size_t size;
    uint8_t *s = as_stream(&t, &size);
    tfollower_init(&fl);
    for (size_t cut = 0; cut < size; cut += 1000 + cut / 4)
        tfeed(&fl, s, cut, CT_WRITER_UNKNOWN);
    tfeed(&fl, s, size, CT_WRITER_UNKNOWN);
    tfollower_done(&fl, got, sizeof got, 4, 2);
    assert_string_equal(got, whole);
    whole_threads(s, size, got, sizeof got);
    assert_string_equal(got, whole);
    free(s);
    tg_free(&t);
}

/* With the block that ended a thread gone (overwritten in a flight ring,
 * dropped from a stream), the later thread's blocks still start again at
 * seq 0: both readers split there too. */
static void test_reused_tid_without_last(void **state)
{
    (void)state;
    struct tg_trace t;
    build_reused(&t);
    for (size_t off = CT_FILE_HEADER_SIZE; off < t.size;
         off += t.block_size)
        ((struct ct_block_header *)(t.data + off))->flags &= ~CT_BLOCK_LAST;
    char whole[256], got[256];
    whole_threads(t.data, t.size, whole, sizeof whole);
    assert_string_equal(whole, "100:43:0 101:2000:1 101:1500:1 101:700:0 ");
    struct tfollower fl;
    tfollower_init(&fl);
    tfeed(&fl, t.data, t.size, CT_WRITER_DONE);
    tfollower_done(&fl, got, sizeof got, 4, 0);
    assert_string_equal(got, whole);
    tg_free(&t);
}

/* A stream whose first thread's block 0 was dropped after a snapshot of
 * it was sent: the snapshot stands for it, and the later thread's block 0
 * (same tid and seq, later in time) does not supersede it. */
static void test_reused_tid_snapshot_kept(void **state)
{
    (void)state;
    struct tg_trace t;
    build_reused(&t);
    size_t size;
    uint8_t *s = as_stream(&t, &size);
    /* the snapshot of the first 101's block 0, and the block after it */
    size_t off = CT_FILE_HEADER_SIZE;
    const struct ct_block_header *p;
    for (;; off += p->size) {
        assert_true(off < size);
        p = (const struct ct_block_header *)(s + off);
        if (p->kind == CT_BLOCK_STREAM && p->tid == 101 && p->seq == 0)
            break;
    }
    size_t drop = off + p->size;
    const struct ct_block_header *b = (const struct ct_block_header *)(s + drop);
    assert_int_equal(b->kind, CT_BLOCK_EVENTS);
    assert_int_equal(b->tid, 101);
    assert_int_equal(b->seq, 0);
    memmove(s + drop, s + drop + t.block_size, size - drop - t.block_size);
    size -= t.block_size;

    char whole[256], got[256];
    whole_threads(s, size, whole, sizeof whole);
    /* the snapshot holds half of block 0's records: some calls of the
     * first 101, none of its block given to the later ones */
    unsigned long long c1, c2, c3;
    assert_int_equal(sscanf(whole, "100:43:0 101:%llu:1 101:%llu:1 101:%llu:0",
                            &c1, &c2, &c3), 3);
    assert_true(c1 < 2000 && c1 > 0);
    assert_int_equal(c2, 1500);
    assert_int_equal(c3, 700);
    struct tfollower fl;
    tfollower_init(&fl);
    tfeed(&fl, s, size, CT_WRITER_UNKNOWN);
    tfollower_done(&fl, got, sizeof got, 4, 2);
    assert_string_equal(got, whole);
    free(s);
    tg_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_appended_pieces),
        cmocka_unit_test(test_filled_in_place),
        cmocka_unit_test(test_last_record_waits),
        cmocka_unit_test(test_stream_snapshots),
        cmocka_unit_test(test_reused_tid),
        cmocka_unit_test(test_reused_tid_without_last),
        cmocka_unit_test(test_reused_tid_snapshot_kept),
        cmocka_unit_test(test_block_reserved_ahead),
        cmocka_unit_test(test_damage_stops),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
