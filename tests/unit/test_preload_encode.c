/* Record encoding byte by byte, and the hooks writing through a real
 * output file: block switch leaves OVERHEAD_START at the end of the old
 * block and STACK + OVERHEAD_END at the start of the new one; hidden
 * frames and re-entry. */
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "preload/tracer.h"

CT_API void calltrace_set_enabled_impl(int on);

/* Both head encodings split back into what was put in; the prefix code
 * gives one-byte heads up to 63 ticks (EXIT) and 31 (ENTRY), and no head
 * starts with a zero byte. */
static void test_head_codes(void **state)
{
    (void)state;
    static const uint64_t deltas[] = {0, 1, 15, 16, 31, 32, 63, 64, 1000,
                                      (uint64_t)1 << 40};
    for (unsigned type = CT_REC_EXIT; type <= CT_REC_EXT; type++) {
        for (size_t i = 0; i < sizeof deltas / sizeof deltas[0]; i++) {
            uint64_t d, h = ct_head(deltas[i], type);
            assert_int_equal(ct_head_split(h, true, &d), type);
            assert_int_equal(d, deltas[i]);
            uint8_t buf[16];
            ct_put_varint(buf, h);
            assert_int_not_equal(buf[0], 0);
            h = deltas[i] << CT_REC_TYPE_BITS | type;
            assert_int_equal(ct_head_split(h, false, &d), type);
            assert_int_equal(d, deltas[i]);
        }
    }
    uint64_t d;
    assert_true(ct_head(63, CT_REC_EXIT) < 0x80);
    assert_true(ct_head(64, CT_REC_EXIT) >= 0x80);
    assert_true(ct_head(31, CT_REC_ENTRY) < 0x80);
    assert_true(ct_head(32, CT_REC_ENTRY) >= 0x80);
    assert_int_equal(ct_head_split(8, true, &d), 0);  /* low bits 000 */
    assert_int_equal(ct_head_split(0, true, &d), 0);
}

static void test_entry_bytes(void **state)
{
    (void)state;
    uint8_t buf[64];
    uint8_t *end = ct_enc_entry(buf, 5, 0x1000, 0, 0x1010, 0);
    /* head 5 << 2 | 2 (prefix code, CT_FILE_HEAD_PREFIX) */
    const uint8_t want[] = {0x16, 0x80, 0x40, 0xa0, 0x40};
    assert_int_equal(end - buf, sizeof want);
    assert_memory_equal(buf, want, sizeof want);
    /* Backwards by 3 and by 1: zigzag 5 and 1. */
    end = ct_enc_entry(buf, 0, 0x0ffd, 0x1000, 0x100f, 0x1010);
    const uint8_t want2[] = {0x02, 0x05, 0x01};
    assert_int_equal(end - buf, sizeof want2);
    assert_memory_equal(buf, want2, sizeof want2);
}

static void test_exit_and_ext_bytes(void **state)
{
    (void)state;
    uint8_t buf[64];
    uint8_t *end = ct_enc_exit(buf, 300);
    const uint8_t want[] = {0xd9, 0x04};  /* 300 << 1 | 1 = 601 */
    assert_int_equal(end - buf, 2);
    assert_memory_equal(buf, want, 2);
    end = ct_enc_ext_head(buf, 0, CT_EXT_OVERHEAD_START, 0);
    const uint8_t want2[] = {0x04, 0x01, 0x00};  /* 0 << 3 | 4 */
    assert_int_equal(end - buf, 3);
    assert_memory_equal(buf, want2, 3);
    /* The longest hot record fits CT_REC_MAX_HOT. */
    end = ct_enc_entry(buf, UINT64_MAX >> 3, UINTPTR_MAX, 0, 0, UINTPTR_MAX);
    assert_true(end - buf <= (long)CT_REC_MAX_HOT);
}

static void test_roundtrip(void **state)
{
    (void)state;
    uint8_t buf[64];
    uint8_t *end = ct_enc_entry(buf, 123456, 0x401000, 0x402000, 0x7f0000001234, 0x7f0000001000);
    const uint8_t *p = buf;
    uint64_t head, dfn, dsite;
    assert_int_equal(ct_get_varint(&p, end, &head), 0);
    assert_int_equal(ct_get_varint(&p, end, &dfn), 0);
    assert_int_equal(ct_get_varint(&p, end, &dsite), 0);
    assert_ptr_equal(p, end);
    /* The tracer writes prefix-coded heads (CT_FILE_HEAD_PREFIX). */
    uint64_t delta;
    assert_int_equal(ct_head_split(head, true, &delta), CT_REC_ENTRY);
    assert_int_equal(delta, 123456);
    assert_int_equal(head, 123456u << 2 | 2);
    assert_int_equal(ct_unzigzag(dfn), -0x1000);
    assert_int_equal(ct_unzigzag(dsite), 0x234);
}

