/*
 * The search the loader makes for a bare name passed to dlopen depends on
 * the caller: its DT_RUNPATH (after LD_LIBRARY_PATH), or its DT_RPATH
 * (before).  With the tracer's dlopen wrapper in between, the caller would
 * be the tracer, which has neither, and a program that finds its plugins
 * through its own RUNPATH ($ORIGIN/plugins, Debian's default for -rpath)
 * would not find them.  So the wrapper makes that part of the search
 * itself, for the program's caller, and hands the loader the path found.
 * Everything else (names already loaded, LD_LIBRARY_PATH, the cache, the
 * default folders) is left to the loader, which searches them the same for
 * any caller.
 */
#include <ctype.h>
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "preload/base/scratch.h"
#include "preload/tracer.h"

struct search_path {
    const char *runpath, *rpath;
};

static uintptr_t dyn_addr(const struct link_map *lm, uintptr_t v)
{
    /* The loader relocates these in place in most objects, not in all. */
    return v < lm->l_addr ? v + lm->l_addr : v;
}

static struct search_path search_path_of(const struct link_map *lm)
{
    struct search_path sp = {NULL, NULL};
    const char *strtab = NULL;
    uintptr_t runpath = 0, rpath = 0;
    int have_runpath = 0, have_rpath = 0;
    for (const ElfW(Dyn) *d = lm->l_ld; d && d->d_tag != DT_NULL; d++) {
        if (d->d_tag == DT_STRTAB)
            strtab = (const char *)dyn_addr(lm, d->d_un.d_ptr);
        else if (d->d_tag == DT_RUNPATH)
            runpath = d->d_un.d_val, have_runpath = 1;
        else if (d->d_tag == DT_RPATH)
            rpath = d->d_un.d_val, have_rpath = 1;
    }
    if (!strtab)
        return sp;
    if (have_runpath)
        sp.runpath = strtab + runpath;
    else if (have_rpath)
        sp.rpath = strtab + rpath;
    return sp;
}

/* The search's buffers, from memory of the tracer's own: on the stack they
 * would overflow a thread started with the smallest stack (16 KiB) that
 * calls dlopen. */
struct buffers {
    char exe[PATH_MAX];
    char origin[PATH_MAX];
    char found[PATH_MAX];
};

/* The folder of the caller's object: $ORIGIN. */
static int origin_of(const struct link_map *lm, char *path, char *dst,
                     size_t cap)
{
    const char *p = lm->l_name;
    if (!p || !*p) {
        ssize_t n = readlink("/proc/self/exe", path, PATH_MAX - 1);
        if (n <= 0)
            return -1;
        path[n] = '\0';
        p = path;
    }
    const char *slash = strrchr(p, '/');
    if (!slash)
        return -1;
    size_t len = (size_t)(slash - p);
    if (len == 0)
        len = 1;  /* "/" */
    if (len >= cap)
        return -1;
    memcpy(dst, p, len);
    dst[len] = '\0';
    return 0;
}

/* The length of the dynamic string token $NAME or ${NAME} at s, as the
 * loader reads it (the name must not run on into more identifier), or 0. */
static size_t token(const char *s, size_t len, const char *name)
{
    size_t n = strlen(name);
    if (len >= n + 3 && s[1] == '{' && memcmp(s + 2, name, n) == 0 &&
        s[n + 2] == '}')
        return n + 3;
    if (len >= n + 1 && memcmp(s + 1, name, n) == 0 &&
        (len == n + 1 ||
         !(isalnum((unsigned char)s[n + 1]) || s[n + 1] == '_')))
        return n + 1;
    return 0;
}

int ct_runpath_entry(const char *entry, size_t len, const char *origin,
                     const char *name, char *out, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < len;) {
        size_t skip = 0;
        const char *repl = NULL;
        if (entry[i] == '$') {
            if ((skip = token(entry + i, len - i, "ORIGIN")) != 0)
                repl = origin;
            else if (token(entry + i, len - i, "PLATFORM") ||
                     token(entry + i, len - i, "LIB"))
                return -1;  /* known, but not expanded here: left out */
            if (skip && (!repl || !*repl))
                return -1;
        }
        if (repl) {
            size_t t = strlen(repl);
            if (n + t >= cap)
                return -1;
            memcpy(out + n, repl, t);
            n += t;
            i += skip;
        } else {
            /* Anything else, an unknown $NAME too, as written. */
            if (n + 1 >= cap)
                return -1;
            out[n++] = entry[i++];
        }
    }
    if (n == 0)
        out[n++] = '.';  /* an empty entry is the current folder */
    size_t nl = strlen(name);
    if (n + 1 + nl >= cap)
        return -1;
    out[n++] = '/';
    memcpy(out + n, name, nl + 1);
    return 0;
}

/* The loader takes a file only if it is an object for this machine. */
static int loadable(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ElfW(Ehdr) eh;
    ssize_t n = read(fd, &eh, sizeof eh);
    close(fd);
    return n == (ssize_t)sizeof eh && memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 &&
           eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_machine == EM_X86_64 &&
           (eh.e_type == ET_DYN || eh.e_type == ET_EXEC);
}

/* The first folder of path (a colon-separated list) that holds a loadable
 * name, into out. */
static int search(const char *path, const char *origin, const char *name,
                  char *out, size_t cap)
{
    for (const char *p = path; p && *p;) {
        const char *end = strchr(p, ':');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (ct_runpath_entry(p, len, origin, name, out, cap) == 0 && loadable(out))
            return 1;
        p = end ? end + 1 : NULL;
    }
    return 0;
}

static char *resolve(const void *caller, const char *name,
                     int (*loaded)(const char *name, void *arg), void *arg)
{
    if (!name || !*name || strchr(name, '/'))
        return NULL;
    Dl_info info;
    struct link_map *lm = NULL;
    if (!dladdr1(caller, &info, (void **)&lm, RTLD_DL_LINKMAP) || !lm)
        return NULL;
    struct search_path sp = search_path_of(lm);
    if (!sp.runpath && !sp.rpath)
        return NULL;
    /* A name the loader already has (a soname, a name it was opened by)
     * is found before any folder is searched. */
    if (loaded(name, arg))
        return NULL;
    struct buffers *b = ct_scratch_alloc(sizeof *b);
    if (!b)
        return NULL;
    if (origin_of(lm, b->exe, b->origin, sizeof b->origin) != 0)
        b->origin[0] = '\0';
    int found;
    if (sp.runpath) {
        /* LD_LIBRARY_PATH comes first: the loader finds the name there for
         * any caller.  (The loader reads it at start; so does the program
         * that did not change it since.) */
        const char *llp = getenv("LD_LIBRARY_PATH");
        found = !(llp && search(llp, b->origin, name, b->found,
                                sizeof b->found)) &&
                search(sp.runpath, b->origin, name, b->found, sizeof b->found);
    } else {
        found = search(sp.rpath, b->origin, name, b->found, sizeof b->found);
    }
    if (!found) {
        ct_scratch_free(b, sizeof *b);
        return NULL;
    }
    return b->found;
}

char *ct_runpath_resolve(const void *caller, const char *name,
                         int (*loaded)(const char *name, void *arg),
                         void *arg)
{
    int saved = errno;
    char *found = resolve(caller, name, loaded, arg);
    errno = saved;
    return found;
}

/* Through raw system calls (scratch.c): errno stays as the loader left it. */
void ct_runpath_free(char *path)
{
    if (path)
        ct_scratch_free(path - offsetof(struct buffers, found),
                        sizeof(struct buffers));
}
