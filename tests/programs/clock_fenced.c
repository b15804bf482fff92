/*
 * For tests/e2e/clock_fenced.sh: mid() is a dependent chain of about
 * 100 ns, the size where an unfenced TSC read hides most of the hooks'
 * cost behind the body's latency (docs/analysis.md, "Overlap"), called
 * 100 000 times by main.  It exists twice: u_mid not instrumented (the
 * truth, timed here in CPU time, fastest of 5 rounds taken between the
 * traced ones) and t_mid instrumented.  Prints "mid NS_PER_CALL".
 */
#include <stdio.h>
#include <time.h>

#define NOTRACE __attribute__((no_instrument_function))

static inline __attribute__((always_inline)) NOTRACE unsigned long
chain(unsigned long x, int steps)
{
    for (int i = 0; i < steps; i++) {
        x = x * 2654435761u + 1;
        __asm__("" : "+r"(x));
    }
    return x;
}

NOTRACE __attribute__((noinline)) unsigned long u_mid(unsigned long x)
{
    return chain(x, 64);
}

__attribute__((noinline)) unsigned long t_mid(unsigned long x)
{
    return chain(x, 64);
}

NOTRACE static double cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static volatile unsigned long sink;

NOTRACE int main(void)
{
    double best = 1e30;
    unsigned long x = 1;
    for (int r = 0; r < 5; r++) {
        double t0 = cpu_ns();
        for (int i = 0; i < 20000; i++)
            x = u_mid(x);
        double ns = (cpu_ns() - t0) / 20000;
        best = ns < best ? ns : best;
        for (int i = 0; i < 20000; i++)
            x = t_mid(x);
    }
    sink = x;
    printf("mid %.1f\n", best);
    return 0;
}
