/*
 * Threads that take a storm of signals from a moment that varies from one
 * thread to the next, so an instrumented handler runs, now and then, while
 * the tracer is still setting the new thread up.  Prints what it made.
 */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static atomic_int started, handled;
static atomic_int calls;

__attribute__((noinline)) void on_signal(int sig)
{
    (void)sig;
    atomic_fetch_add(&handled, 1);
}

__attribute__((noinline)) void work(void)
{
    atomic_fetch_add(&calls, 1);
}

__attribute__((noinline)) void *thread_main(void *arg)
{
    (void)arg;
    work();
    atomic_store(&started, 1);
    return NULL;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 200;
    struct sigaction sa = {0};
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGUSR2, &sa, NULL);
    for (int i = 0; i < n; i++) {
        pthread_t t;
        atomic_store(&started, 0);
        if (pthread_create(&t, NULL, thread_main, NULL) != 0)
            abort();
        /* From a moment that varies from thread to thread, while the
         * tracer may still be setting the new thread up, until its first
         * function has run. */
        for (volatile int spin = (i * 7919) % 20000; spin > 0; spin--)
            ;
        while (!atomic_load(&started))
            if (pthread_kill(t, SIGUSR2) != 0)
                break;
        pthread_join(t, NULL);
    }
    printf("threads=%d work=%d handled=%d\n", n, atomic_load(&calls),
           atomic_load(&handled));
    return 0;
}
