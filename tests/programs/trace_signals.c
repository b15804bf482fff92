/* A program that takes the toggle signal for itself: its handler must run
 * every time (prints handled=3) and tracing must not toggle.
 *   trace_signals signal|sigaction */
#include <signal.h>
#include <stdio.h>
#include <string.h>

static volatile sig_atomic_t handled;
static volatile long sink;

__attribute__((noinline)) void work(void) { sink++; }
static void on_usr2(int sig) { (void)sig; handled++; }

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "sigaction") == 0) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_usr2;
        sigaction(SIGUSR2, &sa, NULL);
    } else {
        signal(SIGUSR2, on_usr2);
    }
    for (int i = 0; i < 3; i++) {
        raise(SIGUSR2);
        work();
    }
    printf("handled=%d\n", (int)handled);
    return 0;
}
