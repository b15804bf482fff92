/*
 * exit() or exec while worker threads call an instrumented function as
 * fast as they can (trace_exit_busy.sh): the workers switch blocks while
 * the exiting thread writes their last blocks.  Each worker counts the
 * calls of f that returned in a shared file, so the test can hold the
 * trace's count against it.
 *
 *   exit_busy exit|exec THREADS US COUNTS   (exec runs `exit_busy done`)
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static volatile long *counts;

__attribute__((noinline)) long f(long x)
{
    __asm__ volatile("");
    return x * 3 + 1;
}

static void *worker(void *arg)
{
    long i = (long)arg, s = 0;
    for (long k = 0;; k++) {
        s += f(k);
        __atomic_store_n(&counts[i], counts[i] + 1, __ATOMIC_RELAXED);
    }
    return (void *)s;
}

int main(int argc, char **argv)
{
    if (argc < 5)
        return argc == 2 && strcmp(argv[1], "done") == 0 ? 0 : 2;
    int n = atoi(argv[2]);
    int fd = open(argv[4], O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || n < 1 || n > 512 || ftruncate(fd, 4096) != 0)
        return 2;
    counts = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (counts == MAP_FAILED)
        return 2;
    pthread_t t;
    for (long i = 0; i < n; i++)
        if (pthread_create(&t, NULL, worker, (void *)i) != 0)
            return 3;
    /* every worker has written a block before the end comes */
    for (int i = 0; i < n; i++)
        while (__atomic_load_n(&counts[i], __ATOMIC_RELAXED) == 0)
            usleep(100);
    usleep((useconds_t)atoi(argv[3]));
    if (strcmp(argv[1], "exec") == 0) {
        char *args[] = {argv[0], "done", NULL};
        execv(argv[0], args);
        return 4;
    }
    exit(0);
}
