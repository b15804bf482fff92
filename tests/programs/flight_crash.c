/* A run far longer than a small flight-recorder ring, then a crash.
 * By construction the ring's newest calls are, in order:
 *   ... tick x many (most overwritten), last_a x 1000, last_b x 500,
 *   boom (never returns: SIGSEGV), all inside run(), inside main.
 * early() runs once, first of all: its block is long overwritten.
 * argv[1]: number of tick calls (default 400000).
 * argv[2] "pause": after the ticks, print "ready" and wait for SIGTERM
 *   without crashing (for snapshots of a live process). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile int sink;
static volatile int *volatile nowhere;

__attribute__((noinline)) void early(void) { sink++; }
__attribute__((noinline)) void tick(void) { sink++; }
__attribute__((noinline)) void last_a(void) { sink++; }
__attribute__((noinline)) void last_b(void) { sink++; }
__attribute__((noinline)) void boom(void) { *nowhere = 1; }

__attribute__((noinline)) void run(long ticks, int pause_after)
{
    for (long i = 0; i < ticks; i++)
        tick();
    for (int i = 0; i < 1000; i++)
        last_a();
    for (int i = 0; i < 500; i++)
        last_b();
    if (pause_after) {
        printf("ready\n");
        fflush(stdout);
        for (;;)
            pause();
    }
    boom();
}

int main(int argc, char **argv)
{
    long ticks = argc > 1 ? atol(argv[1]) : 400000;
    early();
    run(ticks, argc > 2 && strcmp(argv[2], "pause") == 0);
    return 0;
}
