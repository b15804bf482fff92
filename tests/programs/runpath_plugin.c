/* A plugin for runpath_main.c: returns VALUE, plus what the sub-plugin it
 * opens by bare name (through its own RUNPATH) returns. */
#include <dlfcn.h>
#include <stdio.h>

__attribute__((noinline)) static int own(void) { return VALUE; }

int plugin(const char *sub)
{
    int r = own();
    if (sub) {
        void *h = dlopen(sub, RTLD_NOW);
        if (!h) {
            printf("sub: %s\n", dlerror());
            return -1;
        }
        int (*leaf)(void) = (int (*)(void))dlsym(h, "leaf");
        r += leaf ? leaf() : -1000;
    }
    return r;
}

int leaf(void) { return VALUE; }
