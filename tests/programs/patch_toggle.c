/* Entries patched and unpatched while the program runs (patch_runtime.sh),
 * built with `calltrace cflags --patchable`.  Lines on stdin:
 *   run X N   calls hot_a N times, then hot_b N times; prints "done X"
 *   spin      two threads call hot_c (which calls hot_d) until "stop"
 *   stop      ends them; prints "stopped"
 *   exit      prints the calls made of each function, and ends
 * It prints "ready" first. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static volatile int sink;
static volatile int spinning;
static long made_a, made_b, made_c[2];

__attribute__((noinline)) void hot_a(void) { sink++; made_a++; }
__attribute__((noinline)) void hot_b(void) { sink++; made_b++; }
__attribute__((noinline)) void hot_d(void) { sink++; }
__attribute__((noinline)) void hot_c(long *made)
{
    hot_d();
    (*made)++;
}

static void *spin(void *arg)
{
    long *made = arg;
    while (__atomic_load_n(&spinning, __ATOMIC_RELAXED))
        hot_c(made);
    return NULL;
}

int main(void)
{
    char line[128], tag[32];
    long n;
    pthread_t th[2];
    printf("ready\n");
    fflush(stdout);
    while (fgets(line, sizeof line, stdin)) {
        if (sscanf(line, "run %31s %ld", tag, &n) == 2) {
            for (long i = 0; i < n; i++)
                hot_a();
            for (long i = 0; i < n; i++)
                hot_b();
            printf("done %s\n", tag);
        } else if (strcmp(line, "spin\n") == 0) {
            spinning = 1;
            for (int i = 0; i < 2; i++)
                pthread_create(&th[i], NULL, spin, &made_c[i]);
            printf("spinning\n");
        } else if (strcmp(line, "stop\n") == 0) {
            spinning = 0;
            for (int i = 0; i < 2; i++)
                pthread_join(th[i], NULL);
            printf("stopped\n");
        } else if (strcmp(line, "exit\n") == 0) {
            break;
        }
        fflush(stdout);
    }
    printf("made hot_a %ld hot_b %ld hot_c %s\n", made_a, made_b,
           made_c[0] + made_c[1] > 0 ? "some" : "none");
    return 0;
}
