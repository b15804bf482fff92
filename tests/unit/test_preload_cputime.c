/* The tracer's on-CPU records: a thread asleep inside a traced function
 * leaves SWITCH records whose intervals cover the sleep (or, where
 * perf_event_open is refused, CPUTIME readings), reachable through the
 * block header's chain, and holds no descriptor of its own. */
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "preload/tracer.h"

static char path[64];

static void fn_a(void) {}

static int open_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    int n = 0;
    if (!d)
        return -1;
    while (readdir(d))
        n++;
    closedir(d);
    return n;
}

static int fds_inside;

static void *sleeper(void *arg)
{
    (void)arg;
    __cyg_profile_func_enter((void *)fn_a, (void *)0x10);
    fds_inside = open_fds();
    struct timespec ts = {0, 30 * 1000 * 1000};
    nanosleep(&ts, NULL);
    __cyg_profile_func_exit((void *)fn_a, (void *)0x10);
    return NULL;
}

static void start_file(int cputime)
{
    snprintf(path, sizeof path, "/tmp/ct-unit-cpu-%d.raw", (int)getpid());
    unlink(path);
    ct_config_defaults(&ct_proc.cfg);
    ct_proc.cfg.quiet = 1;
    ct_proc.cfg.cputime = cputime;
    snprintf(ct_proc.cfg.output, sizeof ct_proc.cfg.output, "%s", path);
    ct_clock_init(1, 0);  /* monotonic: ns ticks */
    ct_proc.pid = (uint32_t)getpid();
    assert_int_equal(ct_file_open(0, 1), 0);
    ct_proc.started = 2;
    ct_global_update();
}

static uint8_t *read_all(size_t *size)
{
    int fd = open(path, O_RDONLY);
    assert_true(fd >= 0);
    off_t n = lseek(fd, 0, SEEK_END);
    uint8_t *buf = malloc((size_t)n);
    assert_int_equal(pread(fd, buf, (size_t)n, 0), n);
    close(fd);
    unlink(path);
    *size = (size_t)n;
    return buf;
}

struct found {
    uint64_t off_ns;      /* sum of SWITCH intervals                      */
    int switches;         /* SWITCH records reached through the chain     */
    int cputimes;
    uint64_t cpu0, cpu1;  /* first and last CPUTIME reading               */
};

/* Walks every EVENTS block: the SWITCH chain from the header, and a scan
 * of the records for CPUTIME. */
static void scan(const uint8_t *buf, size_t size, struct found *f)
{
    memset(f, 0, sizeof *f);
    for (size_t off = CT_FILE_HEADER_SIZE; off + 64 <= size;) {
        const struct ct_block_header *b = (const void *)(buf + off);
        if (b->magic != CT_BLOCK_MAGIC) {
            off += CT_BLOCK_ALIGN;
            continue;
        }
        const uint8_t *data = buf + off + CT_BLOCK_HEADER_SIZE;
        const uint8_t *end = data + b->used;
        for (uint32_t link = b->last_switch; link;) {
            const uint8_t *p = data + link - 1;
            uint64_t head, len, v, ago, len2;
            assert_int_equal(ct_get_varint(&p, end, &head), 0);
            uint64_t delta;
            assert_int_equal(ct_head_split(head, true, &delta), CT_REC_EXT);
            assert_int_equal(*p++, CT_EXT_SWITCH);
            assert_int_equal(ct_get_varint(&p, end, &len), 0);
            const uint8_t *pend = p + len;
            uint32_t prev;
            memcpy(&prev, p, 4);
            p += 4;
            for (int i = 0; i < 3; i++)
                assert_int_equal(ct_get_varint(&p, pend, &v), 0);
            while (p < pend) {
                assert_int_equal(ct_get_varint(&p, pend, &ago), 0);
                assert_int_equal(ct_get_varint(&p, pend, &len2), 0);
                f->off_ns += len2 >> 1;
            }
            f->switches++;
            assert_true(prev < link);
            link = prev;
        }
        for (const uint8_t *p = data; p < end && *p;) {
            uint64_t head, len, a;
            assert_int_equal(ct_get_varint(&p, end, &head), 0);
            uint64_t delta;
            unsigned type = ct_head_split(head, true, &delta);
            if (type == CT_REC_ENTRY) {
                assert_int_equal(ct_get_varint(&p, end, &a), 0);
                assert_int_equal(ct_get_varint(&p, end, &a), 0);
            } else if (type == CT_REC_EXT) {
                unsigned sub = *p++;
                assert_int_equal(ct_get_varint(&p, end, &len), 0);
                if (sub == CT_EXT_CPUTIME) {
                    const uint8_t *q = p;
                    assert_int_equal(ct_get_varint(&q, p + len, &a), 0);
                    if (!f->cputimes++)
                        f->cpu0 = a;
                    f->cpu1 = a;
                }
                p += len;
            }
        }
        off += b->size;
    }
}

static void run_sleeper(struct found *f, uint32_t *oncpu)
{
    int before = open_fds();
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, sleeper, NULL), 0);
    pthread_join(t, NULL);
    /* the ring's descriptor was closed once mapped */
    assert_int_equal(fds_inside, before);
    *oncpu = ct_proc.hdr->oncpu;
    size_t size;
    uint8_t *buf = read_all(&size);
    scan(buf, size, f);
    free(buf);
}

static void switch_records_cover_a_sleep(void **state)
{
    (void)state;
    start_file(CT_CPUTIME_SWITCH);
    struct found f;
    uint32_t oncpu;
    run_sleeper(&f, &oncpu);
    if (oncpu == CT_ONCPU_CLOCK) {
        /* perf_event_open refused here: the fallback instead */
        assert_int_equal(f.switches, 0);
        assert_true(f.cputimes >= 2);
        return;
    }
    assert_int_equal(oncpu, CT_ONCPU_SWITCH);
    /* one at the block's start, one at the thread's end */
    assert_true(f.switches >= 2);
    assert_true(f.off_ns >= 25u * 1000 * 1000);
}

static void clock_readings_when_asked(void **state)
{
    (void)state;
    start_file(CT_CPUTIME_CLOCK);
    struct found f;
    uint32_t oncpu;
    run_sleeper(&f, &oncpu);
    assert_int_equal(oncpu, CT_ONCPU_CLOCK);
    assert_int_equal(f.switches, 0);
    assert_true(f.cputimes >= 2);
    /* asleep 30 ms, on the CPU for far less */
    assert_true(f.cpu1 - f.cpu0 < 25u * 1000 * 1000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(switch_records_cover_a_sleep),
        cmocka_unit_test(clock_readings_when_asked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
