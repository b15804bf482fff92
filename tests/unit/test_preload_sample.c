/*
 * Sampling mode: interval and mode parsing, the CT_EXT_SAMPLE payload
 * byte by byte, the re-entry guard and the loader guard.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <link.h>
#include <stdlib.h>
#include <ucontext.h>
#include <unistd.h>

#include "calltrace_format.h"
#include "preload/sampling/sample.h"

static void interval_ok(const char *text, uint64_t want)
{
    uint64_t ns = 0;
    assert_int_equal(ct_sample_parse_interval(text, &ns), 0);
    assert_int_equal(ns, want);
}

static void interval_bad(const char *text)
{
    uint64_t ns = 12345;
    assert_int_equal(ct_sample_parse_interval(text, &ns), -1);
    assert_int_equal(ns, 12345);  /* untouched */
}

static void test_interval(void **state)
{
    (void)state;
    interval_ok("10ms", 10000000);
    interval_ok("1ms", 1000000);
    interval_ok("100ms", 100000000);
    interval_ok("500us", 500000);
    interval_ok("2s", 2000000000);
    interval_ok("250000ns", 250000);
    interval_ok("5", 5000000);        /* a bare number is milliseconds */
    interval_ok("0.5ms", 500000);
    interval_ok("10us", 10000);       /* the lower bound */
    interval_ok("60s", 60000000000ull);
    interval_bad(NULL);
    interval_bad("");
    interval_bad("fast");
    interval_bad("ms");
    interval_bad("-1ms");
    interval_bad("10 ms");
    interval_bad("1h");
    interval_bad("9us");              /* below 10us */
    interval_bad("61s");
    interval_bad("0");
}

static void test_mode(void **state)
{
    (void)state;
    assert_int_equal(ct_sample_parse_mode(NULL), CT_MODE_TRACE);
    assert_int_equal(ct_sample_parse_mode(""), CT_MODE_TRACE);
    assert_int_equal(ct_sample_parse_mode("trace"), CT_MODE_TRACE);
    assert_int_equal(ct_sample_parse_mode("sample"), CT_MODE_SAMPLE);
    assert_int_equal(ct_sample_parse_mode("both"), CT_MODE_BOTH);
    assert_int_equal(ct_sample_parse_mode("profile"), CT_MODE_PROFILE);
    assert_int_equal(ct_sample_parse_mode("Sample"), -1);
    assert_int_equal(ct_sample_parse_mode("samples"), -1);
}

static void test_encode_bytes(void **state)
{
    (void)state;
    uint8_t out[CT_SAMPLE_PAYLOAD_MAX];
    const uintptr_t pcs[] = {0x401000, 0x7f};
    /* weight 1, depth 2, then 0x401000 in 7-bit groups from the low end:
     * 0x00, 0x20, 0x00, 0x02, and 0x7f in one byte. */
    const uint8_t want[] = {0x01, 0x02, 0x80, 0xa0, 0x80, 0x02, 0x7f};
    size_t n = ct_sample_encode(out, 1, pcs, 2);
    assert_int_equal(n, sizeof want);
    assert_memory_equal(out, want, sizeof want);

    /* Weight from merged timer expirations: 300 = 0xac 0x02. */
    n = ct_sample_encode(out, 300, pcs, 1);
    const uint8_t want2[] = {0xac, 0x02, 0x01, 0x80, 0xa0, 0x80, 0x02};
    assert_int_equal(n, sizeof want2);
    assert_memory_equal(out, want2, sizeof want2);
}

static void test_encode_limits(void **state)
{
    (void)state;
    static uintptr_t pcs[200];
    for (unsigned i = 0; i < 200; i++)
        pcs[i] = UINTPTR_MAX - i;
    uint8_t out[CT_SAMPLE_PAYLOAD_MAX];
    size_t n = ct_sample_encode(out, UINT64_MAX, pcs, 200);
    /* Cut to 128 frames: weight and pcs 10 bytes each, depth 128 in two. */
    assert_int_equal(n, 10 + 2 + 128 * 10);
    assert_true(n <= CT_SAMPLE_PAYLOAD_MAX);
    const uint8_t *p = out, *end = out + n;
    uint64_t weight, depth, pc;
    assert_int_equal(ct_get_varint(&p, end, &weight), 0);
    assert_int_equal(ct_get_varint(&p, end, &depth), 0);
    assert_int_equal(weight, UINT64_MAX);
    assert_int_equal(depth, CT_SAMPLE_MAX_DEPTH);
    for (unsigned i = 0; i < depth; i++) {
        assert_int_equal(ct_get_varint(&p, end, &pc), 0);
        assert_int_equal(pc, UINTPTR_MAX - i);  /* leaf first, root cut */
    }
    assert_ptr_equal(p, end);
}

