/* Threads that each hold a block of the flight ring while they wait, and
 * a main thread that calls on: `threads` idle threads call leaf 100 times
 * and wait; main calls leaf n times, then tail 300 times, and lets them
 * go.  The newest calls are main's 300 tails (flight_threads.sh). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static volatile long sink;
static pthread_barrier_t started, stop;

__attribute__((noinline)) void leaf(long i)
{
    __atomic_fetch_add(&sink, i, __ATOMIC_RELAXED);
}

__attribute__((noinline)) void tail(long i)
{
    __atomic_fetch_sub(&sink, i, __ATOMIC_RELAXED);
}

__attribute__((noinline)) void work(long n)
{
    for (long i = 0; i < n; i++)
        leaf(i);
}

static void *idle(void *arg)
{
    (void)arg;
    work(100);
    pthread_barrier_wait(&started);
    pthread_barrier_wait(&stop);
    return NULL;
}

int main(int argc, char **argv)
{
    int threads = argc > 1 ? atoi(argv[1]) : 4;
    long n = argc > 2 ? atol(argv[2]) : 300000;
    pthread_t t[64];
    if (threads < 0 || threads > 64)
        return 2;
    pthread_barrier_init(&started, NULL, (unsigned)threads + 1);
    pthread_barrier_init(&stop, NULL, (unsigned)threads + 1);
    for (int i = 0; i < threads; i++)
        pthread_create(&t[i], NULL, idle, NULL);
    pthread_barrier_wait(&started);
    work(n);
    for (long i = 0; i < 300; i++)
        tail(i);
    pthread_barrier_wait(&stop);
    for (int i = 0; i < threads; i++)
        pthread_join(t[i], NULL);
    printf("%ld\n", sink);
    return 0;
}
