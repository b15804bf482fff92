/* disk_fill STOP ROUNDS [NAP_US]: makes calls at a steady pace, 100
 * between naps of NAP_US microseconds (default 1000), until the file STOP
 * exists or ROUNDS rounds have passed: a trace that keeps growing for as
 * long as a test needs. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static volatile int sink;

__attribute__((noinline)) static void leaf(int i) { sink += i; }

int main(int argc, char **argv)
{
    if (argc != 3 && argc != 4)
        return 2;
    long rounds = atol(argv[2]);
    long nap = argc == 4 ? atol(argv[3]) : 1000;
    for (long r = 0; r < rounds; r++) {
        for (int i = 0; i < 100; i++)
            leaf(i);
        if (r % 100 == 0 && access(argv[1], F_OK) == 0)
            break;
        if (nap)
            usleep((useconds_t)nap);
    }
    printf("done\n");
    return 0;
}
