/* What the tracer's descriptor-free block switch adds: open + fstat +
 * close of the trace file by name, against the rest of a block switch
 * (fallocate, mmap, fault the pages, munmap) on the same file, in one
 * invocation, in CPU time of the process.
 *   gcc -O2 -o reopen_cost bench/reopen_cost.c && ./reopen_cost FILE [BLOCK_KIB] */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double cpu_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    const char *path = argv[1];
    size_t block = (argc > 2 ? (size_t)atoi(argv[2]) : 64) << 10;
    enum { N = 20000, NBLOCKS = 2000 };  /* 2000 blocks: 128 MiB at 64 KiB */
    int fd0 = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (fd0 < 0) {
        perror(path);
        return 1;
    }
    double a = cpu_ns();
    for (int i = 0; i < N; i++) {
        int fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY);
        struct stat st;
        if (fd < 0 || fstat(fd, &st) != 0)
            return 1;
        close(fd);
    }
    double b = cpu_ns();
    for (int i = 0; i < NBLOCKS; i++) {
        off_t off = (off_t)i * (off_t)block;
        if (fallocate(fd0, 0, off, (off_t)block) != 0)
            return 1;
        char *m = mmap(NULL, block, PROT_READ | PROT_WRITE, MAP_SHARED, fd0, off);
        if (m == MAP_FAILED)
            return 1;
        for (size_t k = 0; k < block; k += 4096)
            ((volatile char *)m)[k] = 0;
        munmap(m, block);
    }
    double c = cpu_ns();
    double reopen = (b - a) / N, rest = (c - b) / NBLOCKS;
    printf("reopen+fstat+close %.0f ns, rest of a %zu KiB block switch %.0f ns, "
           "ratio %.4f\n", reopen, block >> 10, rest, reopen / rest);
    close(fd0);
    unlink(path);
    return 0;
}
