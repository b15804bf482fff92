/* What bench/args_site.sh traces: n calls of leaf(i), an instrumented
 * function of the program whose argument and return value a rule may
 * keep, and nothing else; unused() is there for a rule that names a
 * function never called.
 *   args_site_prog N              N calls
 *   args_site_prog N ROUNDS deep  the same, each of the N a recursion of
 *                                 mid() 9 levels deep, each level calling
 *                                 leaf (ns per level): the returns above
 *                                 a leaf whose return was taken
 *   args_site_prog N ROUNDS       ROUNDS rounds of N calls, each timed
 *                                 by the thread's CPU clock; prints the
 *                                 fastest round's ns per call (the
 *                                 tracer's path alone, without the page
 *                                 faults and block switches a round may
 *                                 meet: CALLTRACE_BUFSIZE holds them all)
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

volatile long sink;

__attribute__((noinline)) int leaf(int x)
{
    sink += x;
    return x + 1;
}

__attribute__((noinline)) void unused(int x) { sink -= x; }

#define LEVELS 9

__attribute__((noinline)) void mid(int d)
{
    sink += leaf(d);
    if (d)
        mid(d - 1);
    sink++;
}

static double cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 2000000;
    int rounds = argc > 2 ? atoi(argv[2]) : 0;
    if (rounds <= 0) {
        for (long i = 0; i < n; i++)
            sink += leaf((int)i);
        return 0;
    }
    int deep = argc > 3;
    double best = 1e30;
    for (int r = 0; r < rounds; r++) {
        double t0 = cpu_ns();
        for (long i = 0; i < n; i++) {
            if (deep)
                mid(LEVELS - 1);
            else
                sink += leaf((int)i);
        }
        double ns = (cpu_ns() - t0) / (double)n / (deep ? LEVELS : 1);
        if (ns < best)
            best = ns;
    }
    if (sink == 42)
        unused(1);
    printf("%.2f\n", best);
    return 0;
}
