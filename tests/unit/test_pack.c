/* calltrace pack (calltrace_pack.c) and the reading of PACKED blocks
 * (calltrace_packed.c): a packed trace reads as the same events as the
 * trace it was packed from; damage is told, never read as records. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyzer/readers/calltrace_pack.h"
#include "analyzer/readers/read_calltrace.h"
#include "analyzer/readers/reader.h"
#include "analyzer/util.h"
#include "quiet_stderr.h"
#include "tracegen.h"

#define FA 0x401000u

static char dir[64];


/* Every event, as text: two reads are equal when their texts are. */
struct text_sink {
    struct ct_sink sink;
    struct ct_trace_info *info;
    char *buf;
    size_t len, cap;
};

static int to_text(struct ct_sink *self, const struct ct_event *ev)
{
    struct text_sink *s = (struct text_sink *)self;
    char line[256];
    uint64_t addr = ev->kind == CT_EV_CALL
                        ? ct_functab_get(s->info->funcs, ev->func)->addr : 0;
    int n = snprintf(line, sizeof line, "%d %u %llu %llx %llx %llu %u %.*s\n",
                     (int)ev->kind, ev->thread, (unsigned long long)ev->time,
                     (unsigned long long)addr, (unsigned long long)ev->site,
                     (unsigned long long)ev->count, ev->depth,
                     ev->text ? (int)(ev->text_len < 40 ? ev->text_len : 40)
                              : 0,
                     ev->text ? ev->text : "");
    ct_grow(&s->buf, &s->cap, s->len + (size_t)n + 1, 1);
    memcpy(s->buf + s->len, line, (size_t)n + 1);
    s->len += (size_t)n;
    return 0;
}

/* Reads the file at path into text (malloc'ed); the reader's status. */
static int read_file_text(const char *path, char **text, char *stopped,
                          size_t stopped_len)
{
    quiet_stderr(true); /* the made-up object has no symbols to read */
    struct ct_input in;
    assert_int_equal(ct_input_open(&in, path), 0);
    struct ct_trace_info info;
    ct_trace_info_init(&info, path, "calltrace");
    struct text_sink s = {.sink.event = to_text, .info = &info};
    struct ct_read_opts none = {0};
    int status = ct_reader_calltrace.read(&in, &info, &s.sink, &none);
    snprintf(stopped, stopped_len, "%s", info.stopped);
    ct_trace_info_free(&info);
    ct_input_close(&in);
    quiet_stderr(false);
    *text = s.buf ? s.buf : strdup("");
    return status;
}

static char *path_of(const char *name)
{
    char *p;
    assert_true(asprintf(&p, "%s/%s", dir, name) > 0);
    return p;
}

/* Two threads over many blocks, a MAPS block, and (crashed) the threads'
 * last blocks left unclosed. */
static void build_sized(struct tg_trace *t, bool crashed, uint32_t bsize)
{
    tg_init(t, 1000000000ull, bsize);
    static const struct tg_map maps[1] = {
        {0x400000, 0x401000, 0x402000, (const uint8_t *)"\1\2\3\4", 4,
         "/nonexistent/app"}};
    tg_maps(t, 1, maps, 1);
    struct tg_thread *a = tg_thread(t, 100), *b = tg_thread(t, 200);
    uint64_t time = 100;
    for (unsigned i = 0; i < 20000; i++) {
        struct tg_thread *th = i % 3 ? a : b;
        tg_entry(t, th, time += 7, FA + (i % 9) * 16, 0x401800 + i % 13);
        if (i % 50 == 0)
            tg_user(t, th, time += 1, "note");
        if (i % 97 == 0)
            tg_lost_record(t, th, time += 1, i);
        if (i % 4 || th->depth > 8)
            tg_exit(t, th, time += 5);
    }
    /* Each thread's last call repeats the one before (same function, same
     * site): its record ends in two zero bytes, which an unclosed block's
     * end must keep. */
    tg_entry(t, a, time += 3, FA, 0x401800);
    tg_entry(t, a, time += 3, FA, 0x401800);
    tg_entry(t, b, time += 3, FA, 0x401800);
    tg_entry(t, b, time += 3, FA, 0x401800);
    if (crashed)
        tg_finish_crashed(t);
    else
        tg_finish(t);
}

static void build(struct tg_trace *t, bool crashed)
{
    build_sized(t, crashed, 4096);
}

static off_t size_of(const char *path)
{
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    return st.st_size;
}

