/*
 * A program for the ThreadSanitizer build of the tracer (trace_tsan.sh):
 * sixteen threads make instrumented calls and library calls (one calls
 * back into an instrumented comparator), short threads come and go, and
 * the process ends either after joining them all or by exit() while they
 * work.  Built with -fsanitize=thread, so TSan sees both sides.
 *
 *   tsan_threads join|exit ROUNDS
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define THREADS 16

static long rounds;
static int started;

__attribute__((noinline)) static int cmp(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

__attribute__((noinline)) static long work(long i)
{
    char buf[32];
    long v[8];
    snprintf(buf, sizeof buf, "%ld", i * 7919);
    for (int k = 0; k < 8; k++)
        v[k] = strtol(buf, NULL, 10) % (k + 3);
    qsort(v, 8, sizeof *v, cmp);
    return v[0] + v[7] + (long)strlen(buf);
}

static void *short_thread(void *arg)
{
    return (void *)work((long)arg);
}

static void *worker(void *arg)
{
    long id = (long)arg, s = 0;
    __atomic_add_fetch(&started, 1, __ATOMIC_RELEASE);
    for (long i = 0; rounds == 0 || i < rounds; i++) {
        s += work(id * 1000 + i);
        if (i % 64 == 0) {
            pthread_t t;
            if (pthread_create(&t, NULL, short_thread, (void *)i) == 0)
                pthread_join(t, NULL);
        }
    }
    return (void *)s;
}

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    int join = strcmp(argv[1], "join") == 0;
    rounds = join ? atol(argv[2]) : 0;
    pthread_t t[THREADS];
    for (long i = 0; i < THREADS; i++)
        if (pthread_create(&t[i], NULL, worker, (void *)i) != 0)
            return 3;
    if (!join) {
        while (__atomic_load_n(&started, __ATOMIC_ACQUIRE) < THREADS)
            usleep(1000);
        usleep((useconds_t)atol(argv[2]));
        printf("exit\n");
        exit(0);
    }
    long s = 0;
    for (int i = 0; i < THREADS; i++) {
        void *r;
        pthread_join(t[i], &r);
        s += (long)r;
    }
    printf("sum %ld\n", s);
    return 0;
}
