/* main calls leaf() 20000 times: 20001 calls, 40002 events in all. */
#include <stdio.h>

static volatile int sink;

__attribute__((noinline)) static void leaf(int i) { sink += i; }

int main(void)
{
    for (int i = 0; i < 20000; i++)
        leaf(i);
    printf("done\n");
    return 0;
}
