/*
 * For tests/e2e/bias_ratio.sh: a leaf of about 20 ns called 1000 times by a
 * parent whose own work is its loop, and a heavy function of a few us.
 * Each exists twice: u_* not instrumented (the truth, timed here in CPU
 * time, fastest of 5 rounds) and t_* instrumented (traced).  Prints
 * "NAME NS_PER_CALL" for u_parent and u_heavy.
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

#define DEFINE(p, attr)                                                      \
    attr __attribute__((noinline)) unsigned long p##leaf(unsigned long x)    \
    {                                                                        \
        return chain(x, 16);                                                 \
    }                                                                        \
    attr __attribute__((noinline)) unsigned long p##parent(unsigned long x)  \
    {                                                                        \
        for (int i = 0; i < 1000; i++)                                       \
            x = p##leaf(x);                                                  \
        return x;                                                            \
    }                                                                        \
    attr __attribute__((noinline)) unsigned long p##heavy(unsigned long x)   \
    {                                                                        \
        return chain(x, 4000);                                               \
    }
DEFINE(u_, NOTRACE)
DEFINE(t_, )

static volatile unsigned long sink;

NOTRACE static double cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* Fastest of 5 rounds of n calls: others' load only adds. */
NOTRACE static double per_call(unsigned long (*f)(unsigned long), int n)
{
    double best = 1e30;
    unsigned long x = 1;
    for (int r = 0; r < 5; r++) {
        double t0 = cpu_ns();
        for (int i = 0; i < n; i++)
            x = f(x);
        double ns = (cpu_ns() - t0) / n;
        if (ns < best)
            best = ns;
    }
    sink = x;
    return best;
}

NOTRACE int main(void)
{
    printf("parent %.1f\n", per_call(u_parent, 200));
    printf("heavy %.1f\n", per_call(u_heavy, 500));
    unsigned long x = 1;
    for (int i = 0; i < 200; i++)
        x = t_parent(x);
    for (int i = 0; i < 500; i++)
        x = t_heavy(x);
    sink = x;
    return 0;
}
