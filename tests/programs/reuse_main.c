/*
 * dlopen plugin A, call it, dlclose it, dlopen plugin B (usually at the
 * address A had), call it.  Prints whether the two entries shared an
 * address, so the test can tell a reuse from a different placement.
 * Calls: alpha_entry 1, alpha_helper 3; beta_entry 1, beta_helper 5.
 */
#include <dlfcn.h>
#include <stdio.h>

typedef int (*entry_fn)(int);

static entry_fn load(const char *path, const char *sym, void **h)
{
    *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!*h) {
        fprintf(stderr, "dlopen %s: %s\n", path, dlerror());
        return NULL;
    }
    return (entry_fn)dlsym(*h, sym);
}

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    void *ha, *hb;
    entry_fn a = load(argv[1], "alpha_entry", &ha);
    if (!a)
        return 1;
    int sa = a(3);
    dlclose(ha);
    entry_fn b = load(argv[2], "beta_entry", &hb);
    if (!b)
        return 1;
    int sb = b(5);
    printf("%s %d %d\n", (void *)a == (void *)b ? "same" : "different", sa, sb);
    dlclose(hb);
    return 0;
}
