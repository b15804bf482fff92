/*
 * The definition a wrapper of the tracer's stands in front of.  Usually
 * dlsym(RTLD_NEXT) finds it; but a library the program loads with
 * dlopen(RTLD_LOCAL), say a C++ plugin in a C program, brings libstdc++
 * and libgcc_s in a scope of their own that RTLD_NEXT does not search,
 * while the plugin's own references still bind to the tracer's wrappers
 * (the global scope comes first).  Then every loaded object is asked in
 * turn, in load order, skipping the tracer's own.
 */
#include <dlfcn.h>
#include <link.h>
#include <string.h>

#include "preload/tracer.h"

struct search {
    const char *name;
    const void *own_base;
    void *found;
};

static int ask_object(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct search *s = arg;
    const char *path = info->dlpi_name;
    if (!path || !*path)
        return 0;  /* the executable: its handle would search globally */
    void *h = dlopen(path, RTLD_LAZY | RTLD_NOLOAD);
    if (!h)
        return 0;
    void *p = dlsym(h, s->name);
    dlclose(h);
    Dl_info where;
    if (!p || !dladdr(p, &where) || where.dli_fbase == s->own_base)
        return 0;
    s->found = p;
    return 1;
}

void *ct_next_definition(const char *name)
{
    void *p = dlsym(RTLD_NEXT, name);
    if (p)
        return p;
    Dl_info own;
    if (!dladdr((void *)ct_next_definition, &own))
        return NULL;
    struct search s = {name, own.dli_fbase, NULL};
    dl_iterate_phdr(ask_object, &s);
    return s.found;
}
