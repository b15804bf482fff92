/* CPU time spent inside a library call (tests/e2e/libcalls_sample.sh):
 * fill() runs memset over 64 MiB 40 times.  Output: one number, the same
 * with and without the tracer. */
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
static char *buf;
static void fill(int rounds)
{
    for (int i = 0; i < rounds; i++)
        memset(buf, i, 64 << 20);
}

int main(void)
{
    buf = malloc(64 << 20);
    if (!buf)
        return 1;
    fill(40);
    printf("%d\n", buf[5]);
    return 0;
}
