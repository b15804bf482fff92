/* Calls into an instrumented shared library (tests/programs/dump_lib.c)
 * through the PLT, known by construction (tests/e2e/libcalls_into.sh):
 * main calls lib_entry(4) 3 times; each runs lib_square 4 times.  Output:
 * one line, the same with and without the tracer. */
#include <stdio.h>

int lib_entry(int n);

int main(void)
{
    int s = 0;
    for (int i = 0; i < 3; i++)
        s += lib_entry(4);
    printf("%d\n", s);
    return 0;
}
