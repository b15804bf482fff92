/*
 * A program with its own SIGPROF handler and profiling timer, as programs
 * that profile themselves have.  Under the sampling mode its handler must
 * win: it gets its own signals and none of the sampler's.
 *   sample_sigprof [signal]   install with signal() instead of sigaction()
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>

static volatile sig_atomic_t own, foreign;
static volatile unsigned long sink;

static void on_prof(int sig, siginfo_t *si, void *uc)
{
    (void)sig;
    (void)uc;
    if (si && si->si_code == SI_TIMER)
        foreign++;   /* a POSIX timer's signal: not from setitimer */
    else
        own++;
}

static void on_prof_plain(int sig)
{
    (void)sig;
    own++;
}

int main(int argc, char **argv)
{
    int use_signal = argc > 1 && strcmp(argv[1], "signal") == 0;
    /* Spin a little first, so a sampler has been running for a while. */
    for (unsigned long i = 0; i < 50000000; i++)
        sink = sink * 31 + i;
    if (use_signal) {
        signal(SIGPROF, on_prof_plain);
    } else {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_prof;
        sa.sa_flags = SA_SIGINFO | SA_RESTART;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGPROF, &sa, NULL);
    }
    struct itimerval it = {{0, 1000}, {0, 1000}};
    setitimer(ITIMER_PROF, &it, NULL);
    while (own < 20)
        sink = sink * 31 + 7;
    struct itimerval off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_PROF, &off, NULL);
    printf("own handler ran: %s\nforeign signals: %d\n", own >= 20 ? "yes" : "no",
           (int)foreign);
    return 0;
}
