/* A recursion DEPTH levels deep, ROUNDS times (bench/deep_frames.sh):
 * deep_frames DEPTH ROUNDS.  Calls past the levels a thread's state holds
 * (960) take the hooks' slow path; at 500 levels none does. */
#include <stdlib.h>

static volatile int sink;

__attribute__((noinline)) void down(int n)
{
    if (n > 0)
        down(n - 1);
    sink++;
}

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    int depth = atoi(argv[1]), rounds = atoi(argv[2]);
    for (int i = 0; i < rounds; i++)
        down(depth);
    return 0;
}
