/* Three named threads, run one after another, each calling its own
 * function a known number of times: alpha 2, beta 3, gamma 5.  Each prints
 * "NAME TID" so that a test knows which tid is which thread, main first
 * ("main PID").  Main calls none of them.  Arguments are only carried into the command line. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static volatile int sink;

__attribute__((noinline)) void f_alpha(void) { sink += 1; }
__attribute__((noinline)) void f_beta(void) { sink += 2; }
__attribute__((noinline)) void f_gamma(void) { sink += 3; }

struct job {
    const char *name;
    void (*fn)(void);
    int times;
};

static void *worker(void *p)
{
    const struct job *j = p;
    pthread_setname_np(pthread_self(), j->name);
    printf("%s %d\n", j->name, (int)gettid());
    fflush(stdout);
    for (int i = 0; i < j->times; i++)
        j->fn();
    return NULL;
}

int main(void)
{
    static const struct job jobs[] = {
        {"alpha", f_alpha, 2}, {"beta", f_beta, 3}, {"gamma", f_gamma, 5},
    };
    printf("main %d\n", (int)getpid());
    fflush(stdout);
    /* One after another: the output's order is the threads' order. */
    for (int i = 0; i < 3; i++) {
        pthread_t t;
        pthread_create(&t, NULL, worker, (void *)&jobs[i]);
        pthread_join(t, NULL);
    }
    return 0;
}
