/*
 * Blocking calls under sampling: rounds of CPU work (so samples are taken)
 * and nanosleep, poll, select, epoll_wait and sigtimedwait of a few
 * milliseconds each, none of which the kernel restarts after a signal
 * handler (signal(7)).  Prints how many returned EINTR: the tracer's
 * sampling must never make one.  Argument: rounds (default 30).
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <time.h>

static volatile unsigned long sink;

__attribute__((noinline)) static void work(unsigned long n)
{
    unsigned long x = sink;
    for (unsigned long i = 0; i < n; i++)
        x = x * 6364136223846793005ul + 1442695040888963407ul;
    sink = x;
}

static int eintr;

static void check(const char *what, int rc)
{
    if (rc < 0 && errno == EINTR) {
        eintr++;
        fprintf(stderr, "%s: EINTR\n", what);
    }
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 30;
    int ep = epoll_create1(EPOLL_CLOEXEC);
    sigset_t usr2;
    sigemptyset(&usr2);
    sigaddset(&usr2, SIGUSR2);
    sigprocmask(SIG_BLOCK, &usr2, NULL);
    for (int r = 0; r < rounds; r++) {
        work(2000000);
        struct timespec ts = {0, 4000000};
        check("nanosleep", nanosleep(&ts, NULL));
        check("poll", poll(NULL, 0, 4));
        struct timeval tv = {0, 4000};
        check("select", select(0, NULL, NULL, NULL, &tv));
        struct epoll_event ev;
        check("epoll_wait", epoll_wait(ep, &ev, 1, 4));
        check("sigtimedwait", sigtimedwait(&usr2, NULL, &ts));
    }
    printf("eintr %d\n", eintr);
    return 0;
}
