/* A daemon for the front end's tests: a double fork whose grandchild goes
 * on after the process calltrace started has exited.
 *   frontend_daemon DONE [STATUS]
 *       the grandchild waits until the first process is gone, calls tick()
 *       1000 times, then writes DONE; the first process exits STATUS
 *   frontend_daemon DONE STATUS hang GO
 *       the grandchild calls tick() 100 times, writes DONE, then waits
 *       for the file GO before it exits */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static volatile long sink;

__attribute__((noinline)) static void tick(int i) { sink += i; }

static void touch(const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0)
        close(fd);
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    int status = argc > 2 ? atoi(argv[2]) : 0;
    pid_t first = getpid();
    if (fork() > 0)
        return status;
    setsid();
    if (fork() > 0)
        _exit(0);
    /* Once the first process has been reaped by whoever waits for it. */
    while (kill(first, 0) == 0)
        usleep(10000);
    if (argc > 4) {
        for (int i = 0; i < 100; i++)
            tick(i);
        touch(argv[1]);
        struct stat st;
        while (stat(argv[4], &st) != 0)
            usleep(10000);
        return 0;
    }
    usleep(100000);
    for (int i = 0; i < 1000; i++)
        tick(i);
    touch(argv[1]);
    return 0;
}
