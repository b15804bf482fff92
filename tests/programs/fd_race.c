/*
 * A program that changes its descriptors from one thread while others make
 * calls: the smasher closes the low numbers and at once dup2()s its own
 * data file over each, so a descriptor the tracer opened on that number in
 * between would name the program's file by the time the tracer uses it.
 * At the end the data file must be as the program wrote it (size and
 * bytes).  fd_race N DATAFILE; exit 0 when the file is intact.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DSZ 4096
#define WORKERS 4

static long calls;
static volatile int stop;
static int data;
static volatile long sink;

__attribute__((noinline)) void f(long i) { sink += i; }

static void *work(void *a)
{
    for (long j = 0; j < calls; j++)
        f(j);
    return a;
}

static void *smash(void *a)
{
    while (!stop) {
        for (int fd = 3; fd < 32; fd++)
            close(fd);
        for (int fd = 3; fd < 32; fd++)
            dup2(data, fd);
    }
    return a;
}

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    calls = atol(argv[1]);
    int d0 = open(argv[2], O_RDWR | O_CREAT | O_TRUNC, 0644);
    data = fcntl(d0, F_DUPFD, 200);
    close(d0);
    char buf[DSZ];
    memset(buf, 'A', sizeof buf);
    if (data < 0 || pwrite(data, buf, sizeof buf, 0) != DSZ)
        return 2;
    pthread_t s, t[WORKERS];
    pthread_create(&s, NULL, smash, NULL);
    for (int i = 0; i < WORKERS; i++)
        pthread_create(&t[i], NULL, work, NULL);
    for (int i = 0; i < WORKERS; i++)
        pthread_join(t[i], NULL);
    stop = 1;
    pthread_join(s, NULL);
    struct stat st;
    char got[DSZ];
    if (fstat(data, &st) != 0 || st.st_size != DSZ ||
        pread(data, got, sizeof got, 0) != DSZ || memcmp(got, buf, DSZ)) {
        printf("data file changed: size %lld\n", (long long)st.st_size);
        return 1;
    }
    printf("data file intact\n");
    return 0;
}
