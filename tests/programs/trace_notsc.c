/* A program that takes the TSC away from itself (tests/e2e/trace_notsc.sh).
 *   trace_notsc tsc N           N calls, prctl(PR_SET_TSC, PR_TSC_SIGSEGV),
 *                               N calls, a thread of N calls, a forked
 *                               child of N calls
 *   trace_notsc strict N        N calls, seccomp strict mode by prctl,
 *                               N calls, write, exit
 *   trace_notsc strict-sys N    the same through syscall(SYS_seccomp)
 *   trace_notsc enforced 0      PR_SET_TSC, then reads the TSC: dies of
 *                               SIGSEGV where the kernel enforces it */
#define _GNU_SOURCE
#include <linux/seccomp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <x86intrin.h>

static volatile long sink;
static long n;
__attribute__((noinline)) void f(long i) { sink += i; }

static void *calls(void *arg)
{
    (void)arg;
    for (long i = 0; i < n; i++)
        f(i);
    return NULL;
}

static int tsc(void)
{
    calls(NULL);
    if (prctl(PR_SET_TSC, PR_TSC_SIGSEGV, 0, 0, 0) != 0) {
        perror("PR_SET_TSC");
        return 77;
    }
    calls(NULL);
    pthread_t t;
    pthread_create(&t, NULL, calls, NULL);
    pthread_join(t, NULL);
    pid_t pid = fork();
    if (pid == 0) {
        calls(NULL);
        _exit(0);
    }
    int st;
    waitpid(pid, &st, 0);
    printf("calls %ld, child status %d\n", (long)sink != 0 ? 4 * n : 0,
           WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    return 0;
}

static int strict(int by_syscall)
{
    calls(NULL);
    fflush(stdout);
    long rc = by_syscall ? syscall(SYS_seccomp, SECCOMP_SET_MODE_STRICT, 0, NULL)
                         : prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT, 0, 0, 0);
    if (rc != 0) {
        perror("strict");
        return 77;
    }
    calls(NULL);
    static const char done[] = "strict done\n";
    (void)!write(1, done, sizeof done - 1);
    syscall(SYS_exit, 3);
    return 1;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    n = atol(argv[2]);
    if (strcmp(argv[1], "enforced") == 0) {
        prctl(PR_SET_TSC, PR_TSC_SIGSEGV, 0, 0, 0);
        sink = (long)__rdtsc();
        return 0;
    }
    if (strcmp(argv[1], "tsc") == 0)
        return tsc();
    if (strcmp(argv[1], "strict") == 0)
        return strict(0);
    if (strcmp(argv[1], "strict-sys") == 0)
        return strict(1);
    return 2;
}
