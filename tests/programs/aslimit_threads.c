/*
 * A program near its address-space limit (tests/e2e/trace_aslimit.sh):
 * THREADS threads with 256 KiB stacks each call f CALLS times, all at once;
 * then main maps 1 MiB of its own and touches it.  Prints the sum and the
 * events it made (main, worker, f and vm_peak: a call and a return each),
 * and on stderr its peak address space (VmPeak, KiB): what it needs
 * untraced.
 * Exits 3 when a thread or the mapping cannot be had.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static long calls;

__attribute__((noinline)) static long f(long x)
{
    __asm__ volatile("");
    return x * 3 + 1;
}

static void *worker(void *arg)
{
    long s = 0;
    for (long i = 0; i < calls; i++)
        s += f(i + (long)arg);
    return (void *)s;
}

static long vm_peak(void)
{
    FILE *fp = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    while (fp && fgets(line, sizeof line, fp))
        if (!strncmp(line, "VmPeak:", 7))
            kb = atol(line + 7);
    if (fp)
        fclose(fp);
    return kb;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 8;
    calls = argc > 2 ? atol(argv[2]) : 100000;
    pthread_t t[64];
    pthread_attr_t at;
    if (n < 1 || n > 64)
        return 2;
    pthread_attr_init(&at);
    pthread_attr_setstacksize(&at, 256 * 1024);
    for (int i = 0; i < n; i++) {
        int e = pthread_create(&t[i], &at, worker, (void *)(long)i);
        if (e) {
            fprintf(stderr, "pthread_create %d: %s\n", i, strerror(e));
            return 3;
        }
    }
    long sum = 0;
    for (int i = 0; i < n; i++) {
        void *r;
        pthread_join(t[i], &r);
        sum += (long)r;
    }
    size_t len = 1u << 20;
    char *m = mmap(NULL, len, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) {
        fprintf(stderr, "mmap: no memory\n");
        return 3;
    }
    memset(m, 1, len);
    printf("sum %ld\nevents=%ld\n", sum, 2 * (2 + n + n * calls));
    fprintf(stderr, "vmpeak %ld\n", vm_peak());
    return 0;
}
