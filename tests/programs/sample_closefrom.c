/*
 * A daemon's descriptors under the sampler: prints the number the next
 * open gets, closes every descriptor past stderr (as daemons do), opens a
 * file to read and one to write (argv[1], argv[2]), runs deep and varied
 * stacks while sampled, and prints how far it read and how long the file
 * it never wrote to is: 0 and 0, traced or not.  libunwind's address
 * checks once used a pipe of its own by number, in the program's table,
 * and read and wrote these files through it (preload/sampling/
 * unwind_fds.c).
 */
#include <fcntl.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static volatile long sink;

static long deep(int n, long a)
{
    volatile char pad[512 + (n % 7) * 64];
    pad[0] = (char)a;
    if (n == 0) {
        for (int i = 0; i < 2000; i++)
            sink += i * a;
        return sink + pad[0];
    }
    return deep(n - 1, a + 1) + pad[0];
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: sample_closefrom IN OUT\n");
        return 2;
    }
    int probe = open("/dev/null", O_RDONLY);
    printf("next descriptor %d\n", probe);
    fflush(stdout);
    for (int fd = 3; fd < 256; fd++)
        close(fd);
    int in = open(argv[1], O_RDONLY);
    int out = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (in < 0 || out < 0) {
        perror("open");
        return 1;
    }
    long s = 0;
    /* 30 to 119 frames of 0.5-0.9 KiB: many stack pages for libunwind to
     * check, and under the sampler's 128 frames, so a walk reaches main;
     * for 60 ms of the thread's CPU time, some 60 samples at 1 ms (a
     * fixed 3000 rounds took 3-6 ms, and a run on a loaded machine once
     * got no sample at all) */
    struct timespec t0, t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
    for (int r = 0;; r++) {
        s += deep(30 + r % 90, r);
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
        if ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 >= 60)
            break;
    }
    printf("read offset %ld, written %ld (%ld)\n",
           (long)lseek(in, 0, SEEK_CUR), (long)lseek(out, 0, SEEK_END),
           s & 0);
    return 0;
}