/* A context taken here, as the kernel would hand one to the handler. */
static ucontext_t uc;

__attribute__((noinline)) static unsigned take_here(uintptr_t *pcs)
{
    getcontext(&uc);
    return ct_sample_take(&uc, pcs, CT_SAMPLE_MAX_DEPTH);
}

/* The descriptors open now, the listing's own left out. */
static int open_descriptors(void)
{
    DIR *d = opendir("/proc/self/fd");
    int n = 0;
    struct dirent *e;
    assert_non_null(d);
    while ((e = readdir(d)))
        if (e->d_name[0] != '.' && atoi(e->d_name) != dirfd(d))
            n++;
    closedir(d);
    return n;
}

/* libunwind's address checks use a pipe it keeps by number; loaded by
 * the tracer, it takes no descriptor (unwind_fds.c), through its first
 * walk (prepare's) and the walks after.  Runs before any other test
 * loads it. */
static void test_unwind_takes_no_descriptor(void **state)
{
    (void)state;
    uintptr_t pcs[CT_SAMPLE_MAX_DEPTH];
    int before = open_descriptors();
    assert_int_equal(ct_sample_unwind_prepare(), 0);
    for (int i = 0; i < 4; i++)
        assert_true(take_here(pcs) >= 4);
    assert_int_equal(open_descriptors(), before);
    /* the number the next open gets is the one it got before */
    int fd = open("/dev/null", O_RDONLY);
    assert_true(fd >= 0);
    assert_int_equal(open_descriptors(), before + 1);
    close(fd);
}

static void test_take_walks(void **state)
{
    (void)state;
    uintptr_t pcs[CT_SAMPLE_MAX_DEPTH];
    /* libunwind is loaded when sampling starts; here by hand. */
    assert_int_equal(ct_sample_unwind_prepare(), 0);
    unsigned n = take_here(pcs);
    /* take_here, this test, cmocka's runner, main, libc: a real walk. */
    assert_true(n >= 4);
    assert_int_equal(pcs[0], ct_sample_leaf_pc(&uc));
    assert_true(pcs[0] > (uintptr_t)take_here &&
                pcs[0] < (uintptr_t)take_here + 256);
}

static void test_reentry_guard(void **state)
{
    (void)state;
    struct ct_sample_stats before, after;
    uintptr_t pcs[CT_SAMPLE_MAX_DEPTH];
    ct_sample_get_stats(&before);
    assert_int_equal(ct_sample_guard_enter(), 1);
    assert_int_equal(ct_sample_guard_enter(), 0);   /* nested: refused */
    assert_int_equal(take_here(pcs), 0);             /* nothing recorded */
    ct_sample_guard_leave();
    ct_sample_get_stats(&after);
    assert_int_equal(after.reentered, before.reentered + 1);
    assert_true(take_here(pcs) >= 4);               /* released */
    assert_int_equal(ct_sample_guard_enter(), 1);
    ct_sample_guard_leave();
}

struct in_loader {
    int busy;
    unsigned depth;
    uintptr_t leaf, expected_leaf;
};

static int during_iteration(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)info;
    (void)size;
    struct in_loader *r = data;
    uintptr_t pcs[CT_SAMPLE_MAX_DEPTH];
    r->busy = ct_sample_loader_busy();
    r->depth = take_here(pcs);
    r->leaf = pcs[0];
    r->expected_leaf = ct_sample_leaf_pc(&uc);
    return 1;  /* one object is enough */
}

static void test_loader_guard(void **state)
{
    (void)state;
    struct ct_sample_stats before, after;
    assert_int_equal(ct_sample_loader_busy(), 0);
    ct_sample_get_stats(&before);
    struct in_loader r = {0};
    /* This is the preload's wrapper: the test links sample.o. */
    dl_iterate_phdr(during_iteration, &r);
    ct_sample_get_stats(&after);
    assert_int_not_equal(r.busy, 0);
    assert_int_equal(r.depth, 1);           /* the leaf only: no walk */
    assert_int_equal(r.leaf, r.expected_leaf);
    assert_int_equal(after.leaf_only, before.leaf_only + 1);
    assert_int_equal(ct_sample_loader_busy(), 0);
}

/* The loader guard for walks outside a handler (the kernel sampler's
 * thread): refused inside a loader call, and it tells when objects were
 * loaded or unloaded since the previous walk. */
static int walk_inside(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)info, (void)size;
    int changed;
    *(int *)data = ct_sample_walk_begin(0, &changed);
    if (*(int *)data)
        ct_sample_walk_end();
    return 1;
}

