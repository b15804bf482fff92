/*
 * For tests/e2e/bias_ratio.sh: a leaf of about 20 ns called 1000 times by a
 * parent whose own work is its loop, and a heavy function of a few us.
 * Each exists twice: u_* not instrumented (the truth, timed here in CPU
 * time, fastest of 5 rounds taken between the traced ones) and t_*
 * instrumented (traced).  Prints "NAME NS_PER_CALL" for u_parent and
 * u_heavy.
 */
#include <stdio.h>

#include "known_work.h"

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

/* Five rounds, each an untraced batch timed and then the traced one, so
 * that the truth (the fastest untraced batch: others' load only adds) is
 * taken in the same moments as the traced calls. */
NOTRACE int main(void)
{
    double parent = 1e30, heavy = 1e30;
    unsigned long x = 1;
    for (int r = 0; r < 5; r++) {
        double ns = per_call(u_parent, 40, &x);
        parent = ns < parent ? ns : parent;
        for (int i = 0; i < 40; i++)
            x = t_parent(x);
        ns = per_call(u_heavy, 100, &x);
        heavy = ns < heavy ? ns : heavy;
        for (int i = 0; i < 100; i++)
            x = t_heavy(x);
    }
    sink = x;
    printf("parent %.1f\nheavy %.1f\n", parent, heavy);
    return 0;
}
