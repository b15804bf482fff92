/*
 * Stress for the sampling mode's signal handler: 16 threads that malloc and
 * free, dlopen and dlclose a library, walk the loaded objects and fork,
 * while SIGPROF interrupts them anywhere, loader and malloc locks included.
 * Work is counted in iterations so the output is the same on every run,
 * with or without the preload.
 *   sample_stress LIBRARY [ITERATIONS] [THREADS]
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *library;
static unsigned long iterations = 300;

struct result {
    unsigned seed;
    unsigned long sum;
    unsigned long forks;
    int failed;
};

static int count_object(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)info;
    (void)size;
    ++*(unsigned long *)data;
    return 0;
}

static void *worker(void *arg)
{
    struct result *r = arg;
    unsigned seed = r->seed;
    for (unsigned long i = 0; i < iterations; i++) {
        void *blocks[64];
        for (int k = 0; k < 64; k++) {
            size_t n = 16 + (size_t)(rand_r(&seed) % 4096);
            blocks[k] = malloc(n);
            memset(blocks[k], (int)k, n);
        }
        for (int k = 0; k < 64; k++)
            free(blocks[k]);

        void *h = dlopen(library, RTLD_NOW | RTLD_LOCAL);
        if (!h) {
            r->failed = 1;
            break;
        }
        void (*spin)(unsigned long) =
            (void (*)(unsigned long))dlsym(h, "lib_spin");
        if (!spin) {
            r->failed = 1;
            break;
        }
        spin(2000);
        dlclose(h);

        unsigned long objects = 0;
        dl_iterate_phdr(count_object, &objects);
        r->sum += i % 7;

        if (i % 16 == 0) {
            pid_t pid = fork();
            if (pid == 0) {
                void *p = malloc(100);
                free(p);
                /* Not dlopen: glibc's loader lock is not reset in the
                 * child of a threaded fork, dlopen there can hang. */
                _exit((int)(i % 100));
            }
            int status;
            if (pid < 0 || waitpid(pid, &status, 0) != pid ||
                !WIFEXITED(status) || WEXITSTATUS(status) != (int)(i % 100))
                r->failed = 1;
            else
                r->forks++;
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s LIBRARY [ITERATIONS] [THREADS]\n", argv[0]);
        return 2;
    }
    library = argv[1];
    if (argc > 2)
        iterations = strtoul(argv[2], NULL, 10);
    int nthreads = argc > 3 ? atoi(argv[3]) : 16;
    if (nthreads < 1 || nthreads > 64)
        nthreads = 16;
    pthread_t threads[64];
    struct result results[64];
    memset(results, 0, sizeof results);
    for (int t = 0; t < nthreads; t++) {
        results[t].seed = (unsigned)t;
        if (pthread_create(&threads[t], NULL, worker, &results[t]) != 0) {
            fprintf(stderr, "pthread_create failed\n");
            return 2;
        }
    }
    int failed = 0;
    for (int t = 0; t < nthreads; t++) {
        pthread_join(threads[t], NULL);
        printf("thread %d: sum %lu forks %lu%s\n", t, results[t].sum,
               results[t].forks, results[t].failed ? " FAILED" : "");
        failed |= results[t].failed;
    }
    return failed ? 1 : 3;
}