static void test_walk_guard(void **state)
{
    (void)state;
    int changed = 0, got = -1;
    assert_int_equal(ct_sample_walk_begin(0, &changed), 1);
    ct_sample_walk_end();
    assert_int_equal(ct_sample_walk_begin(0, &changed), 1);
    ct_sample_walk_end();
    assert_int_equal(changed, 0);            /* nothing loaded since */
    assert_int_equal(ct_loader_enter(), 1);  /* a dlopen, as wrap.c's */
    ct_loader_leave();
    assert_int_equal(ct_sample_walk_begin(0, &changed), 1);
    ct_sample_walk_end();
    assert_int_equal(changed, 1);
    dl_iterate_phdr(walk_inside, &got);
    assert_int_equal(got, 0);                /* the loader is busy */
}

/* The remote walk over a copy of this thread's registers and stack, as the
 * kernel would have taken them in capture(): the copy is unwound through
 * middle() and outer(). */
static struct ct_perf_regs captured;
static uint8_t stack_copy[8192];
static size_t copied;

/* The stack below and around capture()'s frame, as the kernel copies it:
 * AddressSanitizer's redzones are in there, so this copy is not checked
 * (byte by byte: its memcpy would be). */
__attribute__((no_sanitize_address, noinline)) static void
copy_stack(uint8_t *dst, const uint8_t *src, size_t n)
{
    for (size_t i = 0; i < n; i++)
        ((volatile uint8_t *)dst)[i] = src[i];
}

__attribute__((noinline, noipa)) static void capture(void)
{
    ucontext_t uc;
    getcontext(&uc);
    const greg_t *g = uc.uc_mcontext.gregs;
    const int order[17] = {REG_RAX, REG_RDX, REG_RCX, REG_RBX, REG_RSI,
                           REG_RDI, REG_RBP, REG_RSP, REG_R8,  REG_R9,
                           REG_R10, REG_R11, REG_R12, REG_R13, REG_R14,
                           REG_R15, REG_RIP};
    for (int i = 0; i < 17; i++)
        captured.r[i] = (uint64_t)g[order[i]];
    /* As the kernel does, no further than the stack's mapping goes. */
    uintptr_t sp = (uintptr_t)captured.r[7], lo, hi;
    copied = 0;
    FILE *maps = fopen("/proc/self/maps", "r");
    char line[512];
    while (maps && fgets(line, sizeof line, maps))
        if (sscanf(line, "%lx-%lx", &lo, &hi) == 2 && sp >= lo && sp < hi)
            copied = hi - sp < sizeof stack_copy ? hi - sp : sizeof stack_copy;
    if (maps)
        fclose(maps);
    copy_stack(stack_copy, (const uint8_t *)sp, copied);
}

__attribute__((noinline, noipa)) static void middle(void) { capture(); __asm__ volatile(""); }
__attribute__((noinline, noipa)) static void outer(void) { middle(); __asm__ volatile(""); }

/* A return address inside fn: middle() and outer() are a call and a
 * return, far shorter than 256 bytes even with the sanitizers. */
static int in_fn(uintptr_t pc, void (*fn)(void))
{
    return pc - 1 >= (uintptr_t)fn && pc - 1 < (uintptr_t)fn + 256;
}

static void test_remote_walk(void **state)
{
    (void)state;
    if (ct_sample_remote_prepare() != 0)
        skip();
    outer();
    int changed;
    assert_int_equal(ct_sample_walk_begin(0, &changed), 1);
    ct_sample_remote_objects_changed(dl_iterate_phdr);
    uintptr_t pcs[16];
    size_t need = 0;
    unsigned n = ct_sample_remote_unwind(&captured, stack_copy, copied,
                                         NULL, pcs, 16, &need);
    ct_sample_walk_end();
    assert_true(n >= 4);
    assert_int_equal(pcs[0], captured.r[16]);
    int seen_middle = 0, seen_outer = 0;
    for (unsigned i = 1; i < n; i++) {
        seen_middle |= in_fn(pcs[i], middle);
        seen_outer |= in_fn(pcs[i], outer);
    }
    assert_true(seen_middle);
    assert_true(seen_outer);
    /* what it read of the copy, inside it */
    assert_true(need > 0 && need <= copied);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_interval),
        cmocka_unit_test(test_mode),
        cmocka_unit_test(test_encode_bytes),
        cmocka_unit_test(test_encode_limits),
        cmocka_unit_test(test_unwind_takes_no_descriptor),
        cmocka_unit_test(test_take_walks),
        cmocka_unit_test(test_reentry_guard),
        cmocka_unit_test(test_loader_guard),
        cmocka_unit_test(test_walk_guard),
        cmocka_unit_test(test_remote_walk),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
