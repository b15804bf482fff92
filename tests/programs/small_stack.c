/*
 * A thread started with the smallest stack glibc allows (PTHREAD_STACK_MIN,
 * 16 KiB) does what sends the tracer down its deepest paths
 * (tests/e2e/trace_small_stack.sh): block switches, a dlopen by bare name
 * through its RUNPATH, a dlopen of an instrumented plugin (library-call
 * patching, MAPS block, filter scan), a library call, and the removal of
 * the trace file, which makes the tracer speak.  Untraced it runs; traced
 * it must too.
 */
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static const char *plugin, *trace;
static volatile long sink;
__attribute__((noinline)) void f(long i) { sink += i; }

static void *work(void *arg)
{
    (void)arg;
    for (long i = 0; i < 300000; i++)
        f(i);
    void *m = dlopen("libct_not_there.so", RTLD_NOW);
    if (m)
        dlclose(m);
    void *h = dlopen(plugin, RTLD_NOW);
    int (*p)(int) = h ? (int (*)(int))dlsym(h, "plugin") : NULL;
    sink += p ? p(3) : -1;
    if (trace)
        unlink(trace);
    for (long i = 0; i < 300000; i++)
        f(i);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    plugin = argv[1];
    trace = argc > 2 ? argv[2] : NULL;
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setstacksize(&a, PTHREAD_STACK_MIN);
    pthread_t t;
    if (pthread_create(&t, &a, work, NULL) != 0)
        return 3;
    pthread_join(t, NULL);
    printf("done %ld\n", sink > 0 ? 1L : 0L);
    return 0;
}
