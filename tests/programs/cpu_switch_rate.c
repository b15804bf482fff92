/* A request loop that blocks briefly between requests, as a server does:
 * N requests, each a call or two, then a sleep of US microseconds, so the
 * thread switches out and in about 1e6/US times a second.  At the end it
 * prints its own CPU time (getrusage RUSAGE_THREAD, user + system, ns)
 * for cpu_switch_rate.sh to compare with the trace's on-CPU figure. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned sink;

__attribute__((noinline)) void parse(unsigned i) { sink += i * 7; }
__attribute__((noinline)) void handle(unsigned i) { parse(i); sink ^= i; }

__attribute__((noinline)) void serve(long n, long us)
{
    struct timespec ts = {0, us * 1000};
    for (long i = 0; i < n; i++) {
        handle((unsigned)i);
        nanosleep(&ts, NULL);
    }
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 10000;
    long us = argc > 2 ? atol(argv[2]) : 50;
    serve(n, us);
    struct rusage ru;
    getrusage(RUSAGE_THREAD, &ru);
    long long ns = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000LL +
                   (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000LL;
    struct timespec c;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c);
    printf("rusage_ns %lld\nclock_ns %lld\n", ns,
           c.tv_sec * 1000000000LL + c.tv_nsec);
    return 0;
}
