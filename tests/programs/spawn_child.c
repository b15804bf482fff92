/* The child of spawn_parent.c: two known calls, then its environment as
 * it got it, one entry a line, in order. */
#include <stdio.h>

extern char **environ;
static volatile int sink;

__attribute__((noinline)) static void child_leaf(void) { sink++; }
__attribute__((noinline)) static void child_work(void) { child_leaf(); }

int main(void)
{
    child_work();
    for (char **e = environ; e && *e; e++)
        printf("E %s\n", *e);
    return 0;
}
