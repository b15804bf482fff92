/* Off-CPU time known by construction (tests/e2e/cpu_offcpu.sh):
 *   sleep  a thread sleeps 60 ms inside sleeper(): off-CPU >= 60 ms
 *   join   main waits in waiter() (pthread_join) while spin() turns 50 ms
 *   busy   busy() turns 50 ms of its thread's CPU time: on-CPU ~ wall */
#define _GNU_SOURCE
#include <pthread.h>
#include <string.h>
#include <time.h>

static double thread_cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Spins until the thread has used ms of CPU time. */
void spin(double ms)
{
    double end = thread_cpu_ms() + ms;
    while (thread_cpu_ms() < end)
        ;
}

void sleeper(void)
{
    struct timespec ts = {0, 60 * 1000 * 1000};
    nanosleep(&ts, NULL);
}

static void *sleep_body(void *arg)
{
    (void)arg;
    sleeper();
    return NULL;
}

static void *spin_body(void *arg)
{
    (void)arg;
    spin(50);
    return NULL;
}

void waiter(pthread_t t)
{
    pthread_join(t, NULL);
}

void busy(void)
{
    spin(50);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "sleep";
    pthread_t t;
    if (strcmp(mode, "sleep") == 0) {
        pthread_create(&t, NULL, sleep_body, NULL);
        pthread_join(t, NULL);
    } else if (strcmp(mode, "join") == 0) {
        pthread_create(&t, NULL, spin_body, NULL);
        waiter(t);
    } else {
        busy();
    }
    return 0;
}
