/*
 * Unwinders must never meet the library-call trampoline: it has no unwind
 * information, so a C++ exception (or pthread_exit's forced unwind, or
 * backtrace()) would stop at it.  Every entry into the unwinder puts the
 * real return addresses back first (ct_plt_disarm).  A catch
 * (__cxa_begin_catch, jump.c) re-arms the library calls still running
 * above it and closes those it left (ct_plt_rearm); a library call that returns while disarmed gets its
 * exit when a later event finds it gone.
 *
 * Each wrapper calls the next definition (libgcc_s, or libunwind's), so
 * exceptions work as they did without the tracer.
 */
#include <dlfcn.h>
#include <link.h>
#include <string.h>
#include <pthread.h>
#include <stdlib.h>
#include <unwind.h>

#include "plt.h"
#include "tracer.h"

#define NEXT(var, name)                                                    \
    do {                                                                   \
        if (!var)                                                          \
            var = (__typeof__(var))dlsym(RTLD_NEXT, name);                 \
        if (!var)                                                          \
            missing(name);                                                 \
    } while (0)

static void __attribute__((noreturn)) missing(const char *name)
{
    ct_message("calltrace: %s: no definition after the tracer's", name);
    abort();
}

CT_API _Unwind_Reason_Code _Unwind_RaiseException(struct _Unwind_Exception *e);
CT_API _Unwind_Reason_Code
_Unwind_Resume_or_Rethrow(struct _Unwind_Exception *e);
CT_API void _Unwind_Resume(struct _Unwind_Exception *e);
CT_API _Unwind_Reason_Code _Unwind_ForcedUnwind(struct _Unwind_Exception *e,
                                                _Unwind_Stop_Fn stop,
                                                void *arg);
CT_API _Unwind_Reason_Code _Unwind_Backtrace(_Unwind_Trace_Fn fn, void *arg);
CT_API void pthread_exit(void *ret);

CT_API _Unwind_Reason_Code _Unwind_RaiseException(struct _Unwind_Exception *e)
{
    static _Unwind_Reason_Code (*next)(struct _Unwind_Exception *);
    NEXT(next, "_Unwind_RaiseException");
    ct_plt_disarm();
    return next(e);
}

CT_API _Unwind_Reason_Code
_Unwind_Resume_or_Rethrow(struct _Unwind_Exception *e)
{
    static _Unwind_Reason_Code (*next)(struct _Unwind_Exception *);
    NEXT(next, "_Unwind_Resume_or_Rethrow");
    ct_plt_disarm();
    return next(e);
}

CT_API void _Unwind_Resume(struct _Unwind_Exception *e)
{
    static void (*next)(struct _Unwind_Exception *);
    NEXT(next, "_Unwind_Resume");
    ct_plt_disarm();
    next(e);
    __builtin_unreachable();
}

CT_API _Unwind_Reason_Code _Unwind_ForcedUnwind(struct _Unwind_Exception *e,
                                                _Unwind_Stop_Fn stop,
                                                void *arg)
{
    static _Unwind_Reason_Code (*next)(struct _Unwind_Exception *,
                                       _Unwind_Stop_Fn, void *);
    NEXT(next, "_Unwind_ForcedUnwind");
    ct_plt_disarm();
    return next(e, stop, arg);
}

/* backtrace() and friends: walk the real stack, then carry on recording. */
CT_API _Unwind_Reason_Code _Unwind_Backtrace(_Unwind_Trace_Fn fn, void *arg)
{
    static _Unwind_Reason_Code (*next)(_Unwind_Trace_Fn, void *);
    NEXT(next, "_Unwind_Backtrace");
    ct_plt_disarm();
    _Unwind_Reason_Code rc = next(fn, arg);
    ct_plt_rearm((uintptr_t)__builtin_frame_address(0));
    return rc;
}

/* glibc unwinds the thread through a libgcc_s it opens itself, so the
 * _Unwind_ForcedUnwind above is not seen: disarm here. */
CT_API void pthread_exit(void *ret)
{
    static void (*next)(void *);
    NEXT(next, "pthread_exit");
    ct_plt_disarm();
    next(ret);
    __builtin_unreachable();
}

/*
 * libgcc_s's own lookups of unwind information (plt.c points its GOT slots
 * here): the first one of every walk comes before the walk reaches any
 * frame of the program's, so the trampoline is never met, whoever called
 * the unwinder (glibc cancels a thread and runs pthread_exit through a
 * libgcc_s it calls by pointers, which the wrappers above never see).
 * Library calls disarmed by a walk that is not an exception caught later
 * get their exits when a later event finds them gone.
 */
struct dl_find_object;
typedef int (*find_object_fn)(void *, struct dl_find_object *);
typedef int (*iterate_phdr_fn)(int (*)(struct dl_phdr_info *, size_t, void *),
                               void *);
static find_object_fn real_find_object;
static iterate_phdr_fn real_iterate_phdr;

static int unwinder_find_object(void *pc, struct dl_find_object *out)
{
    ct_plt_disarm();
    return real_find_object(pc, out);
}

static int unwinder_iterate_phdr(int (*cb)(struct dl_phdr_info *, size_t,
                                           void *),
                                 void *arg)
{
    ct_plt_disarm();
    return real_iterate_phdr(cb, arg);
}

uintptr_t ct_plt_unwinder_hook_for(const char *name)
{
    if (!name)
        return 0;
    if (strcmp(name, "_dl_find_object") == 0)
        return (uintptr_t)unwinder_find_object;
    if (strcmp(name, "dl_iterate_phdr") == 0)
        return (uintptr_t)unwinder_iterate_phdr;
    return 0;
}

void ct_plt_unwinder_next(const char *name, uintptr_t real)
{
    /* Bound at load in libgcc_s (RELRO); a lazy slot would point at its
     * PLT, which resolves and calls the same function. */
    if (strcmp(name, "_dl_find_object") == 0)
        real_find_object = (find_object_fn)real;
    else
        real_iterate_phdr = (iterate_phdr_fn)real;
}
