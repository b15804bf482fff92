/* Off-CPU time inside a pause of tracing, known by construction
 * (tests/e2e/cpu_offcpu_paused.sh).  main() calls work() with tracing on;
 * work() pauses tracing, calls hidden() (instrumented, so not recorded),
 * which sleeps 60 ms and spins 20 ms of CPU time, resumes tracing, then
 * calls shown(), which sleeps 40 ms and spins 20 ms.  How tracing is
 * paused is the first argument:
 *   region   CALLTRACE_OFF() / CALLTRACE_ON() (this thread)
 *   process  calltrace_disable() / calltrace_enable()
 *   signal   raise(SIGUSR2) twice (run with CALLTRACE_SIGNAL=USR2)
 * So work() lasts >= 140 ms of which >= 100 ms asleep, shown() >= 60 ms
 * of which >= 40 ms asleep, and hidden()'s 80 ms are work()'s own. */
#define _GNU_SOURCE
#include <signal.h>
#include <string.h>
#include <time.h>

#include "calltrace.h"

__attribute__((no_instrument_function)) static double thread_cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

__attribute__((noinline)) void nap(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000 * 1000};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

/* Spins until the thread has used ms of CPU time. */
__attribute__((noinline)) void spin(double ms)
{
    double end = thread_cpu_ms() + ms;
    while (thread_cpu_ms() < end)
        ;
}

__attribute__((noinline)) void hidden(void)
{
    nap(60);
    spin(20);
}

__attribute__((noinline)) void shown(void)
{
    nap(40);
    spin(20);
}

static const char *mode = "region";

static void pause_tracing(int off)
{
    if (strcmp(mode, "process") == 0) {
        if (off)
            calltrace_disable();
        else
            calltrace_enable();
    } else if (strcmp(mode, "signal") == 0) {
        raise(SIGUSR2);
    } else if (off) {
        CALLTRACE_OFF();
    } else {
        CALLTRACE_ON();
    }
}

__attribute__((noinline)) void work(void)
{
    pause_tracing(1);
    hidden();
    pause_tracing(0);
    shown();
}

int main(int argc, char **argv)
{
    if (argc > 1)
        mode = argv[1];
    work();
    return 0;
}
