/* What one change of a sampled thread's period costs the sampler's
 * thread (preload/sampling/sample_perf.c, "Jitter"): a task-clock event
 * on a spinning thread, its period changed by PERF_EVENT_IOC_PERIOD 2000
 * times with a 200 us nap between, against the same loop of naps alone,
 * in the calling thread's CPU time; three rounds.
 *   gcc -O2 -o period_change_cost bench/period_change_cost.c -lpthread && ./period_change_cost */
#define _GNU_SOURCE
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

enum { CHANGES = 2000, NAP_US = 200 };

static volatile int spinner_tid, stop;

static void *spin(void *arg)
{
    (void)arg;
    spinner_tid = (int)syscall(SYS_gettid);
    while (!stop)
        ;
    return NULL;
}

static double cpu_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

int main(void)
{
    pthread_t th;
    if (pthread_create(&th, NULL, spin, NULL) != 0)
        return 1;
    while (!spinner_tid)
        ;
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = PERF_TYPE_SOFTWARE;
    a.config = PERF_COUNT_SW_TASK_CLOCK;
    a.sample_period = 1000000;
    a.sample_type = PERF_SAMPLE_IP;
    a.exclude_kernel = 1;
    int fd = (int)syscall(SYS_perf_event_open, &a, spinner_tid, -1, -1, 0);
    if (fd < 0) {
        perror("perf_event_open");
        return 1;
    }
    printf("| round | ioctl + nap, us of CPU | nap alone | one change |\n");
    printf("| --- | --- | --- | --- |\n");
    for (int round = 1; round <= 3; round++) {
        double t0 = cpu_ns();
        for (int i = 0; i < CHANGES; i++) {
            unsigned long long p = 900000 + (unsigned long long)(i % 7) * 1000;
            ioctl(fd, PERF_EVENT_IOC_PERIOD, &p);
            usleep(NAP_US);
        }
        double with = (cpu_ns() - t0) / CHANGES / 1000;
        t0 = cpu_ns();
        for (int i = 0; i < CHANGES; i++)
            usleep(NAP_US);
        double alone = (cpu_ns() - t0) / CHANGES / 1000;
        printf("| %d | %.1f | %.1f | %.1f |\n", round, with, alone, with - alone);
    }
    stop = 1;
    pthread_join(th, NULL);
    close(fd);
    return 0;
}
