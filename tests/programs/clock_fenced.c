/*
 * For tests/e2e/clock_fenced.sh: short() and mid() are dependent chains
 * of about 8 and 100 ns, the sizes whose bodies an unfenced TSC read
 * overlaps with the hooks' own work (docs/analysis.md, "A clock read in
 * order"), and cheap() an empty leaf, the run's cheapest calls, from which
 * the report takes the tracer's cost inside a call.  Each of short and
 * mid exists twice: u_* not instrumented (the truth, timed here in CPU
 * time, fastest of 5 rounds taken between the traced ones) and t_*
 * instrumented.  Prints "short NS_PER_CALL" and "mid NS_PER_CALL".
 */
#include <stdio.h>

#include "known_work.h"

#define DEFINE(p, attr)                                                      \
    attr __attribute__((noinline)) unsigned long p##short(unsigned long x)   \
    {                                                                        \
        return chain(x, 8);                                                  \
    }                                                                        \
    attr __attribute__((noinline)) unsigned long p##mid(unsigned long x)     \
    {                                                                        \
        return chain(x, 64);                                                 \
    }
DEFINE(u_, NOTRACE)
DEFINE(t_, )

__attribute__((noinline)) unsigned long t_cheap(unsigned long x)
{
    __asm__("" : "+r"(x));
    return x + 1;
}

static volatile unsigned long sink;

NOTRACE int main(void)
{
    double best_short = 1e30, best_mid = 1e30;
    unsigned long x = 1;
    for (int r = 0; r < 5; r++) {
        for (int i = 0; i < 40000; i++)
            x = t_cheap(x);
        double ns = per_call(u_short, 20000, &x);
        best_short = ns < best_short ? ns : best_short;
        for (int i = 0; i < 20000; i++)
            x = t_short(x);
        ns = per_call(u_mid, 20000, &x);
        best_mid = ns < best_mid ? ns : best_mid;
        for (int i = 0; i < 20000; i++)
            x = t_mid(x);
    }
    sink = x;
    printf("short %.1f\nmid %.1f\n", best_short, best_mid);
    return 0;
}