/* ---- through the hooks, into a file ---------------------------------- */

static char path[64];

static int setup_file(void **state)
{
    (void)state;
    snprintf(path, sizeof path, "/tmp/ct-unit-%d.raw", (int)getpid());
    unlink(path);
    ct_config_defaults(&ct_proc.cfg);
    ct_proc.cfg.bufsize = 4096;
    ct_proc.cfg.quiet = 1;
    /* The record layouts below have no on-CPU records among them. */
    ct_proc.cfg.cputime = CT_CPUTIME_OFF;
    snprintf(ct_proc.cfg.output, sizeof ct_proc.cfg.output, "%s", path);
    ct_clock_init(1, 0);  /* monotonic: ns ticks */
    ct_proc.pid = (uint32_t)getpid();
    if (ct_file_open(0, 1) != 0)
        return -1;
    ct_proc.started = 2;
    ct_global_update();
    return 0;
}

static int teardown_file(void **state)
{
    (void)state;
    unlink(path);
    return 0;
}

static uint8_t *read_all(size_t *size)
{
    int fd = open(path, O_RDONLY);
    assert_true(fd >= 0);
    off_t n = lseek(fd, 0, SEEK_END);
    uint8_t *buf = malloc((size_t)n);
    assert_int_equal(pread(fd, buf, (size_t)n, 0), n);
    close(fd);
    *size = (size_t)n;
    return buf;
}

static void fn_a(void) {}
static void fn_b(void) {}

struct rec { unsigned type, sub; uint64_t fn; const uint8_t *payload; uint64_t len; };

/* Decodes the records of one block into recs; returns the count. */
static int decode(const struct ct_block_header *b, struct rec *recs, int max)
{
    const uint8_t *p = (const uint8_t *)b + CT_BLOCK_HEADER_SIZE;
    const uint8_t *end = p + ((b->flags & CT_BLOCK_CLOSED) ? b->used : b->size - CT_BLOCK_HEADER_SIZE);
    uint64_t fn = 0, v;
    int n = 0;
    while (p < end && *p && n < max) {
        assert_int_equal(ct_get_varint(&p, end, &v), 0);
        uint64_t delta;
        struct rec r = {ct_head_split(v, true, &delta), 0, 0, NULL, 0};
        if (r.type == CT_REC_ENTRY) {
            assert_int_equal(ct_get_varint(&p, end, &v), 0);
            fn += (uint64_t)ct_unzigzag(v);
            r.fn = fn;
            assert_int_equal(ct_get_varint(&p, end, &v), 0);
        } else if (r.type == CT_REC_EXT) {
            r.sub = *p++;
            assert_int_equal(ct_get_varint(&p, end, &r.len), 0);
            r.payload = p;
            p += r.len;
        } else {
            assert_int_equal(r.type, CT_REC_EXIT);
        }
        recs[n++] = r;
    }
    return n;
}

