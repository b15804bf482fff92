/* A process that gives up its user part-way (tests/e2e/trace_lost_failure.sh,
 * run as root): the trace file, owned by root, was opened by the file
 * keeper before, so the trace goes on.  1.1 M calls of f and main's, a
 * call and a return each; library calls are not recorded. */
#include <stdio.h>
#include <unistd.h>

static volatile long sink;
__attribute__((noinline)) void f(long i) { sink += i; }

int main(void)
{
    for (long i = 0; i < 100000; i++)
        f(i);
    if (setgid(65534) != 0 || setuid(65534) != 0)
        return 2;
    for (long i = 0; i < 1000000; i++)
        f(i);
    puts("done");
    return 0;
}
