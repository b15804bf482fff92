/* bench/libcalls.sh, bench/args.sh: N calls into a shared library
 * (lib_step, through the PLT) from one instrumented function.
 *   libcalls_prog N            N calls; prints the last value
 *   libcalls_prog N ROUNDS     ROUNDS rounds of N calls, each timed by
 *                              the thread's CPU clock; prints the fastest
 *                              round's ns per call */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int lib_step(int x);

static int run(long n)
{
    int x = 0;
    for (long i = 0; i < n; i++)
        x = lib_step(x);
    return x;
}

static double cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000000;
    int rounds = argc > 2 ? atoi(argv[2]) : 0;
    if (rounds <= 0) {
        printf("%d\n", run(n));
        return 0;
    }
    double best = 1e30;
    int x = 0;
    for (int r = 0; r < rounds; r++) {
        double t0 = cpu_ns();
        x += run(n);
        double ns = (cpu_ns() - t0) / (double)n;
        if (ns < best)
            best = ns;
    }
    printf("%.2f\n", best + (x == 42 ? 1e-9 : 0));
    return 0;
}
