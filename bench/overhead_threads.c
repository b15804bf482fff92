/* Thread start cost for bench/overhead.sh: n threads, one after another,
 * each making 100 instrumented calls (plus main and the thread body). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static int down(int n)
{
    return n < 2 ? n : down(n - 1) + 1;
}

static void *body(void *arg)
{
    (void)arg;
    return (void *)(long)down(100);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 200;
    long sum = 0;
    for (int i = 0; i < n; i++) {
        pthread_t t;
        void *r;
        if (pthread_create(&t, NULL, body, NULL) != 0)
            return 1;
        pthread_join(t, &r);
        sum += (long)r;
    }
    printf("%ld\n", sum);
    return 0;
}
