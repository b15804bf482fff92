/* Work for the block supplier's test (tests/e2e/trace_supplier.sh):
 * THREADS threads make CALLS calls of leaf() each; then the program says
 * how many block suppliers share its memory, checks that wait() sees
 * none of them (nor any other child), and either returns, forks a child that does the same
 * work alone, or hangs to be killed. */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kcmp.h>
#include <sys/syscall.h>
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

/* Processes that share this process's memory (kcmp) named
 * calltrace-supply, and how many descriptors they hold; *unnamed: those
 * that have no such name (yet: a supplier names itself once it first
 * runs, which on a loaded machine can be a while).  They are not its
 * children: it is an orphan from the start. */
static int suppliers(int *fds, int *unnamed)
{
    char path[300], line[256];
    int n = 0;
    *fds = 0;
    *unnamed = 0;
    DIR *procs = opendir("/proc");
    for (struct dirent *p; procs && (p = readdir(procs));) {
        int pid = atoi(p->d_name);
        if (pid <= 0 || pid == (int)getpid() ||
            syscall(SYS_kcmp, getpid(), pid, KCMP_VM, 0, 0) != 0)
            continue;
        snprintf(path, sizeof path, "/proc/%s/status", p->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        int named = 0, other = 0, thread = 0;
        while (fgets(line, sizeof line, f)) {
            if (strncmp(line, "Name:\tcalltrace-supp", 20) == 0)
                named = 1;
            /* the file keeper (calltrace-file) is not a supplier */
            else if (strncmp(line, "Name:\tcalltrace-", 16) == 0)
                other = 1;
            if (strncmp(line, "Tgid:\t", 6) == 0)
                thread = atoi(line + 6) == (int)getpid();
        }
        fclose(f);
        if (thread || other)
            continue;
        *unnamed += !named;
        if (!named)
            continue;
        n++;
        snprintf(path, sizeof path, "/proc/%s/fd", p->d_name);
        DIR *d = opendir(path);
        /* Its own pidfd of the program is not one of the program's. */
        for (struct dirent *e; d && (e = readdir(d));) {
            char fd[600], target[64] = "";
            if (e->d_name[0] == '.')
                continue;
            snprintf(fd, sizeof fd, "%s/%s", path, e->d_name);
            ssize_t len = readlink(fd, target, sizeof target - 1);
            target[len > 0 ? len : 0] = '\0';
            *fds += strcmp(target, "anon_inode:[pidfd]") != 0;
        }
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
    if (waitpid(-1, NULL, WNOHANG | __WALL) != -1 || errno != ECHILD) {
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
