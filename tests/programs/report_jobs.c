/* Work for calltrace-report --jobs: a long main thread and three others,
 * with recursion across block boundaries, user events and sleeps (off-CPU
 * intervals), so that decoding in pieces meets every kind of state. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "calltrace.h"

static volatile unsigned long sink;

static unsigned long leaf(unsigned long x)
{
    return x * 2654435761u >> 7;
}

static unsigned long down(unsigned depth, unsigned long x)
{
    if (!depth)
        return leaf(x);
    return down(depth - 1, x + depth) + leaf(x);
}

static void nap(void)
{
    struct timespec ts = {0, 200000};
    nanosleep(&ts, NULL);
}

static void *worker(void *arg)
{
    unsigned id = (unsigned)(size_t)arg;
    for (unsigned i = 0; i < 400 * id; i++) {
        sink += down(i % 24, i);
        if (i % 300 == 0)
            nap();
    }
    calltrace_event("worker %u done", id);
    return NULL;
}

static void outer(unsigned rounds)
{
    for (unsigned i = 0; i < rounds; i++) {
        sink += down(i % 40, i);
        if (i % 1000 == 0) {
            calltrace_event("round %u", i);
            nap();
        }
    }
}

int main(int argc, char **argv)
{
    unsigned rounds = argc > 1 ? (unsigned)atoi(argv[1]) : 6000;
    pthread_t t[3];
    for (size_t i = 0; i < 3; i++)
        pthread_create(&t[i], NULL, worker, (void *)(i + 1));
    outer(rounds);
    for (size_t i = 0; i < 3; i++)
        pthread_join(t[i], NULL);
    printf("%lu\n", sink > 0 ? 1ul : 0ul);
    return 0;
}
