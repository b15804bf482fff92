/*
 * Half asleep, half busy: under CALLTRACE_SAMPLE_CLOCK=wall the sleeping
 * function shows in the samples, on the CPU clock it does not.
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

int main(void)
{
    sleeper();
    burner();
    printf("done\n");
    return 0;
}
