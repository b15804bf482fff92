/*
 * What the programs of known cost share (bias_costs.c, clock_fenced.c):
 * a dependent chain of multiplications whose length sets a function's
 * cost, and the thread's CPU clock that times the untraced copies.
 * Everything here is left out of the instrumentation.
 */
#ifndef KNOWN_WORK_H
#define KNOWN_WORK_H
#include <time.h>

#define NOTRACE __attribute__((no_instrument_function))

/* steps dependent multiply-adds: the empty asm keeps the compiler from
 * folding the chain or moving it out of its function. */
static inline __attribute__((always_inline)) NOTRACE unsigned long
chain(unsigned long x, int steps)
{
    for (int i = 0; i < steps; i++) {
        x = x * 2654435761u + 1;
        __asm__("" : "+r"(x));
    }
    return x;
}

NOTRACE static inline double cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* n calls of f, in CPU ns per call. */
NOTRACE static inline double per_call(unsigned long (*f)(unsigned long),
                                      int n, unsigned long *x)
{
    double t0 = cpu_ns();
    for (int i = 0; i < n; i++)
        *x = f(*x);
    return (cpu_ns() - t0) / n;
}
#endif
