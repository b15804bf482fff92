/*
 * Two threads burning CPU in different functions, for the sampled views
 * per thread: "burn-a" spins in burn_a only, "burn-b" in burn_b only,
 * each for a fixed count of iterations (not a time), while main waits.
 * Each prints "NAME TID".  Built without instrumentation: sampling needs
 * none.  Optional argument: the iterations, in millions (default 200).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static volatile unsigned long sink;
static unsigned long iterations;

__attribute__((noinline)) void burn_a(unsigned long n)
{
    unsigned long x = sink;
    for (unsigned long i = 0; i < n; i++)
        x = x * 6364136223846793005ul + 1442695040888963407ul;
    sink = x;
}

__attribute__((noinline)) void burn_b(unsigned long n)
{
    unsigned long x = sink;
    for (unsigned long i = 0; i < n; i++)
        x = x * 2862933555777941757ul + 3037000493ul;
    sink = x;
}

static void *run_a(void *p)
{
    printf("burn-a %d\n", (int)gettid());
    fflush(stdout);
    burn_a(iterations);
    return p;
}

static void *run_b(void *p)
{
    printf("burn-b %d\n", (int)gettid());
    fflush(stdout);
    burn_b(iterations);
    return p;
}

int main(int argc, char **argv)
{
    iterations = (argc > 1 ? strtoul(argv[1], NULL, 10) : 200) * 1000000ul;
    pthread_t a, b;
    pthread_create(&a, NULL, run_a, NULL);
    pthread_join(a, NULL);
    pthread_create(&b, NULL, run_b, NULL);
    pthread_join(b, NULL);
    return 0;
}
