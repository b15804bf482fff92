/* Threads cancelled (deferred) while blocked in library calls, known by
 * construction (tests/e2e/libcalls_cancel.sh):
 *   in_read():  read on a pipe nobody writes to
 *   in_sleep(): nanosleep for an hour
 *   in_wait():  pthread_cond_wait on a condition nobody signals
 * Each runs under a cleanup handler (pthread_cleanup_push) that counts;
 * main cancels each thread once it is blocked, joins it (PTHREAD_CANCELED),
 * then calls after_cancel() once.  Output: one line, the same with and
 * without the tracer. */
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static int fds[2];
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never = PTHREAD_COND_INITIALIZER;
static volatile int cleaned;

static void cleanup(void *arg)
{
    (void)arg;
    __atomic_add_fetch(&cleaned, 1, __ATOMIC_SEQ_CST);
}

static void *in_read(void *arg)
{
    char c;
    pthread_cleanup_push(cleanup, arg);
    if (read(fds[0], &c, 1) >= 0)
        c = 0;
    pthread_cleanup_pop(0);
    return NULL;
}

static void *in_sleep(void *arg)
{
    struct timespec hour = {3600, 0};
    pthread_cleanup_push(cleanup, arg);
    nanosleep(&hour, NULL);
    pthread_cleanup_pop(0);
    return NULL;
}

static void unlock(void *arg)
{
    (void)arg;
    pthread_mutex_unlock(&mu);
    cleanup(NULL);
}

static void *in_wait(void *arg)
{
    pthread_mutex_lock(&mu);
    pthread_cleanup_push(unlock, arg);
    for (;;)
        pthread_cond_wait(&never, &mu);
    pthread_cleanup_pop(0);
    return NULL;
}

static int after_cancel(void)
{
    return getpid() > 0;
}

int main(void)
{
    void *(*fn[3])(void *) = {in_read, in_sleep, in_wait};
    int canceled = 0;
    if (pipe(fds) != 0)
        return 1;
    for (int i = 0; i < 3; i++) {
        pthread_t th;
        void *ret;
        pthread_create(&th, NULL, fn[i], NULL);
        usleep(100 * 1000);  /* let it block: the count does not depend on it */
        pthread_cancel(th);
        pthread_join(th, &ret);
        canceled += ret == PTHREAD_CANCELED;
    }
    printf("canceled=%d cleaned=%d after=%d\n", canceled, cleaned,
           after_cancel());
    return 0;
}
