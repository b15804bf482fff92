/*
 * A deterministic call pattern for the report tests: direct recursion
 * (fact), mutual recursion forming a cycle (is_even/is_odd), a leaf called
 * from several callers (scale) and user events.  Built both with -finstrument-functions and with -pg, so
 * the arc counts of the two tools can be compared.
 */
#include <stdio.h>

#include "calltrace.h"

#define NOINLINE __attribute__((noinline))

NOINLINE static int scale(int x) { return x * 3 + 1; }

NOINLINE static long fact(int n) { return n <= 1 ? 1 : n * fact(n - 1); }

NOINLINE static int is_odd(int n);
NOINLINE static int is_even(int n) { return n == 0 ? scale(1) : is_odd(n - 1); }
NOINLINE static int is_odd(int n) { return n == 0 ? scale(0) : is_even(n - 1); }

NOINLINE static int work(int i) { return scale(i) + (int)fact(i % 7); }

int main(void)
{
    long sum = 0;
    calltrace_event("start");
    for (int i = 0; i < 200; i++) {
        sum += work(i);
        sum += is_even(i % 9);
    }
    calltrace_event("middle: %ld", sum);
    for (int i = 0; i < 50; i++)
        sum += scale(i);
    printf("%ld\n", sum);
    calltrace_event("done");
    return 0;
}
