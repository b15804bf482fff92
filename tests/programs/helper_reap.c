/* The tracer's helper processes are never the program's children: after
 * CALLS calls (enough for the block supplier or the stream's sender to
 * run), /proc/self/task/* /children lists none, two forked children are
 * the only ones waitpid(-1, __WALL) reaps, and SIGCHLD comes twice.  The
 * output is the same with and without the tracer.
 *   helper_reap CALLS [HELPERS_FILE] */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kcmp.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t nchld;
static volatile long sink;

static void on_chld(int sig) { (void)sig; nchld++; }
__attribute__((noinline)) static void leaf(long i) { sink += i; }

/* Children of every thread of this process. */
static int children(void)
{
    int n = 0;
    DIR *d = opendir("/proc/self/task");
    for (struct dirent *e; d && (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        char path[300];
        snprintf(path, sizeof path, "/proc/self/task/%s/children", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        int pid;
        while (fscanf(f, "%d", &pid) == 1)
            n++;
        fclose(f);
    }
    if (d)
        closedir(d);
    return n;
}

/* Other processes that share this one's memory (the tracer's helpers),
 * named calltrace-*, into FILE: the test checks that they end. */
static void helpers(const char *file)
{
    FILE *out = fopen(file, "w");
    DIR *d = opendir("/proc");
    for (struct dirent *e; out && d && (e = readdir(d));) {
        int pid = atoi(e->d_name);
        if (pid <= 0 || pid == getpid())
            continue;
        if (syscall(SYS_kcmp, getpid(), pid, KCMP_VM, 0, 0) == 0)
            fprintf(out, "%d\n", pid);
    }
    if (d)
        closedir(d);
    if (out)
        fclose(out);
}

int main(int argc, char **argv)
{
    long calls = argc > 1 ? atol(argv[1]) : 100000;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_chld;
    sigaction(SIGCHLD, &sa, NULL);
    for (long i = 0; i < calls; i++)
        leaf(i);
    if (argc > 2)
        helpers(argv[2]);
    printf("children before fork: %d\n", children());
    /* One child at a time, its SIGCHLD waited for: the count is exact. */
    sigset_t chld, old;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    sigprocmask(SIG_BLOCK, &chld, &old);
    for (int i = 0; i < 2; i++) {
        int before = nchld;
        pid_t pid = fork();
        if (pid == 0) {
            leaf(i);
            _exit(10 + i);
        }
        while (nchld == before)
            sigsuspend(&old);
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
    int reaped = 0, sum = 0, st;
    pid_t p;
    while ((p = waitpid(-1, &st, __WALL)) > 0 || errno == EINTR) {
        if (p <= 0)
            continue;
        reaped++;
        sum += WIFEXITED(st) ? WEXITSTATUS(st) : 100;
    }
    printf("waitpid: %s; reaped %d, statuses %d\n", strerror(errno), reaped, sum);
    printf("SIGCHLD %d\n", (int)nchld);
    for (long i = 0; i < calls; i++)
        leaf(i);
    printf("children at end: %d\n", children());
    return 0;
}
