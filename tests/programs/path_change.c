/*
 * A program that takes its trace's path away part-way
 * (tests/e2e/trace_paths.sh): N calls of f, then MODE, then N more.
 *   chroot DIR   chroot(DIR) and chdir("/") (root)
 *   chdir DIR    chdir(DIR): a relative trace name no longer leads there
 *   mountns DIR  a mount namespace of its own with a tmpfs over DIR, the
 *                trace's folder (root)
 * Prints the calls of f it made; exit 2 when MODE fails.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

static volatile long sink;
__attribute__((noinline)) void f(long i) { sink += i; }

static int change(const char *mode, const char *dir)
{
    if (strcmp(mode, "chroot") == 0)
        return chroot(dir) || chdir("/");
    if (strcmp(mode, "chdir") == 0)
        return chdir(dir);
    if (strcmp(mode, "mountns") == 0)
        return unshare(CLONE_NEWNS) ||
               mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
               mount("tmpfs", dir, "tmpfs", 0, "size=64k");
    return -1;
}

int main(int argc, char **argv)
{
    if (argc != 4)
        return 2;
    long n = atol(argv[3]), made = 0;
    for (long i = 0; i < n; i++, made++)
        f(i);
    if (change(argv[1], argv[2]) != 0) {
        perror(argv[1]);
        return 2;
    }
    for (long i = 0; i < n; i++, made++)
        f(i);
    printf("f=%ld\n", made);
    return 0;
}
