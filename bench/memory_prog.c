/* The process's size (VmSize, what RLIMIT_AS limits) and resident memory
 * at start and with N threads that have each made a call, for
 * bench/memory.sh: memory_prog N.  Prints "start KB KB" and "threads KB KB". */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_barrier_t ready, done;

__attribute__((noinline)) static long f(long x)
{
    __asm__ volatile("");
    return x * 3 + 1;
}

static void *worker(void *arg)
{
    f((long)arg);
    pthread_barrier_wait(&ready);
    pthread_barrier_wait(&done);
    return NULL;
}

static void show(const char *tag)
{
    FILE *fp = fopen("/proc/self/status", "r");
    char line[256];
    long size = -1, rss = -1;
    while (fp && fgets(line, sizeof line, fp)) {
        if (!strncmp(line, "VmSize:", 7))
            size = atol(line + 7);
        if (!strncmp(line, "VmRSS:", 6))
            rss = atol(line + 6);
    }
    if (fp)
        fclose(fp);
    printf("%s %ld %ld\n", tag, size, rss);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 16;
    pthread_t t[256];
    pthread_attr_t at;
    if (n < 0 || n > 256)
        return 2;
    f(0);
    pthread_barrier_init(&ready, NULL, (unsigned)n + 1);
    pthread_barrier_init(&done, NULL, (unsigned)n + 1);
    pthread_attr_init(&at);
    pthread_attr_setstacksize(&at, 256 * 1024);
    show("start");
    for (int i = 0; i < n; i++)
        if (pthread_create(&t[i], &at, worker, (void *)(long)i))
            return 3;
    pthread_barrier_wait(&ready);
    show("threads");
    pthread_barrier_wait(&done);
    for (int i = 0; i < n; i++)
        pthread_join(t[i], NULL);
    return 0;
}
