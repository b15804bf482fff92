/* Parent calls in_parent() 5 times, forks inside forker(); the child calls
 * in_child() 7 times and exits 0; the parent waits, calls after_fork() 3
 * times and exits with the child's status + 4. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile int sink;

__attribute__((noinline)) static void in_parent(void) { sink++; }
__attribute__((noinline)) static void in_child(void) { sink += 2; }
__attribute__((noinline)) static void after_fork(void) { sink += 3; }

__attribute__((noinline)) static int forker(void)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        for (int i = 0; i < 7; i++)
            in_child();
        exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WEXITSTATUS(status);
}

int main(void)
{
    for (int i = 0; i < 5; i++)
        in_parent();
    int rc = forker();
    for (int i = 0; i < 3; i++)
        after_fork();
    printf("child status %d\n", rc);
    return rc + 4;
}
