/* Programs that treat descriptors as their own: the tracer must never
 * write into, close or move any of them.  Each mode writes its own files
 * into DIR; they must be byte-identical with and without the tracer.
 *   closeall  closes 3..1023, opens its file (likely fd 3), 1e6 calls of f
 *   range     close_range(3, ~0U), same
 *   dup2      dup2s its file over 3..63 and writes through every number
 *   reuse     200 rounds: close 3..63, open a file, write, 20000 calls
 *   daemon    forks; the child setsid()s, closes 0..1023, reopens 0..2 on
 *             /dev/null, writes its file and makes 300000 calls
 * Exit status 0; f is called exactly as many times as printed. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile long sink;
__attribute__((noinline)) void f(void) { sink++; }

static void work(long n)
{
    for (long i = 0; i < n; i++)
        f();
}

static int open_out(const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) {
        perror(path);
        exit(1);
    }
    return fd;
}

static void put(int fd, const char *s)
{
    if (write(fd, s, strlen(s)) != (ssize_t)strlen(s))
        exit(1);
}

static int closeall(const char *dir, int use_range)
{
    if (use_range)
        close_range(3, ~0U, 0);
    else
        for (int fd = 3; fd < 1024; fd++)
            close(fd);
    int x = open_out(dir, "user.txt");
    put(x, "hello\n");
    work(1000000);
    put(x, "bye\n");
    close(x);
    printf("f=1000000 fd=%d\n", x);
    return 0;
}

static int dup2_all(const char *dir)
{
    int x = open_out(dir, "dup2.txt");
    for (int fd = 3; fd < 64; fd++)
        if (fd != x && dup2(x, fd) != fd)
            return 1;
    char line[32];
    for (int fd = 3; fd < 64; fd++) {
        work(20000);
        snprintf(line, sizeof line, "through %d\n", fd);
        put(fd, line);
    }
    for (int fd = 3; fd < 64; fd++)
        close(fd);
    printf("f=%d\n", 61 * 20000);
    return 0;
}

static int reuse(const char *dir)
{
    char name[32], line[32];
    for (int round = 0; round < 200; round++) {
        for (int fd = 3; fd < 64; fd++)
            close(fd);
        snprintf(name, sizeof name, "reuse-%d.txt", round % 4);
        int x = open_out(dir, name);
        work(20000);
        snprintf(line, sizeof line, "round %d fd %d\n", round, x);
        put(x, line);
        close(x);
    }
    printf("f=%d\n", 200 * 20000);
    return 0;
}

static int daemon_child(const char *dir)
{
    setsid();
    for (int fd = 0; fd < 1024; fd++)
        close(fd);
    int n = open("/dev/null", O_RDWR);
    if (n != 0 || dup2(0, 1) != 1 || dup2(0, 2) != 2)
        _exit(3);
    int x = open_out(dir, "daemon.txt");
    put(x, "daemon up\n");
    work(300000);
    put(x, "daemon down\n");
    close(x);
    exit(0);
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    const char *mode = argv[1], *dir = argv[2];
    if (strcmp(mode, "closeall") == 0)
        return closeall(dir, 0);
    if (strcmp(mode, "range") == 0)
        return closeall(dir, 1);
    if (strcmp(mode, "dup2") == 0)
        return dup2_all(dir);
    if (strcmp(mode, "reuse") == 0)
        return reuse(dir);
    if (strcmp(mode, "daemon") == 0) {
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0)
            daemon_child(dir);
        int st;
        if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
            return 1;
        printf("f=300000 daemon=%d\n", WEXITSTATUS(st));
        return WEXITSTATUS(st);
    }
    return 2;
}
