/* Call-heavy workload for bench/overhead.sh: fib(n) makes fib_calls(n)
 * instrumented calls (2 * fib(n+1) - 1), plus main. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static long fib(int n)
{
    return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 30;
    printf("fib(%d)=%ld\n", n, fib(n));
    return 0;
}
