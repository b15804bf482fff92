/* Calls into shared libraries built with patchable entries, known by
 * construction (tests/e2e/patch_libs.sh): lib_entry(3) twice through the
 * library linked at start (lib_entry=2, lib_leaf=6); then twice the
 * library at argv[1] is dlopen'ed, its dl_entry called and the library
 * closed again, with n = 4 and 5 (dl_entry=2, dl_leaf=9): the second
 * load may reuse the first one's addresses.  Prints the sums. */
#include <dlfcn.h>
#include <stdio.h>

int lib_entry(int n);

int main(int argc, char **argv)
{
    long t = lib_entry(3);
    t += lib_entry(3);
    for (int n = 4; n <= 5 && argc > 1; n++) {
        void *h = dlopen(argv[1], RTLD_NOW);
        if (!h) {
            fprintf(stderr, "%s\n", dlerror());
            return 1;
        }
        int (*entry)(int) = (int (*)(int))dlsym(h, "dl_entry");
        t += entry ? entry(n) : -1000;
        dlclose(h);
    }
    printf("%ld\n", t);
    return 0;
}
