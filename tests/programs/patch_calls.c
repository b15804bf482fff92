/* Calls known by construction, for the patchable-entry mode
 * (tests/e2e/patch_entries.sh; built with `calltrace cflags --patchable`):
 *   mid x10 (from main) + x8 (two threads, 4 each), leaf x3 per mid
 *   fp x1 (a double argument and result through the trampolines)
 *   jumper x5, each calls leaf and longjmps back to main past itself
 *   handler x1 (a signal handler) calls leaf
 *   worker x2 (the threads' start functions)
 *   stackargs x2: eight integer arguments (two on the stack) and a struct
 *   passed and returned in memory, through the trampolines
 * leaf: 54 + 1 + 5 + 1 = 61.  Prints what it computed, the same traced
 * or not.
 * With the argument "storm": 100000 calls of mid(3) while a profiling
 * timer's handler (every 50 us of CPU time) calls leaf, so handlers
 * interrupt the trampolines anywhere: leaf = 3 * mid + handler.
 * With "threads N": N threads one after another, each calling mid(3);
 * prints how much the address space (VmSize) grew from the end of the
 * 100th to the end of the last, in KiB: a tracer that kept anything per
 * ended thread shows it there.
 * With "deep N": down() recursing N deep; prints N. */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

static jmp_buf jb;
static volatile int sink;

__attribute__((noinline)) void leaf(void) { sink++; }

__attribute__((noinline)) int mid(int n)
{
    for (int i = 0; i < n; i++)
        leaf();
    return n;
}

__attribute__((noinline)) double fp(double x)
{
    leaf();
    return x * 2.5;
}

__attribute__((noinline)) void jumper(void)
{
    leaf();
    longjmp(jb, 1);
}

__attribute__((noinline)) void handler(int s)
{
    (void)s;
    leaf();
}

__attribute__((noinline)) void *worker(void *arg)
{
    long t = 0;
    for (int i = 0; i < 4; i++)
        t += mid(3);
    return (void *)(t + (long)arg);
}

struct big {
    long v[6];
};

__attribute__((noinline)) struct big stackargs(long a, long b, long c, long d,
                                               long e, long f, long g, long h,
                                               struct big in)
{
    struct big out;
    for (int i = 0; i < 6; i++)
        out.v[i] = in.v[i] * (a + b + c + d + e + f + g + h) + i;
    return out;
}

__attribute__((noinline)) int down(int n)
{
    return n > 1 ? down(n - 1) + 1 + (sink & 0) : 1;
}

static int storm(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = handler;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGPROF, &sa, NULL);
    struct itimerval it = {{0, 50}, {0, 50}};
    setitimer(ITIMER_PROF, &it, NULL);
    long t = 0;
    for (int i = 0; i < 100000; i++)
        t += mid(3);
    struct itimerval off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_PROF, &off, NULL);
    printf("%ld\n", t);
    return 0;
}

static long vm_kib(void)
{
    char line[256];
    long kib = -1;
    FILE *f = fopen("/proc/self/status", "r");
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmSize: %ld", &kib) == 1)
            break;
    if (f)
        fclose(f);
    return kib;
}

static int threads(int n)
{
    long at100 = 0;
    for (long i = 0; i < n; i++) {
        pthread_t th;
        void *r;
        if (pthread_create(&th, NULL, worker, (void *)(i & 1)) != 0)
            return 1;
        pthread_join(th, &r);
        if (i == 99)
            at100 = vm_kib();
    }
    printf("%ld\n", vm_kib() - at100);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "storm"))
        return storm();
    if (argc > 2 && !strcmp(argv[1], "threads"))
        return threads(atoi(argv[2]));
    if (argc > 2 && !strcmp(argv[1], "deep"))
        return printf("%d\n", down(atoi(argv[2]))) < 0;
    int t = 0;
    for (int i = 0; i < 10; i++)
        t += mid(3);
    double d = fp(2.0);
    for (int i = 0; i < 5; i++)
        if (!setjmp(jb))
            jumper();
    signal(SIGUSR1, handler);
    raise(SIGUSR1);
    pthread_t th[2];
    void *r[2];
    for (long i = 0; i < 2; i++)
        pthread_create(&th[i], NULL, worker, (void *)i);
    for (int i = 0; i < 2; i++)
        pthread_join(th[i], &r[i]);
    struct big in = {{1, 2, 3, 4, 5, 6}}, out = in;
    for (long i = 1; i <= 2; i++)
        out = stackargs(i, 2, 3, 4, 5, 6, 7, 8 * i, out);
    printf("%d %.1f %ld %ld", t, d, (long)r[0], (long)r[1]);
    for (int i = 0; i < 6; i++)
        printf(" %ld", out.v[i]);
    printf("\n");
    return 0;
}
