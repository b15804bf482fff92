/*
 * What the kernel work of a process start costs on this machine: a system
 * call, a page fault in a fresh anonymous mapping and in a library's .bss,
 * an munmap of touched pages, MADV_POPULATE_WRITE.  On a VM with
 * paravirtualized page tables these differ by 10-100x from bare metal and
 * decide where a short process's time goes (bench/RESULTS-tracer.md,
 * "Start-up").  Build: gcc -O2 -o vm_costs bench/vm_costs.c
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define N 64
static char bss[N * 4096 * 2];

static double cpu_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

int main(void)
{
    double a = cpu_ns();
    for (int i = 0; i < 10000; i++)
        syscall(SYS_getppid);
    printf("system call (getppid)            %8.2f us\n", (cpu_ns() - a) / 10000 / 1e3);
    char *p = mmap(NULL, N * 4096, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    a = cpu_ns();
    for (int i = 0; i < N; i++)
        p[i * 4096] = 1;
    printf("fault, fresh anonymous mapping   %8.2f us a page\n", (cpu_ns() - a) / N / 1e3);
    a = cpu_ns();
    munmap(p, N * 4096);
    printf("munmap of those touched pages    %8.2f us (%d pages)\n", (cpu_ns() - a) / 1e3, N);
    a = cpu_ns();
    for (int i = 0; i < N; i++)
        bss[i * 4096 * 2] = 1;
    printf("fault in the program's .bss      %8.2f us a page\n", (cpu_ns() - a) / N / 1e3);
    p = mmap(NULL, N * 4096, PROT_READ | PROT_WRITE,
             MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    a = cpu_ns();
    madvise(p, N * 4096, MADV_POPULATE_WRITE);
    printf("MADV_POPULATE_WRITE              %8.2f us a page\n", (cpu_ns() - a) / N / 1e3);
    a = cpu_ns();
    void *q = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    munmap(q, 4096);
    printf("mmap + munmap, untouched page    %8.2f us\n", (cpu_ns() - a) / 1e3);
    return 0;
}
