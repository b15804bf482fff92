/*
 * The calltrace reader's own speed, without the model:
 *   reader_bench gen FILE RECORDS   write a synthetic trace (tracegen.h)
 *   reader_bench touch FILE         baseline: read every byte of the file
 *   reader_bench read FILE          decode every record into a counting
 *                                   batch sink
 * Each prints records (or bytes) per second; bench/reader.sh runs them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analyzer/readers/read_calltrace.h"
#include "analyzer/readers/reader.h"
#include "tracegen.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Calls to a depth of 1..8 among 64 functions, a user event now and then:
 * about half calls, half returns, like a traced program. */
static int gen(const char *path, uint64_t records)
{
    struct tg_trace t;
    tg_init(&t, 2900000000ull, 1u << 20);
    struct tg_thread *th = tg_thread(&t, 100);
    uint64_t time = 1000, rng = 88172645463325252ull;
    while (t.records < records) {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        unsigned depth = 1 + (unsigned)(rng & 7);
        for (unsigned d = 0; d < depth; d++)
            tg_entry(&t, th, time += 20 + (rng >> (8 + d) & 63),
                     0x401000 + 0x40 * ((rng >> (4 * d)) & 63),
                     0x402000 + d * 8);
        if ((rng >> 40 & 1023) == 0)
            tg_user(&t, th, time += 5, "checkpoint");
        for (unsigned d = 0; d < depth; d++)
            tg_exit(&t, th, time += 15 + (rng >> (20 + d) & 31));
    }
    tg_finish(&t);
    int rc = tg_write(&t, path);
    printf("wrote %s: %llu records, %zu bytes\n", path,
           (unsigned long long)t.records, t.size);
    tg_free(&t);
    return rc ? 1 : 0;
}

/* A batch sink, as the profile is: the reader hands it arrays of events. */
struct counter {
    struct ct_batch_sink sink;
    uint64_t events, calls;
};

static int count(struct ct_batch_sink *self, const struct ct_event *ev,
                 size_t n)
{
    struct counter *c = (struct counter *)self;
    c->events += n;
    for (size_t i = 0; i < n; i++)
        c->calls += ev[i].kind == CT_EV_CALL;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "gen") == 0)
        return gen(argv[2], strtoull(argv[3], NULL, 10));
    if (argc != 3)
        return fprintf(stderr, "usage: see reader_bench.c\n"), 1;
    struct ct_input in;
    if (ct_input_open(&in, argv[2]) != 0)
        return 1;
    double t0 = now();
    if (strcmp(argv[1], "touch") == 0) {
        uint64_t sum = 0;
        for (size_t i = 0; i < in.size; i += 8) {
            uint64_t v;
            memcpy(&v, in.data + i, 8);
            sum += v;
        }
        double s = now() - t0;
        printf("touch: %zu bytes in %.3f s, %.0f MB/s (sum %llx)\n", in.size,
               s, (double)in.size / s / 1e6, (unsigned long long)sum);
    } else {
        struct ct_trace_info info;
        ct_trace_info_init(&info, in.path, "calltrace");
        struct counter c = {.sink = {{ct_batch_sink_event}, count}};
        struct ct_read_opts opts = {0};
        int rc = ct_reader_calltrace.read(&in, &info, &c.sink.sink, &opts);
        double s = now() - t0;
        printf("read: %llu records, %llu events (%llu calls) in %.3f s: "
               "%.0f M records/s, status %d\n",
               (unsigned long long)ct_calltrace_stats.records,
               (unsigned long long)c.events, (unsigned long long)c.calls, s,
               (double)ct_calltrace_stats.records / s / 1e6, rc);
        ct_trace_info_free(&info);
    }
    ct_input_close(&in);
    return 0;
}
