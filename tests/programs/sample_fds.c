/*
 * The sampler's own descriptor table (preload/sampling/sample_perf.c)
 * must hide its descriptors from the program and hold none of the
 * program's.  A child forked with a pipe's write end keeps it while the
 * child's sampler starts (its table is copied from the child's), closes
 * it and reads: end of file must come, as untraced, within a second
 * (a copy left in the sampler's table would keep the pipe open for
 * ever).  Both processes burn CPU long enough for the sampler to change
 * their periods (it keeps the events' descriptors then), and print the
 * descriptors they see and the number the next open gets.
 *   sample_fds [seccomp|long]
 *                          seccomp: before the fork, a filter that
 *                          refuses unshare, so the child's sampler has no
 *                          table of its own (the descriptors of its new
 *                          events are closed at once, as before); long:
 *                          each burn three times as long (under strace
 *                          on a loaded machine the sampler counts about
 *                          six samples in ten, and a period changes only
 *                          from a thread's second reopen, 116 samples in)
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

static long scale = 1;

static void burn(long ms)
{
    ms *= scale;
    struct timespec t0, t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
    do {
        for (int i = 0; i < 100000; i++)
            sink += (unsigned long)i * 7;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    } while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
}

static void show(const char *who)
{
    int n = 0;
    DIR *d = opendir("/proc/self/fd");
    struct dirent *e;
    while (d && (e = readdir(d)))
        n += e->d_name[0] != '.';
    if (d)
        closedir(d);
    int fd = open("/dev/null", O_RDONLY);
    printf("%s: %d descriptors (the listing's own included), next %d\n", who, n, fd);
    if (fd >= 0)
        close(fd);
}

/* unshare answers EPERM; every other call is let through. */
static int refuse_unshare(void)
{
    struct sock_filter f[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_unshare, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = {sizeof f / sizeof f[0], f};
    return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
           prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "seccomp") == 0 && refuse_unshare() != 0)
        return 2;
    if (argc > 1 && strcmp(argv[1], "long") == 0)
        scale = 3;
    int p[2];
    if (pipe(p) != 0)
        return 1;
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        burn(100);   /* the child's sampler has its table by now */
        close(p[1]);
        alarm(5);
        char c;
        ssize_t got = read(p[0], &c, 1);
        printf("child: read gave %zd\n", got);
        burn(300);
        show("child");
        return 0;
    }
    close(p[1]);
    close(p[0]);
    burn(300);
    show("parent");
    int st;
    waitpid(pid, &st, 0);
    printf("child status %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
    return 0;
}
