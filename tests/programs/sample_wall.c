/*
 * Half asleep, half busy: under CALLTRACE_SAMPLE_CLOCK=wall the sleeping
 * function shows in the samples, on the CPU clock it does not.  With a
 * file name as argument it writes there the wall time each took, in ns:
 * on a loaded machine the burner waits for the CPU too, and its wall time,
 * not a fixed half, is what the wall clock's samples must match.
 */
#include <stdio.h>
#include <time.h>

static volatile unsigned long sink;

__attribute__((noinline)) void sleeper(void)
{
    struct timespec ts = {0, 400 * 1000 * 1000};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

__attribute__((noinline)) void burner(void)
{
    unsigned long x = sink;
    for (unsigned long i = 0; i < 300000000ul; i++)
        x = x * 6364136223846793005ul + 1442695040888963407ul;
    sink = x;
}

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
    double t0 = now_ns();
    sleeper();
    double t1 = now_ns();
    burner();
    double t2 = now_ns();
    printf("done\n");
    if (argc > 1) {
        FILE *f = fopen(argv[1], "w");
        if (!f)
            return 1;
        fprintf(f, "%.0f %.0f\n", t1 - t0, t2 - t1);
        fclose(f);
    }
    return 0;
}
