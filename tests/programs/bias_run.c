/*
 * For tests/e2e/bias_run.sh: the calls from which the report measures the
 * tracer's cost in the run (--subtract-bias).  t_cheap() does nothing, so
 * its calls are the cheapest leaf calls of the run; t_mid() calls it 1000
 * times in a loop with nothing else between two calls, so its gaps are
 * the shortest; t_busy() is a leaf of about 20 ns, called as often, which
 * must not be chosen.  200 000 calls of t_cheap and of t_busy, 199 800
 * gaps in t_mid.  The u_* copies are not instrumented: the program times
 * u_mid(1000) itself in CPU time (fastest of 5 rounds) and prints
 * "mid NS_PER_CALL" after its own result line.
 */
#include <stdio.h>
#include <time.h>

#define NOTRACE __attribute__((no_instrument_function))

#define DEFINE(p, attr)                                                      \
    attr __attribute__((noinline)) int p##cheap(int x)                       \
    {                                                                        \
        __asm__ volatile("");                                                \
        return x;                                                            \
    }                                                                        \
    attr __attribute__((noinline)) unsigned long p##busy(unsigned long x)    \
    {                                                                        \
        for (int i = 0; i < 16; i++) {                                       \
            x = x * 2654435761u + 1;                                         \
            __asm__("" : "+r"(x));                                           \
        }                                                                    \
        return x;                                                            \
    }                                                                        \
    attr __attribute__((noinline)) int p##mid(int n)                         \
    {                                                                        \
        int s = 0;                                                           \
        for (int i = 0; i < n; i++)                                          \
            s += p##cheap(i);                                                \
        return s;                                                            \
    }
DEFINE(u_, NOTRACE)
DEFINE(t_, )

static NOTRACE double cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(void)
{
    long s = 0, us = 0;
    unsigned long x = 1;
    double best = 0;
    for (int round = 0; round < 5; round++) {
        for (int r = 0; r < 40; r++) {
            s += t_mid(1000);
            for (int i = 0; i < 1000; i++)
                x = t_busy(x);
        }
        double t0 = cpu_ns();
        for (int r = 0; r < 40; r++)
            us += u_mid(1000);
        double ns = (cpu_ns() - t0) / 40;
        if (round == 0 || ns < best)
            best = ns;
    }
    printf("%ld %lu\n", s, x & 1);
    printf("mid %.1f\n", us == s ? best : -1.0);
    return 0;
}
