/*
 * How much of the program's stack each path of the tracer takes
 * (tests/e2e/trace_stack_use.sh): each probe fills the stack below its
 * frame with a pattern, runs the path, and prints how deep the stack was
 * written.  Run untraced and traced, the difference is the tracer's.
 *   stack_use probe       every path, one line each: NAME BYTES
 *   stack_use alt SIZE    an instrumented handler on a SIZE-byte signal
 *                         stack, 20000 times with block switches inside
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define NOI __attribute__((no_instrument_function, noinline))
#define SPAN (48 << 10)   /* the probed depth below the probe's frame */
#define GAP 128           /* the probe's own frame and memset's        */
#define PAT 0xA5

static volatile long sink;
__attribute__((noinline)) void f(long i) { sink += i; }
__attribute__((noinline)) void calls_lib(long i) { sink += (long)strlen("abc") + getpid() + i; }
static void on_usr1(int sig) { (void)sig; f(1); }
NOI static void on_usr2(int sig) { (void)sig; sink++; }

NOI static void many(void)
{
    for (long i = 0; i < 100000; i++)
        f(i);
}

NOI static void many_lib(void)
{
    for (long i = 0; i < 20000; i++)
        calls_lib(i);
}

NOI static void first(void)
{
    f(1);
}

/* CPU time for the sampler's timer to fire many times here. */
NOI static void spin(void)
{
    struct timespec a, b;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
    do {
        for (int i = 0; i < 10000; i++)
            sink++;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
    } while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < 200000000L);
}

NOI static void raise_usr2(void)
{
    raise(SIGUSR2);
}

NOI static size_t probe(void (*path)(void))
{
    unsigned char *top = (unsigned char *)__builtin_frame_address(0) - GAP;
    unsigned char *lo = top - SPAN;
    memset(lo, PAT, SPAN);
    path();
    size_t i = 0;
    while (i < SPAN && lo[i] == PAT)
        i++;
    return SPAN - i;
}

static const char *thread_path;

NOI static void *thread_main(void *arg)
{
    (void)arg;
    void (*p)(void) = strcmp(thread_path, "first") == 0 ? first : many;
    printf("%s %zu\n", thread_path, probe(p));
    return NULL;
}

NOI static void in_thread(const char *name)
{
    pthread_t t;
    thread_path = name;
    pthread_create(&t, NULL, thread_main, NULL);
    pthread_join(t, NULL);
}

/* An instrumented handler on a signal stack of size bytes, with the
 * program's own calls (and the tracer's block switches) around it. */
NOI static size_t on_altstack(size_t size, long rounds)
{
    unsigned char *alt = mmap(NULL, size + 4096, PROT_READ | PROT_WRITE,
                              MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    mprotect(alt, 4096, PROT_NONE);  /* an overflow faults */
    unsigned char *lo = alt + 4096;
    memset(lo, PAT, size);
    stack_t ss = {.ss_sp = lo, .ss_size = size, .ss_flags = 0};
    sigaltstack(&ss, NULL);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr1;
    sa.sa_flags = SA_ONSTACK;
    sigaction(SIGUSR1, &sa, NULL);
    for (long i = 0; i < rounds; i++) {
        f(i);
        raise(SIGUSR1);
    }
    size_t i = 0;
    while (i < size && lo[i] == PAT)
        i++;
    return size - i;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc > 2 && strcmp(argv[1], "alt") == 0) {
        printf("alt %zu\n", on_altstack((size_t)atol(argv[2]), 20000));
        return 0;
    }
    in_thread("first");
    in_thread("switch");
    printf("libcall %zu\n", probe(many_lib));
    printf("sample %zu\n", probe(spin));
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr2;
    sigaction(SIGUSR2, &sa, NULL);
    printf("sigframe %zu\n", probe(raise_usr2));
    printf("handler %zu\n", on_altstack(64 << 10, 20000));
    return 0;
}
