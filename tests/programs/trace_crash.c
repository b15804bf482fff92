/* Calls step() 10 times, records a user event, then dies the way argv[1]
 * says: "abort" (SIGABRT), "segv" (SIGSEGV through a null pointer) or
 * "spin" (calls tick() forever, after writing "ready" once 5000 calls are
 * done, for a SIGKILL from outside). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calltrace.h"

static volatile int sink;
static int *volatile nowhere;

__attribute__((noinline)) static void step(int i) { sink += i; }
__attribute__((noinline)) static void tick(void) { sink++; }

__attribute__((noinline)) static void crash(const char *how)
{
    if (strcmp(how, "abort") == 0)
        abort();
    if (strcmp(how, "segv") == 0)
        *nowhere = 1;
    for (long n = 0;; n++) {
        tick();
        if (n == 5000) {
            puts("ready");
            fflush(stdout);
        }
    }
}

int main(int argc, char **argv)
{
    for (int i = 0; i < 10; i++)
        step(i);
    calltrace_event("about to %s", argc > 1 ? argv[1] : "segv");
    crash(argc > 1 ? argv[1] : "segv");
    return 0;
}
