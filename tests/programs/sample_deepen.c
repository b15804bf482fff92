/*
 * A thread whose stack deepens: 400 ms of CPU in a loop a few frames deep
 * (the sampler gives its samples a smaller stack copy, docs/sampling.md
 * "Copy size"), then 400 ms at the bottom of a recursion DEPTH frames
 * deep (80 by default, about 4 KiB: more than the smaller copy, less than
 * the full 8 KiB).  Every sample of the deep part must still reach main
 * once the full copy is back, a drain later.  Built without
 * instrumentation.
 */
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

static long cpu_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

__attribute__((noinline)) static void shallow_burn(long ms)
{
    long end = cpu_ms() + ms;
    while (cpu_ms() < end)
        for (int i = 0; i < 20000; i++)
            sink += (unsigned long)i;
}

__attribute__((noinline)) static void deep_burn(long ms)
{
    long end = cpu_ms() + ms;
    while (cpu_ms() < end)
        for (int i = 0; i < 20000; i++)
            sink += (unsigned long)i * 3;
}

/* A frame of about 48 bytes that is not a tail call. */
__attribute__((noinline)) static void descend(int n, long ms)
{
    volatile char pad[16];
    pad[0] = (char)n;
    if (n > 0)
        descend(n - 1, ms);
    else
        deep_burn(ms);
    sink += (unsigned long)pad[0];
}

int main(int argc, char **argv)
{
    int depth = argc > 1 ? atoi(argv[1]) : 80;
    shallow_burn(400);
    descend(depth, 400);
    return 0;
}
