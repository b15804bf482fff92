/* bench/live.sh: many calls, then it waits on stdin with its trace open,
 * so that calltrace top watches a live trace that no longer grows. */
#include <stdlib.h>
#include <unistd.h>

static volatile int sink;

__attribute__((noinline)) void leaf(int i) { sink += i; }
__attribute__((noinline)) void mid(int i) { leaf(i); leaf(i + 1); }

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 4000000;
    for (long i = 0; i < n; i++)
        mid((int)i);
    if (write(1, "ready\n", 6) != 6)
        return 1;
    char c;
    while (read(0, &c, 1) > 0)
        ;
    return 0;
}
