/*
 * Execution contexts made with glibc's clone() (trace_clone.sh): a child
 * calls f() N times while its parent does the same.
 *
 *   trace_clone process|vm|vfork|vfork_exit|vfork_call|thread|raw N
 *
 * process  clone(SIGCHLD): a process with memory of its own
 * vm       clone(CLONE_VM | SIGCHLD): a process sharing the memory and TLS
 * vfork    clone(CLONE_VM | CLONE_VFORK | SIGCHLD): the parent waits
 * thread   clone(CLONE_THREAD ...) without a TLS of its own
 * vfork_exit  as vfork, the child ending with _exit
 * vfork_call  vfork(), the child calling f and ending with _exit
 * raw      syscall(SYS_clone, SIGCHLD): a process made past glibc, on a
 *          copy of the parent's stack, ending with _exit
 * The child also makes library calls (strtol).
 */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static long n;
static int child_exits;  /* the child ends with _exit, not a return */
static volatile long sink;

__attribute__((noinline)) long f(long x)
{
    __asm__ volatile("");
    return x * 3 + 1;
}

static int child(void *arg)
{
    (void)arg;
    long s = strtol("7", NULL, 10);
    for (long i = 0; i < n; i++)
        s += f(i);
    sink = s;
    if (child_exits)
        _exit(0);
    return 0;
}

static void parent_work(void)
{
    long s = 0;
    for (long i = 0; i < n; i++)
        s += f(i);
    sink = s;
}

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    n = atol(argv[2]);
    size_t size = 1 << 20;
    char *stack = malloc(size);
    if (!stack)
        return 2;
    const char *mode = argv[1];
    child_exits = strstr(mode, "_exit") != NULL;
    int flags = SIGCHLD;
    if (strcmp(mode, "vm") == 0)
        flags |= CLONE_VM;
    else if (strncmp(mode, "vfork", 5) == 0)
        flags |= CLONE_VM | CLONE_VFORK;
    else if (strcmp(mode, "thread") == 0)
        flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND |
                CLONE_THREAD | CLONE_SYSVSEM | CLONE_CHILD_CLEARTID;
    else if (strcmp(mode, "process") != 0 && strcmp(mode, "raw") != 0)
        return 2;
    static pid_t ctid = 1;
    pid_t pid;
    if (strcmp(mode, "vfork_call") == 0) {
        child_exits = 1;
        pid = vfork();
        if (pid == 0)
            child(NULL);
        flags = SIGCHLD;
    } else if (strcmp(mode, "raw") == 0) {
        child_exits = 1;
        pid = (pid_t)syscall(SYS_clone, SIGCHLD, NULL, NULL, NULL, 0);
        if (pid == 0)
            child(NULL);
    } else {
        pid = clone(child, stack + size, flags, NULL, NULL, NULL, &ctid);
    }
    if (pid < 0) {
        perror("clone");
        return 3;
    }
    parent_work();
    if (flags & CLONE_THREAD) {
        /* the kernel clears ctid when the thread has ended */
        pid_t v;
        while ((v = __atomic_load_n(&ctid, __ATOMIC_ACQUIRE)) != 0)
            syscall(SYS_futex, &ctid, FUTEX_WAIT, v, NULL, NULL, 0);
    } else {
        int st;
        if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
            WEXITSTATUS(st) != 0)
            return 4;
    }
    printf("%s: %ld calls of f in each\n", mode, n);
    return 0;
}
