/* Calls known by construction, for the patchable-entry mode
 * (tests/e2e/patch_entries.sh; built with `calltrace cflags --patchable`):
 *   mid x10 (from main) + x8 (two threads, 4 each), leaf x3 per mid
 *   fp x1 (a double argument and result through the trampolines)
 *   jumper x5, each calls leaf and longjmps back to main past itself
 *   handler x1 (a signal handler) calls leaf
 *   worker x2 (the threads' start functions)
 * leaf: 54 + 1 + 5 + 1 = 61.  Prints what it computed, the same traced
 * or not.
 * With the argument "storm": 100000 calls of mid(3) while a profiling
 * timer's handler (every 50 us of CPU time) calls leaf, so handlers
 * interrupt the trampolines anywhere: leaf = 3 * mid + handler. */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
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

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "storm"))
        return storm();
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
    printf("%d %.1f %ld %ld\n", t, d, (long)r[0], (long)r[1]);
    return 0;
}
