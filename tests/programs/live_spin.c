/*
 * A program to watch while it runs (calltrace top, live reports).
 *   live_spin spin SECONDS   calls hot() (about 200 us of work) and cold()
 *                            (almost none) in turn for SECONDS, then exits:
 *                            nearly all of its time is hot's self time
 *   live_spin block N        calls step() N times, prints "ready", then
 *                            waits in wait_here() until its stdin ends
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

/* Not traced: hot() calls it all the time. */
__attribute__((no_instrument_function)) static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) void hot(void)
{
    double end = now() + 200e-6;
    while (now() < end)
        for (int i = 0; i < 100; i++)
            sink += (unsigned long)i;
}

__attribute__((noinline)) void cold(void)
{
    sink++;
}

__attribute__((noinline)) void step(void)
{
    sink += 2;
}

__attribute__((noinline)) void wait_here(void)
{
    char buf[64];
    while (read(0, buf, sizeof buf) > 0)
        ;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "spin") == 0) {
        double end = now() + atof(argv[2]);
        while (now() < end) {
            hot();
            cold();
        }
        return 0;
    }
    if (argc == 3 && strcmp(argv[1], "block") == 0) {
        long n = atol(argv[2]);
        for (long i = 0; i < n; i++)
            step();
        printf("ready\n");
        fflush(stdout);
        wait_here();
        return 0;
    }
    fprintf(stderr, "usage: live_spin spin SECONDS | block N\n");
    return 1;
}
