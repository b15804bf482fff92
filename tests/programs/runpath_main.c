/* dlopen by bare names, found through the caller's own search path
 * (tests/e2e/trace_runpath.sh): argv[1] from the program (its RUNPATH or
 * RPATH), then, through that plugin, argv[2] from the plugin's RUNPATH.
 * Prints what each returns, or the loader's error. */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    void *h = dlopen(argv[1], RTLD_NOW);
    if (!h) {
        printf("dlopen: %s\n", dlerror());
        return 1;
    }
    int (*plugin)(const char *) = (int (*)(const char *))dlsym(h, "plugin");
    printf("plugin=%d\n", plugin ? plugin(argc > 2 ? argv[2] : NULL) : -1);
    return 0;
}
