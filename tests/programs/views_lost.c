/* For tests/e2e/views_lost.sh: main calls leaf() 20000 times, with a user
 * event after the 10th call; under a small CALLTRACE_LIMIT the trace ends
 * early (events lost; main, and a leaf cut between its call and its
 * return, never return). */
#include <stdio.h>

#include "calltrace.h"

static volatile int sink;

__attribute__((noinline)) static void leaf(int i) { sink += i; }

int main(void)
{
    for (int i = 0; i < 20000; i++) {
        leaf(i);
        if (i == 9)
            calltrace_event("ten calls");
    }
    printf("done\n");
    return 0;
}