static void pack_reads_the_same(bool crashed)
{
    struct tg_trace t;
    build(&t, crashed);
    char *raw = path_of("a.raw"), *packed = path_of("a.packed.raw");
    tg_write(&t, raw);
    struct ctr_pack_stats st;
    char err[256] = "";
    assert_int_equal(ctr_pack_file(raw, packed, 3, &st, err, sizeof err), 0);
    assert_true(st.packed >= 20);
    assert_int_equal(st.bytes_in, (uint64_t)size_of(raw));
    assert_int_equal(st.bytes_out, (uint64_t)size_of(packed));
    assert_true(st.bytes_out * 3 < st.bytes_in);
    char *a, *b, sa[256], sb[256];
    int ra = read_file_text(raw, &a, sa, sizeof sa);
    int rb = read_file_text(packed, &b, sb, sizeof sb);
    assert_int_equal(ra, rb);
    assert_string_equal(sa, sb);
    assert_true(strlen(a) > 100000);
    assert_string_equal(a, b);
    /* Packing a packed trace changes nothing. */
    char *again = path_of("a.again.raw");
    assert_int_equal(ctr_pack_file(packed, again, 3, &st, err, sizeof err), 0);
    assert_int_equal(st.packed, 0);
    assert_true(st.already >= 20);
    assert_int_equal(size_of(again), size_of(packed));
    free(a);
    free(b);
    unlink(raw);
    unlink(packed);
    unlink(again);
    free(raw);
    free(packed);
    free(again);
    tg_free(&t);
}

static void test_closed_blocks(void **state)
{
    (void)state;
    pack_reads_the_same(false);
}

static void test_unclosed_blocks(void **state)
{
    (void)state;
    pack_reads_the_same(true);
}

/* In place: the file is replaced, and nothing else is left in the folder. */
static void test_in_place(void **state)
{
    (void)state;
    struct tg_trace t;
    build(&t, false);
    char *raw = path_of("b.raw");
    tg_write(&t, raw);
    chmod(raw, 0640);
    char *before, *after, s1[256], s2[256];
    read_file_text(raw, &before, s1, sizeof s1);
    struct ctr_pack_stats st;
    char err[256];
    assert_int_equal(ctr_pack_file(raw, NULL, 1, &st, err, sizeof err), 0);
    assert_true((uint64_t)size_of(raw) == st.bytes_out);
    struct stat sb;
    assert_int_equal(stat(raw, &sb), 0);
    assert_int_equal(sb.st_mode & 0777, 0640);
    read_file_text(raw, &after, s2, sizeof s2);
    assert_string_equal(before, after);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "test $(ls -A %s | wc -l) = 1", dir);
    assert_int_equal(system(cmd), 0);
    free(before);
    free(after);
    unlink(raw);
    free(raw);
    tg_free(&t);
}

/* A byte changed in a frame: the reader says which block, never decodes
 * other records from it. */
static void test_damaged_frame(void **state)
{
    (void)state;
    struct tg_trace t;
    build(&t, false);
    char *raw = path_of("c.raw"), *packed = path_of("c.packed.raw");
    tg_write(&t, raw);
    struct ctr_pack_stats st;
    char err[256];
    assert_int_equal(ctr_pack_file(raw, packed, 3, &st, err, sizeof err), 0);
    /* The first packed block after the header and the MAPS block. */
    int fd = open(packed, O_RDWR);
    size_t off = CT_FILE_HEADER_SIZE;
    struct ct_block_header h;
    for (;;) {
        assert_int_equal(pread(fd, &h, sizeof h, (off_t)off), sizeof h);
        if (h.kind == CT_BLOCK_PACKED)
            break;
        off += h.size;
    }
    uint8_t byte;
    off_t at = (off_t)(off + CT_BLOCK_HEADER_SIZE + h.reserved / 2);
    assert_int_equal(pread(fd, &byte, 1, at), 1);
    byte ^= 0x10;
    assert_int_equal(pwrite(fd, &byte, 1, at), 1);
    close(fd);
    char *text, stopped[256], want[128];
    int rc = read_file_text(packed, &text, stopped, sizeof stopped);
    assert_int_equal(rc, CT_EXIT_BAD_INPUT);
    snprintf(want, sizeof want, "packed block does not unpack at byte %zu",
             off);
    assert_non_null(strstr(stopped, want));
    free(text);
    unlink(raw);
    unlink(packed);
    free(raw);
    free(packed);
    tg_free(&t);
}

