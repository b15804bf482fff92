/*
 * The codec for PACKED blocks, chosen by measurement (BENCHMARKS.md,
 * "Packed traces"): a trace cut into 1 MiB blocks, each compressed by zstd
 * at levels -5, -1, 1 and 3 and by lz4, one core, in process; the ratio
 * and the CPU speed of each, and zstd level 1's unpacking speed.
 *   cc -O2 -o pack_codecs bench/pack_codecs.c -lzstd -llz4
 *   ./pack_codecs TRACE
 */
#include <lz4.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <zstd.h>

#define BLOCK (1u << 20)
#define ROUNDS 5

static double cpu_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    FILE *f = argc == 2 ? fopen(argv[1], "rb") : NULL;
    if (!f) {
        fprintf(stderr, "usage: pack_codecs TRACE\n");
        return 2;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *in = malloc((size_t)n), *out = malloc(ZSTD_compressBound(BLOCK) +
                                                 LZ4_compressBound(BLOCK));
    if (!in || !out || fread(in, 1, (size_t)n, f) != (size_t)n)
        return 1;
    fclose(f);
    static const int levels[] = {-5, -1, 1, 3};
    ZSTD_CCtx *cc = ZSTD_createCCtx();
    printf("| codec | ratio | MB/s (CPU) |\n|---|---|---|\n");
    for (unsigned k = 0; k < sizeof levels / sizeof *levels; k++) {
        size_t total = 0;
        double t = cpu_s();
        for (int r = 0; r < ROUNDS; r++) {
            total = 0;
            for (long off = 0; off < n; off += BLOCK) {
                size_t len = n - off < BLOCK ? (size_t)(n - off) : BLOCK;
                total += ZSTD_compressCCtx(cc, out, ZSTD_compressBound(BLOCK),
                                           in + off, len, levels[k]);
            }
        }
        t = (cpu_s() - t) / ROUNDS;
        printf("| zstd %d | %.2fx | %.0f |\n", levels[k], (double)n / total,
               n / t / 1e6);
    }
    size_t total = 0;
    double t = cpu_s();
    for (int r = 0; r < ROUNDS; r++) {
        total = 0;
        for (long off = 0; off < n; off += BLOCK) {
            int len = n - off < BLOCK ? (int)(n - off) : (int)BLOCK;
            total += (size_t)LZ4_compress_default(in + off, out, len,
                                                  LZ4_compressBound(BLOCK));
        }
    }
    t = (cpu_s() - t) / ROUNDS;
    printf("| lz4 | %.2fx | %.0f |\n", (double)n / total, n / t / 1e6);
    if (n >= (long)BLOCK) {
        ZSTD_DCtx *dc = ZSTD_createDCtx();
        char *back = malloc(BLOCK);
        size_t z = ZSTD_compressCCtx(cc, out, ZSTD_compressBound(BLOCK), in,
                                     BLOCK, 1);
        t = cpu_s();
        for (int r = 0; r < 50; r++)
            ZSTD_decompressDCtx(dc, back, BLOCK, out, z);
        t = cpu_s() - t;
        printf("\nzstd 1 unpacks at %.0f MB/s\n", 50.0 * BLOCK / t / 1e6);
        free(back);
        ZSTD_freeDCtx(dc);
    }
    ZSTD_freeCCtx(cc);
    free(in);
    free(out);
    return 0;
}
