/* Threads one after another, each started once the previous one is gone;
 * thread k (1..N, N the argument, default 3) calls work() 100*k times.
 * Where /proc/sys/kernel/ns_last_pid may be written (the program is the
 * first of a pid namespace of its own, as under `unshare -Urpf
 * --mount-proc`), each new thread is given the tid of the one before, as
 * the kernel does by itself once pids wrap.  Prints the threads' tids. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static long sink;
static pid_t tid_seen;

__attribute__((noinline)) static void work(long i)
{
    sink += i;
}

static void *body(void *arg)
{
    long k = (long)arg;
    tid_seen = gettid();
    for (long i = 0; i < 100 * k; i++)
        work(i);
    return NULL;
}

/* Until the kernel has freed tid, then asks for it again. */
__attribute__((no_instrument_function)) static void want_tid(pid_t tid)
{
    char path[64];
    struct stat st;
    snprintf(path, sizeof path, "/proc/self/task/%d", (int)tid);
    for (int i = 0; i < 2000 && stat(path, &st) == 0; i++)
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    FILE *f = fopen("/proc/sys/kernel/ns_last_pid", "w");
    if (!f)
        return;
    fprintf(f, "%d", (int)tid - 1);
    fclose(f);
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 3;
    printf("tids");
    for (long k = 1; k <= n; k++) {
        if (k > 1)
            want_tid(tid_seen);
        pthread_t th;
        if (pthread_create(&th, NULL, body, (void *)k) != 0)
            return 1;
        pthread_join(th, NULL);
        printf(" %d", (int)tid_seen);
    }
    printf("\nsink=%ld\n", sink);
    return 0;
}
