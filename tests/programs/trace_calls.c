/* Known call counts for the tracer's tests: leaf 1000 + 2 x 100 = 1200,
 * middle 100, rec 11 (rec(10) down to rec(0)), run 1, main 1.
 * Prints a checksum and exits with status 7. */
#include <stdio.h>

#include "calltrace.h"

static volatile int sink;

__attribute__((noinline)) static int leaf(int i)
{
    sink += i;
    return i & 3;
}

__attribute__((noinline)) static int middle(int i)
{
    return leaf(i) + leaf(i + 1);
}

__attribute__((noinline)) static int rec(int n)
{
    return n == 0 ? 0 : 1 + rec(n - 1);
}

__attribute__((noinline)) static long run(void)
{
    long sum = 0;
    for (int i = 0; i < 1000; i++)
        sum += leaf(i);
    calltrace_event("after leaves %d", 1000);
    for (int i = 0; i < 100; i++)
        sum += middle(i);
    calltrace_event("after middles");
    sum += rec(10);
    calltrace_event("after rec %s", "done");
    return sum;
}

int main(void)
{
    printf("sum=%ld\n", run());
    return 7;
}
