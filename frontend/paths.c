/*
 * Where the other parts are: next to the running executable, never at a
 * path fixed at build time, so that an installed tree can be moved (and a
 * DESTDIR staging tree tested) as it is.
 *
 *   installed:  PREFIX/bin/calltrace, PREFIX/bin/calltrace-report,
 *               PREFIX/lib/calltrace/libcalltrace.so, PREFIX/include
 *   build tree: BUILD/calltrace, BUILD/calltrace-report,
 *               BUILD/libcalltrace.so, BUILD/../include
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "frontend/frontend.h"

/* The folder of the running executable, without a trailing slash. */
static const char *self_dir(void)
{
    static char dir[PATH_MAX];
    if (dir[0])
        return dir;
    ssize_t n = readlink("/proc/self/exe", dir, sizeof dir - 1);
    if (n <= 0) {
        ct_fe_error("cannot find where calltrace is installed "
                    "(/proc/self/exe: %m)");
        exit(CT_FE_FAILED);
    }
    dir[n] = 0;
    char *slash = strrchr(dir, '/');
    if (slash && slash != dir)
        *slash = 0;
    return dir;
}

/* The first candidate (relative to the executable's folder) that exists
 * and passes access(mode), made canonical. */
static char *first_found(const char *const rel[], int mode)
{
    const char *dir = self_dir();
    for (size_t i = 0; rel[i]; i++) {
        char path[PATH_MAX];
        if (snprintf(path, sizeof path, "%s/%s", dir, rel[i]) >=
            (int)sizeof path)
            continue;
        if (access(path, mode) == 0)
            return realpath(path, NULL);
    }
    return NULL;
}

char *ct_fe_find_library(void)
{
    static const char *const rel[] = {
        "../lib/calltrace/libcalltrace.so", "../lib/libcalltrace.so",
        "libcalltrace.so", NULL,
    };
    char *p = first_found(rel, R_OK);
    if (!p)
        ct_fe_error("cannot find libcalltrace.so next to %s (looked in "
                    "../lib/calltrace, ../lib and the same folder)",
                    self_dir());
    return p;
}

char *ct_fe_find_analyzer(void)
{
    static const char *const rel[] = { "calltrace-report", NULL };
    char *p = first_found(rel, X_OK);
    if (!p)
        ct_fe_error("cannot find calltrace-report next to calltrace in %s",
                    self_dir());
    return p;
}

char *ct_fe_find_include(void)
{
    static const char *const rel[] = { "../include/calltrace.h", NULL };
    char *p = first_found(rel, R_OK);
    if (!p) {
        ct_fe_error("cannot find calltrace.h in %s/../include", self_dir());
        return NULL;
    }
    *strrchr(p, '/') = 0;
    return p;
}

char *ct_fe_which(const char *prog)
{
    if (strchr(prog, '/'))
        return access(prog, F_OK) == 0 ? strdup(prog) : NULL;
    const char *path = getenv("PATH");
    if (!path)
        path = "/usr/local/bin:/usr/bin:/bin";
    while (*path) {
        const char *colon = strchr(path, ':');
        size_t len = colon ? (size_t)(colon - path) : strlen(path);
        char cand[PATH_MAX];
        if (snprintf(cand, sizeof cand, "%.*s%s%s", (int)len, path,
                     len ? "/" : "", prog) < (int)sizeof cand &&
            access(cand, X_OK) == 0)
            return strdup(cand);
        if (!colon)
            break;
        path = colon + 1;
    }
    return NULL;
}
