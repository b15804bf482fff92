/*
 * Library calls made while tracing is off (CALLTRACE_START_PAUSED=1, then
 * calltrace_enable/disable) skip the recording altogether; those made
 * while it is on are recorded, however their slots were first bound.
 *
 *   paused:  getpid 5, getppid 4 (its first calls: lazy binding), inside
 *            work(): getuid 3
 *   on:      getpid 7, getppid 6, getuid 2, getgid 1 (first call ever)
 *   off:     getpid 9, inside work(): getuid 8
 *   on:      getpid 11, inside work(): getuid 10
 * So recorded: getpid@plt 18, getppid@plt 6, getuid@plt 12, getgid@plt 1;
 * work 1 (of 3).
 */
#include <stdio.h>
#include <unistd.h>
#include "calltrace.h"

static volatile long sink;

__attribute__((noinline)) void work(int n)
{
    for (int i = 0; i < n; i++)
        sink += getuid();
}

__attribute__((noinline)) void calls(int pid, int ppid)
{
    for (int i = 0; i < pid; i++)
        sink += getpid();
    for (int i = 0; i < ppid; i++)
        sink += getppid();
}

int main(void)
{
    calls(5, 4);
    work(3);
    calltrace_enable();
    calls(7, 6);
    for (int i = 0; i < 2; i++)
        sink += getuid();
    sink += getgid();
    calltrace_disable();
    calls(9, 0);
    work(8);
    calltrace_enable();
    calls(11, 0);
    work(10);
    puts("done");
    return 0;
}
