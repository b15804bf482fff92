/* What bench/args_site.sh traces: n calls of leaf(i), an instrumented
 * function of the program whose argument and return value a rule may
 * keep, and nothing else; unused() is there for a rule that names a
 * function never called. */
#include <stdlib.h>

volatile long sink;

__attribute__((noinline)) int leaf(int x)
{
    sink += x;
    return x + 1;
}

__attribute__((noinline)) void unused(int x) { sink -= x; }

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 2000000;
    for (long i = 0; i < n; i++)
        sink += leaf((int)i);
    if (argc > 2)
        unused(1);
    return 0;
}
