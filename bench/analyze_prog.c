/* A call-heavy program for bench/analyze.sh: CALLS leaf calls under a
 * few levels, with some recursion, so the trace has many short calls. */
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))

NOINLINE static long leaf(long x) { return x ^ (x >> 3); }
NOINLINE static long mid(long x) { return leaf(x) + leaf(x + 1); }
NOINLINE static long rec(int n, long x) { return n ? rec(n - 1, x) + 1 : mid(x); }

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000000;
    long s = 0;
    for (long i = 0; i < n; i++)
        s += rec((int)(i & 3), i);
    printf("%ld\n", s);
    return 0;
}
