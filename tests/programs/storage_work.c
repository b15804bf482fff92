/*
 * Threads that make calls while the trace's storage goes away
 * (tests/e2e/trace_storage.sh).  storage_work THREADS CALLS [MARK]: each
 * thread calls f CALLS times; with MARK, the first thread creates the file
 * MARK halfway and waits (up to 20 s) until it is removed, so the test can
 * act in the middle of the run while the other threads go on.  Prints the
 * sum of f's results and how many events (calls and returns of main, work
 * and f) it made.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static long calls;
static const char *mark;

__attribute__((noinline)) long f(long x) { __asm__ volatile(""); return x * 3 + 1; }

static void wait_removed(void)
{
    int fd = open(mark, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd >= 0)
        close(fd);
    for (int i = 0; i < 20000 && access(mark, F_OK) == 0; i++)
        usleep(1000);
}

static void *work(void *arg)
{
    long s = 0;
    for (long k = 0; k < calls; k++) {
        s += f(k);
        if (mark && arg == NULL && k == calls / 2)
            wait_removed();
    }
    return (void *)s;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    int threads = atoi(argv[1]);
    calls = atol(argv[2]);
    mark = argc > 3 ? argv[3] : NULL;
    if (threads < 1 || threads > 64)
        return 2;
    pthread_t t[64];
    for (long i = 0; i < threads; i++)
        pthread_create(&t[i], NULL, work, (void *)i);
    long sum = 0;
    for (int i = 0; i < threads; i++) {
        void *r;
        pthread_join(t[i], &r);
        sum += (long)r;
    }
    long events = 2 * (1 + threads + (long)threads * calls);
    printf("sum %ld\nevents=%ld\n", sum, events);
    return 0;
}