static void test_block_switch(void **state)
{
    (void)state;
    errno = 1234;
    __cyg_profile_func_enter((void *)fn_a, (void *)0x10);   /* outer frame */
    assert_int_equal(errno, 1234);
    struct ct_thread *t = ct_self;
    assert_non_null(t);
    /* Pairs of fn_b until the first block is full and a second opens. */
    int pairs = 0;
    while (t->seq < 2) {
        __cyg_profile_func_enter((void *)fn_b, (void *)0x20);
        __cyg_profile_func_exit((void *)fn_b, (void *)0x20);
        pairs++;
    }
    assert_int_equal(errno, 1234);
    ct_thread_close_current(0);
    size_t size;
    uint8_t *buf = read_all(&size);
    assert_int_equal(size, 4096 * 3);
    const struct ct_file_header *h = (const void *)buf;
    assert_memory_equal(h->magic, CT_FILE_MAGIC, CT_FILE_MAGIC_LEN);
    assert_int_equal(h->clock, CT_CLOCK_MONOTONIC);
    const struct ct_block_header *b0 = (const void *)(buf + 4096);
    const struct ct_block_header *b1 = (const void *)(buf + 8192);
    assert_int_equal(b0->magic, CT_BLOCK_MAGIC);
    assert_int_equal(b0->seq, 0);
    assert_int_equal(b1->seq, 1);
    assert_true(b0->flags & CT_BLOCK_CLOSED);
    assert_true(b1->flags & CT_BLOCK_CLOSED);
    /* The switch came at an entry of fn_b (fn_a open) or at its exit
     * (fn_a and fn_b open). */
    assert_true(b1->open_depth == 1 || b1->open_depth == 2);
    assert_true(b1->first_ticks >= b0->last_ticks);

    struct rec r[2048];
    int n0 = decode(b0, r, 2048);
    /* Block 0: STACK(0), E, C fn_a, pairs of C fn_b / R ..., S last. */
    assert_int_equal(r[0].sub, CT_EXT_STACK);
    assert_int_equal(r[1].sub, CT_EXT_OVERHEAD_END);
    assert_int_equal(r[2].type, CT_REC_ENTRY);
    assert_int_equal(r[2].fn, (uintptr_t)fn_a);
    assert_int_equal(r[3].fn, (uintptr_t)fn_b);
    assert_int_equal(r[n0 - 1].type, CT_REC_EXT);
    assert_int_equal(r[n0 - 1].sub, CT_EXT_OVERHEAD_START);
    int calls0 = 0, rets0 = 0;
    for (int i = 0; i < n0; i++) {
        calls0 += r[i].type == CT_REC_ENTRY;
        rets0 += r[i].type == CT_REC_EXIT;
    }
    int n1 = decode(b1, r, 2048);
    /* Block 1: STACK naming fn_a, then E, then the rest of the pairs. */
    assert_int_equal(r[0].type, CT_REC_EXT);
    assert_int_equal(r[0].sub, CT_EXT_STACK);
    const uint8_t *p = r[0].payload;
    uint64_t depth, fn;
    assert_int_equal(ct_get_varint(&p, r[0].payload + r[0].len, &depth), 0);
    assert_int_equal(depth, b1->open_depth);
    assert_int_equal(ct_get_varint(&p, r[0].payload + r[0].len, &fn), 0);
    assert_int_equal(fn, (uintptr_t)fn_a);
    if (depth == 2) {
        assert_int_equal(ct_get_varint(&p, r[0].payload + r[0].len, &fn), 0);
        assert_int_equal(fn, (uintptr_t)fn_b);
        assert_int_equal(r[2].type, CT_REC_EXIT);  /* fn_b returns first */
    } else {
        assert_int_equal(r[2].type, CT_REC_ENTRY);
    }
    assert_ptr_equal(p, r[0].payload + r[0].len);
    assert_int_equal(r[1].sub, CT_EXT_OVERHEAD_END);
    int calls1 = 0, rets1 = 0;
    for (int i = 0; i < n1; i++) {
        calls1 += r[i].type == CT_REC_ENTRY;
        rets1 += r[i].type == CT_REC_EXIT;
    }
    /* Nothing lost across the switch. */
    assert_int_equal(calls0 + calls1, 1 + pairs);
    assert_int_equal(rets0 + rets1, pairs);
    free(buf);
}

