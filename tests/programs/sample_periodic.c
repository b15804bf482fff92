/*
 * A periodic program with a known profile: rounds of ROUND_US of CPU time,
 * 70% of each in hot() and 30% in warm(), the same loop in both, so the
 * split is set by iteration counts and holds whatever the machine's speed
 * or load.  The round's length is calibrated on the thread's CPU clock at
 * start (not asserted), and the program runs until it has used TOTAL_MS
 * of CPU time, so the number of samples does not depend on the load.
 * Arguments: ROUND_US (default 2000), TOTAL_MS (default 1600), and
 * SYNC_US: when given, each round starts at the next multiple of SYNC_US
 * of CLOCK_MONOTONIC, so the rounds keep a fixed phase to the kernel's
 * scheduler tick (4 ms on Debian's 250 Hz kernels), where a timer on the
 * thread's CPU clock fires: a sampler bound to the tick sees the same
 * instant of every round.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

#define SPIN(n)                                                           \
    do {                                                                  \
        unsigned long x = sink;                                           \
        for (unsigned long i = 0; i < (n); i++)                           \
            x = x * 6364136223846793005ul + 1442695040888963407ul;        \
        sink = x;                                                         \
    } while (0)

__attribute__((noinline)) void hot(unsigned long n) { SPIN(n); }
__attribute__((noinline)) void warm(unsigned long n) { SPIN(n); }

static double cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
    double round_us = argc > 1 ? atof(argv[1]) : 2000;
    double total_ms = argc > 2 ? atof(argv[2]) : 1600;
    long sync_ns = argc > 3 ? (long)(atof(argv[3]) * 1000) : 0;
    /* Iterations per microsecond of CPU, the fastest of a few tries. */
    double best = 0;
    for (int k = 0; k < 5; k++) {
        double t0 = cpu_ns();
        SPIN(1000000ul);
        double rate = 1e6 / ((cpu_ns() - t0) / 1e3);
        if (rate > best)
            best = rate;
    }
    unsigned long n = (unsigned long)(best * round_us);
    unsigned long n_hot = n * 7 / 10, n_warm = n - n_hot;
    double end = cpu_ns() + total_ms * 1e6;
    unsigned long rounds = 0;
    while (cpu_ns() < end) {
        if (sync_ns > 0) {
            struct timespec now;
            clock_gettime(CLOCK_MONOTONIC, &now);
            long long t = (now.tv_sec * 1000000000ll + now.tv_nsec) / sync_ns;
            t = (t + 1) * sync_ns;
            struct timespec at = {(time_t)(t / 1000000000), (long)(t % 1000000000)};
            while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL))
                ;
        }
        hot(n_hot);
        warm(n_warm);
        rounds++;
    }
    printf("done %s\n", rounds ? "ok" : "none");
    return 0;
}
