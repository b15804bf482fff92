/*
 * Wrappers around libc functions that end the process image or load code,
 * so the trace is finalized before exec and _exit, and a MAPS block follows
 * every dlopen.  Each calls the next definition (RTLD_NEXT) and keeps errno
 * as that left it.
 *
 * The execl* forms are rebuilt on execv*: libc's own execl calls its
 * internal execve, which no wrapper sees.  The environment a child gets is
 * wrap_spawn.c's.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <unistd.h>

#include "preload/args/args.h"
#include "preload/filters/filter.h"
#include "preload/libcalls/plt.h"
#include "preload/patch/patch.h"
#include "preload/sampling/sample.h"
#include "preload/tracer.h"
#include "preload/wrap/wrap_spawn.h"

extern char **environ;

#define NEXT(name, type) ((type)dlsym(RTLD_NEXT, name))

typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*fexecve_fn)(int, char *const[], char *const[]);
typedef void (*exit_fn)(int);
typedef void *(*dlopen_fn)(const char *, int);
typedef void *(*dlmopen_fn)(Lmid_t, const char *, int);

CT_API int execve(const char *path, char *const argv[], char *const envp[]);
CT_API int execv(const char *path, char *const argv[]);
CT_API int execvp(const char *file, char *const argv[]);
CT_API int execvpe(const char *file, char *const argv[], char *const envp[]);
CT_API int fexecve(int fd, char *const argv[], char *const envp[]);
CT_API int execl(const char *path, const char *arg, ...);
CT_API int execlp(const char *file, const char *arg, ...);
CT_API int execle(const char *path, const char *arg, ...);
CT_API void _exit(int status);
CT_API void _Exit(int status);
CT_API void *dlopen(const char *file, int mode);
CT_API void *dlmopen(Lmid_t lmid, const char *file, int mode);

static int exec_result(int rc)
{
    int saved = errno;
    ct_exec_failed();
    errno = saved;
    return rc;
}

/*
 * Every exec passes an explicit environment to the next function, with
 * this library and the CALLTRACE_* settings added when missing
 * (wrap_spawn.c); execv and execvp pass `environ` as libc's own do.
 */
static int exec_env(const char *path, char *const argv[], char *const envp[])
{
    execve_fn next = NEXT("execve", execve_fn);
    CT_CHILD_ENV(envp);
    ct_exec_prepare();
    return exec_result(next(path, argv, envp));
}

static int execp_env(const char *file, char *const argv[], char *const envp[])
{
    execve_fn next = NEXT("execvpe", execve_fn);
    CT_CHILD_ENV(envp);
    ct_exec_prepare();
    return exec_result(next(file, argv, envp));
}

CT_API int execve(const char *path, char *const argv[], char *const envp[])
{
    return exec_env(path, argv, envp);
}

CT_API int execv(const char *path, char *const argv[])
{
    return exec_env(path, argv, environ);
}

CT_API int execvp(const char *file, char *const argv[])
{
    return execp_env(file, argv, environ);
}

CT_API int execvpe(const char *file, char *const argv[], char *const envp[])
{
    return execp_env(file, argv, envp);
}

CT_API int fexecve(int fd, char *const argv[], char *const envp[])
{
    fexecve_fn next = NEXT("fexecve", fexecve_fn);
    CT_CHILD_ENV(envp);
    ct_exec_prepare();
    return exec_result(next(fd, argv, envp));
}

/* Counts the arguments of an execl* call, the terminating NULL included. */
static size_t count_args(const char *arg, va_list ap)
{
    size_t n = 1;
    if (arg)
        while (va_arg(ap, const char *))
            n++;
    return n + 1;
}

static void collect_args(const char **argv, const char *arg, va_list ap)
{
    size_t i = 0;
    argv[i++] = arg;
    if (arg)
        while ((argv[i++] = va_arg(ap, const char *)) != NULL)
            ;
    else
        argv[i] = NULL;
}

