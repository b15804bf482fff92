/*
 * A program that uses up its descriptors (tests/e2e/trace_lost_failure.sh):
 * the tracer, whose file keeper has a table of its own, must not miss a
 * block; it makes 1 M calls of f meanwhile, gives the descriptors back,
 * waits 50 ms and makes 1 M more, and library calls.  (Before the keeper,
 * the tracer reopened its file in the program's table and the trace had a
 * gap there.)  It prints how many events it made in all:
 * main, f, and each library call (setrlimit, open, close, usleep, getppid,
 * printf), a call and a return each.
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

static volatile long sink;
__attribute__((noinline)) void f(long i) { sink += i; }

int main(void)
{
    struct rlimit rl = {64, 64};
    if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
        return 2;
    int fds[100], n = 0;
    while (n < 100 && (fds[n] = open("/dev/null", O_RDONLY)) >= 0)
        n++;
    for (long i = 0; i < 1000000; i++)
        f(i);
    for (int k = 0; k < n; k++)
        close(fds[k]);
    usleep(50000);
    for (long i = 0; i < 1000000; i++)
        f(i);
    for (int k = 0; k < 1000; k++)
        getppid();
    long calls = 1 + 2000000 + 1 + (n + 1) + n + 1 + 1000 + 1;
    printf("events=%ld\n", 2 * calls);
    return 0;
}
