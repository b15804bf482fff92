/* Known call counts by construction, for the profile mode's e2e test
 * (tests/e2e/profile_mode.sh): main calls work() 10 times, each calling
 * leaf() 3 times and rec() to a depth of 4; two threads call work() 7
 * times each; a forked child calls leaf() 5 times.  With an argument,
 * it then calls spin() N times, says so on stdout and waits to be
 * killed. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile unsigned sink;

__attribute__((noinline)) void leaf(void) { sink++; }

__attribute__((noinline)) void rec(int n)
{
    if (n > 0)
        rec(n - 1);
    sink++;
}

__attribute__((noinline)) void work(void)
{
    for (int i = 0; i < 3; i++)
        leaf();
    rec(4);
}

__attribute__((noinline)) void spin(void) { sink++; }

static void *thread_main(void *arg)
{
    (void)arg;
    for (int i = 0; i < 7; i++)
        work();
    return NULL;
}

int main(int argc, char **argv)
{
    for (int i = 0; i < 10; i++)
        work();
    pthread_t th[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&th[i], NULL, thread_main, NULL);
    for (int i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    pid_t pid = fork();
    if (pid == 0) {
        for (int i = 0; i < 5; i++)
            leaf();
        _exit(0);
    }
    waitpid(pid, NULL, 0);
    if (argc > 1) {
        long n = atol(argv[1]);
        for (long i = 0; i < n; i++)
            spin();
        printf("spun\n");
        fflush(stdout);
        for (;;)
            pause();
    }
    return 0;
}
