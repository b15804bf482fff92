/*
 * What sampling costs the sampled program, seen from inside it.  The
 * thread goes DEPTH calls deep (so stack copies and walks are as deep as a
 * real program's) and spins for SECONDS reading the TSC: any step between
 * two reads longer than 150 ns is time the thread did not run its own
 * code (an interrupt, a sample's kernel work, a signal handler, another
 * thread or process on its CPU).  A run under a sampler minus a plain run
 * is what sampling took from the thread, whatever the machine's speed
 * does meanwhile (CPU time per unit of work moved by 10 % between runs on
 * the virtual machine of BENCHMARKS.md).  At the end, the CPU time of the
 * process's other threads (a sampler's own), from /proc/self/task, and
 * the whole process's.
 * Prints: spin_ns gap_ns gaps other_threads_ns process_cpu_ns
 *   sample_cost_prog [SECONDS [DEPTH]]   (2 s, 40 deep)
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

static uint64_t gap_ticks, gaps;

__attribute__((noinline)) static void spin(uint64_t ticks)
{
    uint64_t prev = __rdtsc(), end = prev + ticks;
    while (prev < end) {
        uint64_t now = __rdtsc();
        if (now - prev > 300) {   /* about 150 ns at 2 GHz */
            gap_ticks += now - prev;
            gaps++;
        }
        prev = now;
    }
}

__attribute__((noinline)) static void deep(int n, uint64_t ticks)
{
    if (n > 0)
        deep(n - 1, ticks);
    else
        spin(ticks);
    __asm__ volatile("" ::: "memory");   /* not a tail call */
}

static uint64_t mono_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* The run time in ns of every thread but the caller, from schedstat. */
static uint64_t others_ns(void)
{
    long me = syscall(SYS_gettid);
    uint64_t sum = 0;
    DIR *d = opendir("/proc/self/task");
    struct dirent *e;
    while (d && (e = readdir(d))) {
        long tid = atol(e->d_name);
        if (tid <= 0 || tid == me)
            continue;
        char path[64];
        snprintf(path, sizeof path, "/proc/self/task/%ld/schedstat", tid);
        FILE *f = fopen(path, "r");
        unsigned long long run = 0;
        if (f && fscanf(f, "%llu", &run) == 1)
            sum += run;
        if (f)
            fclose(f);
    }
    if (d)
        closedir(d);
    return sum;
}

int main(int argc, char **argv)
{
    double secs = argc > 1 ? atof(argv[1]) : 2;
    int depth = argc > 2 ? atoi(argv[2]) : 40;
    /* the TSC's rate, over 100 ms */
    uint64_t t0 = mono_ns(), c0 = __rdtsc();
    struct timespec nap = {0, 100000000};
    nanosleep(&nap, NULL);
    double per_ns = (double)(__rdtsc() - c0) / (double)(mono_ns() - t0);
    uint64_t ticks = (uint64_t)(secs * 1e9 * per_ns);
    deep(depth, ticks);
    uint64_t others = others_ns();
    struct timespec cpu;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu);
    printf("%.0f %.0f %llu %llu %llu\n", (double)ticks / per_ns,
           (double)gap_ticks / per_ns, (unsigned long long)gaps,
           (unsigned long long)others,
           (unsigned long long)cpu.tv_sec * 1000000000ull + (unsigned long long)cpu.tv_nsec);
    return 0;
}