/*
 * The execl* calls rebuild their argument list as an array on the stack
 * and go through the execv* wrappers above.  Leaves `ap` positioned after
 * the terminating NULL (execle's envp follows) and still started.
 */
#define EXECL_ARGV(argv, arg)                                              \
    va_list ap;                                                            \
    va_start(ap, arg);                                                     \
    size_t argc_ = count_args(arg, ap);                                    \
    va_end(ap);                                                            \
    const char *argv[argc_];                                               \
    va_start(ap, arg);                                                     \
    collect_args(argv, arg, ap)

CT_API int execl(const char *path, const char *arg, ...)
{
    EXECL_ARGV(argv, arg);
    va_end(ap);
    return exec_env(path, (char *const *)argv, environ);
}

CT_API int execlp(const char *file, const char *arg, ...)
{
    EXECL_ARGV(argv, arg);
    va_end(ap);
    return execp_env(file, (char *const *)argv, environ);
}

CT_API int execle(const char *path, const char *arg, ...)
{
    EXECL_ARGV(argv, arg);
    char *const *envp = va_arg(ap, char *const *);
    va_end(ap);
    return exec_env(path, (char *const *)argv, envp);
}

CT_API void _exit(int status)
{
    exit_fn next = NEXT("_exit", exit_fn);
    ct_process_finish();
    next(status);
    __builtin_unreachable();
}

CT_API void _Exit(int status)
{
    exit_fn next = NEXT("_Exit", exit_fn);
    ct_process_finish();
    next(status);
    __builtin_unreachable();
}

/*
 * A new object's functions can only be named if its load address is in the
 * trace, so each successful dlopen writes a MAPS block.  The sampler's
 * loader guard (sample.c) brackets the call: a sample taken meanwhile must
 * not walk the stack into the loader's locks, and fork waits for it.
 */
static void after_load(void *handle, int guarded)
{
    if (handle && guarded && ct_proc.started == 2) {
        ct_maps_write();
        /* before the library calls' and the filters' look at the object */
        ct_patch_after_load();
        ct_plt_after_load();
        ct_clock_hooks_point();  /* before the argument rules' */
        ct_args_site_after_load();
        ct_filter_after_dlopen();
    }
}

/* Whether the loader has name already: dlopen's when lmid is NULL, else
 * the namespace *lmid (nothing is loaded in a new one). */
static int loaded_already(const char *name, void *lmid)
{
    void *h;
    if (!lmid)
        h = NEXT("dlopen", dlopen_fn)(name, RTLD_LAZY | RTLD_NOLOAD);
    else if (*(Lmid_t *)lmid == LM_ID_NEWLM)
        return 0;
    else
        h = NEXT("dlmopen", dlmopen_fn)(*(Lmid_t *)lmid, name,
                                        RTLD_LAZY | RTLD_NOLOAD);
    if (h)
        dlclose(h);
    return h != NULL;
}

/* The loader searches a bare name in its caller's own RUNPATH: the
 * program's, not the tracer's (runpath.c). */
CT_API void *dlopen(const char *file, int mode)
{
    dlopen_fn next = NEXT("dlopen", dlopen_fn);
    char *found = ct_runpath_resolve(__builtin_return_address(0), file,
                                     loaded_already, NULL);
    int guarded = ct_loader_enter();
    void *h = next(found ? found : file, mode);
    ct_runpath_free(found);
    int saved = errno;
    after_load(h, guarded);
    if (guarded)
        ct_loader_leave();
    errno = saved;
    return h;
}

CT_API void *dlmopen(Lmid_t lmid, const char *file, int mode)
{
    dlmopen_fn next = NEXT("dlmopen", dlmopen_fn);
    char *found = ct_runpath_resolve(__builtin_return_address(0), file,
                                     loaded_already, &lmid);
    int guarded = ct_loader_enter();
    void *h = next(lmid, found ? found : file, mode);
    ct_runpath_free(found);
    int saved = errno;
    after_load(h, guarded);
    if (guarded)
        ct_loader_leave();
    errno = saved;
    return h;
}
