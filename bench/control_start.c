/* What CALLTRACE_CONTROL=1 adds to the tracer's start-up: the same calls
 * preload/control/control_socket.c makes (the private folder, a socket bound and
 * listening, a detached thread with every signal blocked), timed as the
 * fastest of 50 rounds.
 *   gcc -O2 -o control_start bench/control_start.c -lpthread && ./control_start */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static void *idle(void *arg)
{
    (void)arg;
    pause();
    return NULL;
}

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

int main(void)
{
    char dir[] = "/tmp/ct-control-bench.XXXXXX";
    if (!mkdtemp(dir))
        return 1;
    double best = 1e300;
    for (int r = 0; r < 50; r++) {
        double t0 = now_ns();
        char sub[64];
        snprintf(sub, sizeof sub, "%s/d", dir);
        mkdir(sub, 0700);
        struct stat st;
        lstat(sub, &st);
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        struct sockaddr_un a = {.sun_family = AF_UNIX};
        snprintf(a.sun_path, sizeof a.sun_path, "%s/%d.ctl", sub, r);
        unlink(a.sun_path);
        if (bind(fd, (struct sockaddr *)&a, sizeof a) || listen(fd, 4))
            return 1;
        fstat(fd, &st);
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old);
        pthread_attr_t at;
        pthread_attr_init(&at);
        pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
        pthread_attr_setstacksize(&at, 64 << 10);
        pthread_t th;
        pthread_create(&th, &at, idle, NULL);
        pthread_attr_destroy(&at);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        double d = now_ns() - t0;
        if (d < best)
            best = d;
        unlink(a.sun_path);
    }
    char sub[64];
    snprintf(sub, sizeof sub, "%s/d", dir);
    rmdir(sub);
    rmdir(dir);
    printf("control channel start-up, fastest of 50: %.1f us\n", best / 1e3);
    return 0;
}
