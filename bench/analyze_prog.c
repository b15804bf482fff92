/* A call-heavy program for bench/analyze.sh and bench/jobs.sh: CALLS leaf
 * calls under a few levels, with some recursion, so the trace has many
 * short calls.  analyze_prog ITERATIONS [THREADS]: THREADS threads (default
 * 1, the main thread alone) run ITERATIONS iterations each. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))

NOINLINE static long leaf(long x) { return x ^ (x >> 3); }
NOINLINE static long mid(long x) { return leaf(x) + leaf(x + 1); }
NOINLINE static long rec(int n, long x) { return n ? rec(n - 1, x) + 1 : mid(x); }

static long iterations;

NOINLINE static void *loop(void *out)
{
    long s = 0;
    for (long i = 0; i < iterations; i++)
        s += rec((int)(i & 3), i);
    *(long *)out = s;
    return NULL;
}

int main(int argc, char **argv)
{
    iterations = argc > 1 ? atol(argv[1]) : 1000000;
    int threads = argc > 2 ? atoi(argv[2]) : 1;
    if (threads < 1 || threads > 64)
        threads = 1;
    pthread_t t[64];
    long sums[64], s = 0;
    for (int i = 1; i < threads; i++)
        if (pthread_create(&t[i], NULL, loop, &sums[i]) != 0)
            return 1;
    loop(&sums[0]);
    for (int i = 1; i < threads; i++)
        pthread_join(t[i], NULL);
    for (int i = 0; i < threads; i++)
        s += sums[i];
    printf("%ld\n", s);
    return 0;
}
