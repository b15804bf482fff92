/*
 * The hooks' own cost, without the kernel's: a call-heavy loop timed in
 * the process, in rounds, the fastest round kept.  Run under a preload
 * (bench/hook_cost.sh) with CALLTRACE_BUFSIZE large enough for the whole
 * run, so the trace's one block is mapped and faulted in before the first
 * timed call and no page fault or block switch falls inside a round.
 *   hook_cost [CALLS_PER_ROUND] [ROUNDS]   prints ns per call
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* Two call sites and a depth that moves, as in real code. */
__attribute__((noinline)) static int leaf(int x)
{
    __asm__ volatile("" : "+r"(x));
    return x + 1;
}

__attribute__((noinline)) static int mid(int x)
{
    return leaf(x) + leaf(x + 1);
}

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 100000;
    int rounds = argc > 2 ? atoi(argv[2]) : 20;
    double best = 1e30;
    int sink = 0;
    sink += mid(0);  /* the first event: thread state, first block */
    for (int r = 0; r < rounds; r++) {
        double t0 = now_ns();
        for (long i = 0; i < n; i++)
            sink += mid((int)i);  /* 3 calls */
        double ns = (now_ns() - t0) / (3.0 * n);
        if (ns < best)
            best = ns;
    }
    printf("%.3f\n", best);
    return sink == 42;
}
