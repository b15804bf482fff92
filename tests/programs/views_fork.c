/* main -> spawn forks; the child inherits main and spawn open, calls
 * child_work twice (each calling leaf), and returns through spawn and
 * main; the parent waits and calls leaf once. */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile int sink;

__attribute__((noinline)) void leaf(void) { sink++; }
__attribute__((noinline)) void child_work(void) { leaf(); }

__attribute__((noinline)) int spawn(void)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        child_work();
        child_work();
        return 1;
    }
    int status = 0;
    waitpid(pid, &status, 0);
    leaf();
    return 0;
}

int main(void)
{
    spawn();
    return 0;
}
