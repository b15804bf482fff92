/* bench/libcalls.sh: N calls into a shared library (lib_step, through the
 * PLT) from one instrumented function. */
#include <stdio.h>
#include <stdlib.h>

int lib_step(int x);

static int run(long n)
{
    int x = 0;
    for (long i = 0; i < n; i++)
        x = lib_step(x);
    return x;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000000;
    printf("%d\n", run(n));
    return 0;
}
