/* Work for the block supplier's test (tests/e2e/trace_supplier.sh):
 * THREADS threads make CALLS calls of leaf() each; then the program says
 * how many block suppliers it has as children, checks that wait() sees
 * none of them, and either returns, forks a child that does the same
 * work alone, or hangs to be killed. */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static long calls;
static volatile long sink;

__attribute__((noinline)) static void leaf(long i) { sink += i; }

static void *work(void *arg)
{
    (void)arg;
    for (long i = 0; i < calls; i++)
        leaf(i);
    return NULL;
}

/* Processes whose parent is this process (any of its threads: the
 * thread that started a supplier may have ended since) named
 * calltrace-supply, and how many descriptors they hold; *unnamed: those
 * of its children that have no calltrace- name (yet: a supplier names
 * itself once it first runs, which on a loaded machine can be a while). */
static int suppliers(int *fds, int *unnamed)
{
    char path[300], line[256];
    int n = 0;
    *fds = 0;
    *unnamed = 0;
    DIR *procs = opendir("/proc");
    for (struct dirent *p; procs && (p = readdir(procs));) {
        if (p->d_name[0] < '0' || p->d_name[0] > '9')
            continue;
        snprintf(path, sizeof path, "/proc/%s/status", p->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        int named = 0, tracers = 0, ours = 0;
        while (fgets(line, sizeof line, f)) {
            if (strncmp(line, "Name:\tcalltrace-supp", 20) == 0)
                named = 1;
            /* the file keeper (calltrace-file) is not a supplier */
            if (strncmp(line, "Name:\tcalltrace-", 16) == 0)
                tracers = 1;
            if (strncmp(line, "PPid:\t", 6) == 0)
                ours = atoi(line + 6) == (int)getpid();
        }
        fclose(f);
        *unnamed += ours && !tracers;
        if (!named || !ours)
            continue;
        n++;
        snprintf(path, sizeof path, "/proc/%s/fd", p->d_name);
        DIR *d = opendir(path);
        for (struct dirent *e; d && (e = readdir(d));)
            *fds += e->d_name[0] != '.';
        if (d)
            closedir(d);
    }
    if (procs)
        closedir(procs);
    return n;
}

static int run(int threads, const char *who)
{
    pthread_t th[64];
    for (int i = 0; i < threads; i++)
        pthread_create(&th[i], NULL, work, NULL);
    for (int i = 0; i < threads; i++)
        pthread_join(th[i], NULL);
    int fds, unnamed;
    int n = suppliers(&fds, &unnamed);
    /* A child not named yet may be a supplier not yet run: up to 5 s. */
    for (int i = 0; i < 500 && n == 0 && unnamed > 0; i++) {
        usleep(10000);
        n = suppliers(&fds, &unnamed);
    }
    printf("%s: suppliers %d fds %d\n", who, n, fds);
    if (waitpid(-1, NULL, WNOHANG) != -1 || errno != ECHILD) {
        printf("%s: wait() saw a child\n", who);
        return 1;
    }
    fflush(stdout);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 4)
        return 2;
    int threads = atoi(argv[1]);
    calls = atol(argv[2]);
    if (threads < 1 || threads > 64)
        return 2;
    int rc = run(threads, "parent");
    if (strcmp(argv[3], "fork") == 0) {
        pid_t pid = fork();
        if (pid == 0)
            return run(1, "child");
        int st;
        if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
            return 1;
        rc |= WEXITSTATUS(st);
    } else if (strcmp(argv[3], "hang") == 0) {
        for (;;)
            pause();
    }
    return rc;
}
