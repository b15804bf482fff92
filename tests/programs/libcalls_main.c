/* Library calls known by construction (tests/e2e/libcalls_*.sh):
 *   counted():     7 malloc, 7 free, 3 getpid
 *   escape_sort(): qsort whose comparator longjmps out at its first
 *                  comparison, then 1 getpid where the jump landed
 *   after_jump():  1 getppid
 *   worker() x 3 threads: 10 getpid each
 *   through_dlsym(): getpid twice through a dlsym'd pointer
 * Output: one line, the same with and without the tracer. */
#include <dlfcn.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

void *volatile keep[7];
static jmp_buf escape;
static volatile int landed;

static int counted(void)
{
    int ok = 0;
    for (int i = 0; i < 7; i++)
        keep[i] = malloc(16 + (size_t)i);
    for (int i = 0; i < 3; i++)
        ok += getpid() > 0;
    for (int i = 0; i < 7; i++)
        free(keep[i]);
    return ok;
}

static int cmp(const void *a, const void *b)
{
    (void)a;
    (void)b;
    longjmp(escape, 1);
}

static int escape_sort(void)
{
    static int v[8] = {5, 3, 7, 1, 8, 2, 6, 4};
    if (setjmp(escape) == 0)
        qsort(v, 8, sizeof v[0], cmp);
    landed = getpid() > 0;
    return landed;
}

static int after_jump(void)
{
    return getppid() > 0;
}

static void *worker(void *arg)
{
    (void)arg;
    int n = 0;
    for (int i = 0; i < 10; i++)
        n += getpid() > 0;
    return (void *)(long)n;
}

static int through_dlsym(void)
{
    pid_t (*fp)(void) = (pid_t (*)(void))dlsym(RTLD_DEFAULT, "getpid");
    return fp && fp() > 0 && fp() > 0;
}

int main(void)
{
    int r = counted();
    r += escape_sort();
    r += after_jump();
    pthread_t th[3];
    for (int i = 0; i < 3; i++)
        pthread_create(&th[i], NULL, worker, NULL);
    for (int i = 0; i < 3; i++) {
        void *v;
        pthread_join(th[i], &v);
        r += (int)(long)v;
    }
    r += through_dlsym();
    printf("r=%d\n", r);
    return 0;
}
