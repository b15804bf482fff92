/* One instrumented call in a loop, timed as the fastest of many rounds
 * (a busy machine only adds time), for bench/flight.sh: with empty hooks
 * it is the baseline, with CALLTRACE_START_PAUSED=1 the paused call. */
#include <stdio.h>
#include <time.h>

__attribute__((noinline)) void leaf(void) { __asm__ volatile(""); }

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

int main(void)
{
    enum { CALLS = 1000000, ROUNDS = 100 };
    double best = 1e300;
    for (int r = 0; r < ROUNDS; r++) {
        double t0 = now_ns();
        for (int i = 0; i < CALLS; i++)
            leaf();
        double d = now_ns() - t0;
        if (d < best)
            best = d;
    }
    printf("%.3f\n", best / CALLS);
    return 0;
}
