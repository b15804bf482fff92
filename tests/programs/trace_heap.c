/*
 * The program's malloc heap, as the program sees it: at main, and after a
 * dlopen of an instrumented library (which the tracer patches and names in
 * a MAPS block).  With the tracer the figures must be the same as without:
 * its set-up work takes no memory from the program's heap.
 */
#include <dlfcn.h>
#include <malloc.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void show(const char *when)
{
    struct mallinfo2 m = mallinfo2();
    char line[160];
    int n = snprintf(line, sizeof line,
                     "%s: arena=%zu in_use=%zu chunks=%zu mmapped=%zu\n", when,
                     m.arena, m.uordblks, m.ordblks, m.hblks);
    if (write(1, line, (size_t)n) != n)
        _exit(3);
}

static int leaf(int x) { return x + 1; }

int main(int argc, char **argv)
{
    show("main");
    int r = leaf(argc);
    if (argc > 1) {
        void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
        if (!h)
            return 2;
        int (*plugin)(int) = (int (*)(int))dlsym(h, "plugin");
        r += plugin ? plugin(r) : 0;
        show("dlopen");
    }
    return r > 0 ? 0 : 1;
}
