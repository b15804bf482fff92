/* Loads argv[1] with RTLD_LOCAL and calls its plugin(10). */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "%s\n", dlerror());
        return 2;
    }
    int (*plugin)(int) = (int (*)(int))dlsym(h, "plugin");
    if (!plugin)
        return 2;
    printf("plugin=%d\n", plugin(10));
    return 0;
}
