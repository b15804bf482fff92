/* A thread that calls pthread_exit from leave(), under in_exit()'s
 * pthread_cleanup_push handler: glibc unwinds to the handler's buffer and
 * runs it there, in in_exit (tests/e2e/libcalls_cancel.sh).  Output: one
 * line, the same with and without the tracer. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static volatile int cleaned;

static void cleanup(void *arg)
{
    (void)arg;
    cleaned++;
}

__attribute__((noinline)) static void leave(void)
{
    pthread_exit(NULL);
}

static void *in_exit(void *arg)
{
    pthread_cleanup_push(cleanup, arg);
    if (getpid() > 0)
        leave();
    pthread_cleanup_pop(0);
    return arg;
}

int main(void)
{
    pthread_t th;
    void *ret = &th;
    pthread_create(&th, NULL, in_exit, &th);
    pthread_join(th, &ret);
    printf("exited=%d cleaned=%d\n", ret == NULL, cleaned);
    return 0;
}
