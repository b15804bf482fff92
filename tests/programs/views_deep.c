/* deep(n) recurses n levels (argv[1], default 10000): the views must show
 * every level, nested, with no line growing with the depth. */
#include <stdlib.h>

static volatile int sink;

__attribute__((noinline)) int deep(int n)
{
    if (n <= 1) {
        sink++;
        return 1;
    }
    return deep(n - 1) + 1;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 10000;
    return deep(n) == n ? 0 : 1;
}
