/*
 * For the dump e2e tests: a PIE program with a static function, a global
 * one, calls into a linked shared library (lib_entry) and into a plugin
 * opened with dlopen (plugin_run), and one user event.
 * Call counts: main 1, compute 3, add_twice 6, lib_entry 1, lib_square 4,
 * plugin_run 1, plugin_helper 1.
 */
#include <dlfcn.h>
#include <stdio.h>

#include "calltrace.h"

int lib_entry(int n);

static int add_twice(int a)
{
    return a + a;
}

int compute(int x)
{
    return add_twice(x) + add_twice(x + 1);
}

int main(int argc, char **argv)
{
    int s = 0;
    for (int i = 0; i < 3; i++)
        s += compute(i);
    s += lib_entry(4);
    calltrace_event("loaded %d", s);
    if (argc > 1) {
        void *h = dlopen(argv[1], RTLD_NOW);
        if (!h) {
            fprintf(stderr, "dlopen: %s\n", dlerror());
            return 1;
        }
        int (*run)(int) = (int (*)(int))dlsym(h, "plugin_run");
        s += run(5);
        dlclose(h);
    }
    printf("%d\n", s);
    return 0;
}