/* A packed trace cut at any byte reads without a crash, as a prefix. */
static void test_cut_anywhere(void **state)
{
    (void)state;
    struct tg_trace t;
    build(&t, false);
    char *raw = path_of("d.raw"), *packed = path_of("d.packed.raw"),
         *cut = path_of("d.cut.raw");
    tg_write(&t, raw);
    struct ctr_pack_stats st;
    char err[256];
    assert_int_equal(ctr_pack_file(raw, packed, 3, &st, err, sizeof err), 0);
    char *whole, s[256];
    read_file_text(packed, &whole, s, sizeof s);
    int in = open(packed, O_RDONLY);
    size_t n = (size_t)size_of(packed);
    uint8_t *data = malloc(n);
    assert_int_equal(read(in, data, n), (ssize_t)n);
    close(in);
    for (size_t len = CT_FILE_HEADER_SIZE; len < n; len += 97) {
        int fd = open(cut, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        assert_int_equal(write(fd, data, len), (ssize_t)len);
        close(fd);
        char *text;
        read_file_text(cut, &text, s, sizeof s);
        /* Threads interleave, so each line read is one of the whole's. */
        assert_true(strlen(text) <= strlen(whole));
        free(text);
    }
    free(data);
    free(whole);
    unlink(raw);
    unlink(packed);
    unlink(cut);
    free(raw);
    free(packed);
    free(cut);
    tg_free(&t);
}

/* What is not packed: one line naming the file, the target untouched. */
static void test_refusals(void **state)
{
    (void)state;
    char *junk = path_of("junk.raw"), *out = path_of("out.raw");
    FILE *f = fopen(junk, "w");
    fputs("not a trace at all\n", f);
    fclose(f);
    f = fopen(out, "w");
    fputs("keep me\n", f);
    fclose(f);
    struct ctr_pack_stats st;
    char err[256];
    assert_int_equal(ctr_pack_file(junk, out, 3, &st, err, sizeof err), -1);
    assert_non_null(strstr(err, "junk.raw: byte 0: not a calltrace trace"));
    assert_int_equal(size_of(out), 8);

    struct tg_trace t;
    build(&t, false);
    t.hdr.flags |= CT_FILE_FLIGHT;
    memcpy(t.data, &t.hdr, sizeof t.hdr);
    tg_write(&t, junk);
    assert_int_equal(ctr_pack_file(junk, out, 3, &st, err, sizeof err), -1);
    assert_non_null(strstr(err, "flight recorder"));
    assert_int_equal(size_of(out), 8);
    char *missing = path_of("missing.raw");
    assert_int_equal(ctr_pack_file(missing, NULL, 3, &st, err, sizeof err),
                     -1);
    assert_non_null(strstr(err, "missing.raw: No such file"));
    unlink(junk);
    unlink(out);
    free(junk);
    free(out);
    free(missing);
    tg_free(&t);
}

/* Packing while the trace is written (calltrace_livepack.c): the closed
 * EVENTS blocks move to the side file, the pair reads as the trace did at
 * each step, and the final pack folds the side file in. */
static void test_live_then_final(void **state)
{
    (void)state;
    struct tg_trace t;
    /* Blocks of 16K (a 4K one frees no page); each thread's last block
     * open, as while the program runs. */
    build_sized(&t, true, 16384);
    char *raw = path_of("e.raw"), *side = path_of("e.raw.packed");
    tg_write(&t, raw);
    char *before, *mid, *after, s1[256], s2[256], s3[256];
    read_file_text(raw, &before, s1, sizeof s1);
    struct ctr_live *l = ctr_live_open(raw, 3);
    assert_non_null(l);
    char err[256] = "";
    int moved = ctr_live_step(l, err, sizeof err);
    if (moved < 0 && strstr(err, "punches no holes")) {
        ctr_live_close(l);
        unlink(raw);
        unlink(side);
        free(before);
        free(raw);
        free(side);
        tg_free(&t);
        skip(); /* the test folder's file system: nothing to free there */
    }
    assert_string_equal(err, "");
    assert_true(moved >= 5);
    assert_int_equal(ctr_live_step(l, err, sizeof err), 0); /* all done */
    assert_int_equal(ctr_live_stats(l)->moved, (uint64_t)moved);
    ctr_live_close(l);
    assert_true(size_of(side) > 0);
    read_file_text(raw, &mid, s2, sizeof s2);
    assert_string_equal(s1, s2);
    assert_string_equal(before, mid);
    /* The pages after each moved block's first are a hole. */
    struct stat sb;
    assert_int_equal(stat(raw, &sb), 0);
    assert_true((uint64_t)sb.st_blocks * 512 + (uint64_t)moved * 12288 <=
                (uint64_t)sb.st_size);
    struct ctr_pack_stats st;
    assert_int_equal(ctr_pack_file(raw, NULL, 3, &st, err, sizeof err), 0);
    assert_true(st.packed >= (uint64_t)moved);
    assert_int_not_equal(stat(side, &sb), 0); /* folded in, removed */
    read_file_text(raw, &after, s3, sizeof s3);
    assert_string_equal(before, after);
    free(before);
    free(mid);
    free(after);
    unlink(raw);
    free(raw);
    free(side);
    tg_free(&t);
}

/* A reader that indexed the pair before the live packer moved more blocks
 * (calltrace report or top while record --pack runs): the blocks it finds
 * moved when it reads them, their pages freed under its mapping, read
 * from the side file, every event as before.  The packer runs from the
 * reader's sink at its first event, after the index and before the
 * blocks' records are read. */
struct moving_sink {
    struct text_sink text;
    struct ctr_live *live;
    int moved;
};

static int move_then_text(struct ct_sink *self, const struct ct_event *ev)
{
    struct moving_sink *m = (struct moving_sink *)self;
    if (m->live) {
        char err[256] = "";
        m->moved = ctr_live_step(m->live, err, sizeof err);
        ctr_live_close(m->live);
        m->live = NULL;
    }
    return to_text(self, ev);
}

static void test_moved_while_read(void **state)
{
    (void)state;
    struct tg_trace t;
    build_sized(&t, true, 16384);
    char *raw = path_of("m.raw"), *side = path_of("m.raw.packed");
    tg_write(&t, raw);
    char *before, s1[256];
    read_file_text(raw, &before, s1, sizeof s1);
    /* The side file is there when the reader indexes, as it is while
     * record --pack runs; no block has moved yet. */
    int fd = open(side, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(fd >= 0);
    close(fd);
    struct ctr_live *l = ctr_live_open(raw, 3);
    assert_non_null(l);
    quiet_stderr(true);
    struct ct_input in;
    assert_int_equal(ct_input_open(&in, raw), 0);
    struct ct_trace_info info;
    ct_trace_info_init(&info, raw, "calltrace");
    struct moving_sink m = {.text = {.sink.event = move_then_text,
                                     .info = &info},
                            .live = l};
    struct ct_read_opts none = {0};
    int status = ct_reader_calltrace.read(&in, &info, &m.text.sink, &none);
    quiet_stderr(false);
    /* Else the test folder's file system punches no holes: nothing moved. */
    bool holes = m.moved >= 0;
    if (holes) {
        assert_int_equal(status, CT_EXIT_OK);
        assert_true(m.moved >= 4); /* moved under the reader's feet */
        assert_string_equal(info.stopped, "");
        assert_string_equal(m.text.buf, before);
    }
    ct_trace_info_free(&info);
    ct_input_close(&in);
    free(m.text.buf);
    free(before);
    unlink(raw);
    unlink(side);
    free(raw);
    free(side);
    tg_free(&t);
    if (!holes)
        skip();
}

/* The side file gone: a moved block is damage, told at its byte. */
static void test_side_missing(void **state)
{
    (void)state;
    struct tg_trace t;
    build_sized(&t, false, 16384);
    char *raw = path_of("f.raw"), *side = path_of("f.raw.packed");
    tg_write(&t, raw);
    struct ctr_live *l = ctr_live_open(raw, 1);
    char err[256] = "";
    assert_true(ctr_live_step(l, err, sizeof err) > 0);
    ctr_live_close(l);
    unlink(side);
    char *text, stopped[256];
    int rc = read_file_text(raw, &text, stopped, sizeof stopped);
    assert_int_equal(rc, CT_EXIT_BAD_INPUT);
    assert_non_null(strstr(stopped, "packed block does not unpack"));
    struct ctr_pack_stats st;
    assert_int_equal(ctr_pack_file(raw, NULL, 3, &st, err, sizeof err), -1);
    assert_non_null(strstr(err, "is not in"));
    free(text);
    unlink(raw);
    free(raw);
    free(side);
    tg_free(&t);
}

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/ct-unit-pack-XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    return rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_closed_blocks),
        cmocka_unit_test(test_unclosed_blocks),
        cmocka_unit_test(test_in_place),
        cmocka_unit_test(test_damaged_frame),
        cmocka_unit_test(test_cut_anywhere),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_live_then_final),
        cmocka_unit_test(test_moved_while_read),
        cmocka_unit_test(test_side_missing),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