static void test_hidden_and_reentry(void **state)
{
    (void)state;
    struct ct_thread *t = ct_self;
    assert_non_null(t);
    /* A recorded pair opens a block again after the last test closed it. */
    __cyg_profile_func_enter((void *)fn_a, (void *)0x30);
    __cyg_profile_func_exit((void *)fn_a, (void *)0x30);
    assert_non_null(t->blk);
    uint32_t depth = t->depth;
    calltrace_set_enabled_impl(0);
    __cyg_profile_func_enter((void *)fn_b, (void *)0x30);   /* hidden */
    calltrace_set_enabled_impl(1);
    /* With nothing open it is only counted (what makes a paused call
     * cheap); under an open frame it is marked on the shadow stack. */
    assert_int_equal(t->hidden_count, depth ? 1 : 0);
    assert_int_equal(t->blind, depth ? 0 : 1);
    uint8_t *pos = t->pos;
    __cyg_profile_func_exit((void *)fn_b, (void *)0x30);    /* hidden too */
    assert_int_equal(t->hidden_count, 0);
    assert_int_equal(t->blind, 0);
    assert_int_equal(t->depth, depth);
    /* Only the TOGGLE 1 record was written, no exit. */
    const uint8_t *p = pos;
    uint64_t head;
    assert_int_equal(ct_get_varint(&p, t->limit, &head), 0);
    uint64_t delta;
    assert_int_equal(ct_head_split(head, true, &delta), CT_REC_EXT);
    assert_int_equal(*p, CT_EXT_TOGGLE);
    assert_int_equal(p[2], 1);
    assert_ptr_equal(t->pos, p + 3);

    /* Under a recorded frame: hidden on the shadow stack. */
    __cyg_profile_func_enter((void *)fn_a, (void *)0x34);
    calltrace_set_enabled_impl(0);
    __cyg_profile_func_enter((void *)fn_b, (void *)0x38);
    __cyg_profile_func_enter((void *)fn_b, (void *)0x3c);
    calltrace_set_enabled_impl(1);
    assert_int_equal(t->hidden_count, 2);
    assert_int_equal(t->blind, 0);
    __cyg_profile_func_exit((void *)fn_b, (void *)0x3c);
    __cyg_profile_func_exit((void *)fn_b, (void *)0x38);
    __cyg_profile_func_exit((void *)fn_a, (void *)0x34);
    assert_int_equal(t->hidden_count, 0);
    assert_int_equal(t->depth, depth);

    /* Re-entry: dropped and counted. */
    uint64_t lost = ct_proc.lost;
    pos = t->pos;
    t->busy = 1;
    __cyg_profile_func_enter((void *)fn_b, (void *)0x40);
    __cyg_profile_func_exit((void *)fn_b, (void *)0x40);
    t->busy = 0;
    assert_ptr_equal(t->pos, pos);
    assert_int_equal(ct_proc.lost, lost + 2);
    assert_int_equal(t->lost_pending, 2);
    assert_int_equal(t->depth, depth);
}

/* A thread's first block is 64 KiB when CALLTRACE_BUFSIZE is larger, so a
 * short-lived thread neither faults in nor keeps a whole block; its next
 * block has the configured size. */
static void *two_blocks(void *arg)
{
    uint32_t *tid = arg;
    __cyg_profile_func_enter((void *)fn_a, (void *)0x10);
    struct ct_thread *t = ct_self;
    *tid = t->tid;
    while (t->seq < 1) {
        __cyg_profile_func_enter((void *)fn_b, (void *)0x20);
        __cyg_profile_func_exit((void *)fn_b, (void *)0x20);
    }
    __cyg_profile_func_exit((void *)fn_a, (void *)0x10);
    ct_thread_close_current(0);
    return NULL;
}

static void test_first_block_small(void **state)
{
    (void)state;
    uint32_t saved = ct_proc.cfg.bufsize;
    ct_proc.cfg.bufsize = 256u << 10;
    pthread_t th;
    uint32_t tid = 0;
    assert_int_equal(pthread_create(&th, NULL, two_blocks, &tid), 0);
    assert_int_equal(pthread_join(th, NULL), 0);
    ct_proc.cfg.bufsize = saved;
    size_t size;
    uint8_t *buf = read_all(&size);
    uint32_t sizes[2] = {0, 0};
    for (size_t off = CT_FILE_HEADER_SIZE; off + CT_BLOCK_HEADER_SIZE <= size;) {
        const struct ct_block_header *b = (const void *)(buf + off);
        if (b->magic == 0) {  /* reserved ahead and never started */
            off += CT_BLOCK_ALIGN;
            continue;
        }
        if (b->magic != CT_BLOCK_MAGIC || b->size == 0)
            break;
        if (b->kind == CT_BLOCK_EVENTS && b->tid == tid && b->seq < 2)
            sizes[b->seq] = b->size;
        off += b->size;
    }
    assert_int_equal(sizes[0], 64u << 10);
    assert_int_equal(sizes[1], 256u << 10);
    free(buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_head_codes),
        cmocka_unit_test(test_entry_bytes),
        cmocka_unit_test(test_exit_and_ext_bytes),
        cmocka_unit_test(test_roundtrip),
    };
    const struct CMUnitTest file_tests[] = {
        cmocka_unit_test(test_block_switch),
        cmocka_unit_test(test_hidden_and_reentry),
        cmocka_unit_test(test_first_block_small),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    return rc | cmocka_run_group_tests(file_tests, setup_file, teardown_file);
}
