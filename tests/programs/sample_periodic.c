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
 * instant of every round.  SYNC_US written cN (c1000): each round
 * starts at the next multiple of N us of the thread's own CPU clock, the
 * time till then spent in pad(), so that rounds are exactly N us of CPU
 * apart: a sampler with a fixed period of N us of CPU time sees the same
 * instant of every round.  THREADS (fourth, default 1): that many threads
 * run the same rounds, each for TOTAL_MS of its own CPU time.
 */
#include <pthread.h>
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

struct job {
    unsigned long n_hot, n_warm;
    double total_ms;
    long sync_ns;
    int sync_cpu;   /* sync_ns is of the thread's CPU clock */
    unsigned long rounds;
};

/* Spins until the thread's CPU clock reaches the next multiple of
 * every_ns. */
__attribute__((noinline)) void pad(long every_ns)
{
    double now = cpu_ns();
    double until = ((long long)(now / every_ns) + 1) * (double)every_ns;
    while (cpu_ns() < until)
        ;
}

/* Until the calling thread has used total_ms of CPU: rounds of hot and
 * warm, each started on the next multiple of sync_ns when given. */
static void *run_rounds(void *arg)
{
    struct job *j = arg;
    double end = cpu_ns() + j->total_ms * 1e6;
    while (cpu_ns() < end) {
        if (j->sync_ns > 0 && j->sync_cpu) {
            pad(j->sync_ns);
        } else if (j->sync_ns > 0) {
            struct timespec now;
            clock_gettime(CLOCK_MONOTONIC, &now);
            long long t = (now.tv_sec * 1000000000ll + now.tv_nsec) / j->sync_ns;
            t = (t + 1) * j->sync_ns;
            struct timespec at = {(time_t)(t / 1000000000), (long)(t % 1000000000)};
            while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL))
                ;
        }
        hot(j->n_hot);
        warm(j->n_warm);
        j->rounds++;
    }
    return NULL;
}

int main(int argc, char **argv)
{
    double round_us = argc > 1 ? atof(argv[1]) : 2000;
    double total_ms = argc > 2 ? atof(argv[2]) : 1600;
    int sync_cpu = argc > 3 && argv[3][0] == 'c';
    long sync_ns = argc > 3 ? (long)(atof(argv[3] + sync_cpu) * 1000) : 0;
    int threads = argc > 4 ? atoi(argv[4]) : 1;
    if (threads < 1 || threads > 64)
        threads = 1;
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
    struct job jobs[64];
    pthread_t tids[64];
    for (int t = 0; t < threads; t++)
        jobs[t] = (struct job){n * 7 / 10, n - n * 7 / 10, total_ms, sync_ns,
                               sync_cpu, 0};
    for (int t = 1; t < threads; t++)
        if (pthread_create(&tids[t], NULL, run_rounds, &jobs[t]) != 0)
            threads = t; /* runs with the threads it could start */
    run_rounds(&jobs[0]);
    int ok = jobs[0].rounds > 0;
    for (int t = 1; t < threads; t++) {
        pthread_join(tids[t], NULL);
        ok = ok && jobs[t].rounds > 0;
    }
    printf("done %s\n", ok ? "ok" : "none");
    return 0;
}
