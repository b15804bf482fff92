/* Two threads running the same functions: per-thread and merged reports. */
#include <pthread.h>
#include <stdio.h>

#include "calltrace.h"

#define NOINLINE __attribute__((noinline))

NOINLINE static int leaf(int x) { return x + 1; }
NOINLINE static int inner(int n) { int s = 0; for (int i = 0; i < n; i++) s += leaf(i); return s; }

NOINLINE static void *worker(void *arg)
{
    long n = (long)arg;
    calltrace_event("worker %ld", n);
    long s = 0;
    for (long i = 0; i < n; i++)
        s += inner(10);
    return (void *)s;
}

int main(void)
{
    pthread_t t;
    pthread_create(&t, NULL, worker, (void *)30L);
    void *r1 = worker((void *)20L), *r2;
    pthread_join(t, &r2);
    printf("%ld\n", (long)r1 + (long)r2);
    return 0;
}
