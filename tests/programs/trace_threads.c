/* Four threads; thread k (1..4) calls work() 100*k times.  main calls
 * spawn() once.  Prints the total and exits 0. */
#include <pthread.h>
#include <stdio.h>

static long sink;  /* four threads add to it: atomically */

__attribute__((noinline)) static void work(long i)
{
    __atomic_fetch_add(&sink, i, __ATOMIC_RELAXED);
}

static void *body(void *arg)
{
    long k = (long)arg;
    for (long i = 0; i < 100 * k; i++)
        work(i);
    return NULL;
}

__attribute__((noinline)) static void spawn(void)
{
    pthread_t th[4];
    for (long k = 1; k <= 4; k++)
        pthread_create(&th[k - 1], NULL, body, (void *)k);
    for (int k = 0; k < 4; k++)
        pthread_join(th[k], NULL);
}

int main(void)
{
    spawn();
    printf("sink=%ld\n", sink);
    return 0;
}
