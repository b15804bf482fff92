/*
 * Known profile for the sampling mode: about 70% of the CPU time in
 * spin_seventy, 30% in spin_thirty, set by iteration counts (not by time),
 * so the split holds whatever the machine's speed.  Built without
 * instrumentation: sampling needs none.  Optional argument: rounds.
 * With a shared library (SAMPLE_LIB=path), a third of spin_thirty's work
 * is done by lib_spin in that library, reached through dlopen.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

static volatile unsigned long sink;

__attribute__((noinline)) void spin_seventy(unsigned long n)
{
    unsigned long x = sink;
    for (unsigned long i = 0; i < n; i++)
        x = x * 6364136223846793005ul + 1442695040888963407ul;
    sink = x;
}

__attribute__((noinline)) void spin_thirty(unsigned long n)
{
    unsigned long x = sink;
    for (unsigned long i = 0; i < n; i++)
        x = x * 6364136223846793005ul + 1442695040888963407ul;
    sink = x;
}

int main(int argc, char **argv)
{
    unsigned long rounds = argc > 1 ? strtoul(argv[1], NULL, 10) : 100;
    const unsigned long unit = 100000;  /* ~0.1 ms of work at 1 ns/iter */
    void (*lib_spin)(unsigned long) = NULL;
    const char *lib = getenv("SAMPLE_LIB");
    if (lib && *lib) {
        void *h = dlopen(lib, RTLD_NOW);
        if (!h) {
            fprintf(stderr, "%s\n", dlerror());
            return 2;
        }
        lib_spin = (void (*)(unsigned long))dlsym(h, "lib_spin");
    }
    for (unsigned long r = 0; r < rounds; r++) {
        spin_seventy(70 * unit);
        if (lib_spin) {
            spin_thirty(20 * unit);
            lib_spin(10 * unit);
        } else {
            spin_thirty(30 * unit);
        }
    }
    printf("done %lu rounds\n", rounds);
    return 0;
}
