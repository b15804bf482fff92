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
 *
 * A C thread cancelled (or calling pthread_exit) under pthread_cleanup_push
 * lands, by a jump inside glibc, at the setjmp buffer the handler was
 * registered with (__pthread_register_cancel), then runs the handler:
 * the frames below that buffer (the library call the cancellation
 * interrupted) are ended when the unwinding begins, so the handler shows
 * where it runs, in the function that pushed it.
 *
 * A C++ unwinding lands at each frame with a cleanup (destructors) or a
 * handler: the personality routine sets the landing pad's address with
 * _Unwind_SetIP just before the unwinder jumps there.  The library calls
 * made from that frame or below are left at that moment, so a destructor
 * run by an exception or a cancellation shows in the frame it runs in,
 * not inside the library call the exception crossed.
 */
#include <dlfcn.h>
#include <link.h>
#include <string.h>
#include <pthread.h>
#include <stdlib.h>
#include <unwind.h>

#include "preload/libcalls/plt.h"
#include "preload/tracer.h"

#define NEXT(var, name)                                                    \
    do {                                                                   \
        if (!var)                                                          \
            var = (__typeof__(var))ct_next_definition(name);               \
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
CT_API void _Unwind_SetIP(struct _Unwind_Context *ctx, _Unwind_Ptr ip);

CT_API void pthread_exit(void *ret);
CT_API int pthread_cancel(pthread_t th);
CT_API void __pthread_register_cancel(__pthread_unwind_buf_t *buf);
CT_API void __pthread_unregister_cancel(__pthread_unwind_buf_t *buf);
CT_API void __pthread_unwind_next(__pthread_unwind_buf_t *buf);

/* --- pthread_cleanup_push buffers: where a cancellation lands -------- */

#define CANCEL_BUFS 16

/* This thread's registered buffers, innermost last; n may exceed
 * CANCEL_BUFS (those deeper are not kept, and nothing is ended for them). */
static __thread struct {
    const void *buf[CANCEL_BUFS];
    uint32_t n;
} cancel_bufs __attribute__((tls_model("initial-exec")));

/* The innermost buffer, or NULL when none is known. */
static const void *innermost_buf(void)
{
    uint32_t n = cancel_bufs.n;
    return n && n <= CANCEL_BUFS ? cancel_bufs.buf[n - 1] : NULL;
}

static void forget_buf(const void *buf)
{
    uint32_t n = cancel_bufs.n;
    if (n > CANCEL_BUFS) {
        cancel_bufs.n = n - 1;
        return;
    }
    /* Unbalanced use (a buffer left by a longjmp): drop what is above. */
    while (n > 0 && cancel_bufs.buf[n - 1] != buf)
        n--;
    if (n > 0)
        cancel_bufs.n = n - 1;
}

/* The frames below the innermost buffer are left: end them now. */
static void leaving_for_buf(void)
{
    const void *buf = innermost_buf();
    if (buf)
        ct_jump_landing(buf); /* the __jmp_buf starts the unwind buffer */
}

/* Threads another one cancelled (pthread_cancel): the next unwinding
 * that begins on one of them is the cancellation's.  A thread whose
 * cancellation never acts keeps its mark; only a stack walk of a later
 * thread with the same pthread_t, under a cleanup buffer, would then end
 * its library call early. */
#define MARKS 64
static pthread_t marked[MARKS];
static int mark_state[MARKS]; /* 0 free, 1 being written, 2 set */
static int nmarked;

static void mark(pthread_t th)
{
    for (int i = 0; i < MARKS; i++)
        if (__atomic_load_n(&mark_state[i], __ATOMIC_ACQUIRE) == 2 &&
            pthread_equal(marked[i], th))
            return;
    for (int i = 0; i < MARKS; i++) {
        int free_slot = 0;
        if (__atomic_compare_exchange_n(&mark_state[i], &free_slot, 1, 0,
                                        __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
            marked[i] = th;
            __atomic_store_n(&mark_state[i], 2, __ATOMIC_RELEASE);
            __atomic_add_fetch(&nmarked, 1, __ATOMIC_RELEASE);
            return;
        }
    }
}

static int take_mark(void)
{
    if (!__atomic_load_n(&nmarked, __ATOMIC_ACQUIRE))
        return 0;
    pthread_t me = pthread_self();
    for (int i = 0; i < MARKS; i++) {
        int set = 2;
        if (__atomic_load_n(&mark_state[i], __ATOMIC_ACQUIRE) == 2 &&
            pthread_equal(marked[i], me) &&
            __atomic_compare_exchange_n(&mark_state[i], &set, 0, 0,
                                        __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
            __atomic_sub_fetch(&nmarked, 1, __ATOMIC_RELEASE);
            return 1;
        }
    }
    return 0;
}

/* An unwinding begins on this thread: if it is a cancellation's, the
 * frames below the handler's buffer are left. */
static void unwinding(void)
{
    ct_plt_disarm();
    if (take_mark())
        leaving_for_buf();
}

/* glibc loads libgcc_s itself at a C program's first pthread_cancel or
 * pthread_exit (a dlopen inside libc, which the tracer's dlopen never
 * sees) and unwinds at once: loading it first, through the tracer's
 * dlopen, hooks its lookups (plt.c) before.  The same object, which glibc
 * would load the moment after, and never unloads. */
static void unwinder_ready(void)
{
    static int ready;
    if (__atomic_load_n(&ready, __ATOMIC_ACQUIRE) || !ct_plt_recording())
        return;
    if (!dlopen("libgcc_s.so.1", RTLD_NOW | RTLD_NOLOAD))
        dlopen("libgcc_s.so.1", RTLD_NOW);
    else
        ct_plt_after_load(); /* loaded before, maybe by libc: hook it */
    __atomic_store_n(&ready, 1, __ATOMIC_RELEASE);
}

CT_API void __pthread_register_cancel(__pthread_unwind_buf_t *buf)
{
    static void (*next)(__pthread_unwind_buf_t *);
    NEXT(next, "__pthread_register_cancel");
    if (cancel_bufs.n < CANCEL_BUFS)
        cancel_bufs.buf[cancel_bufs.n] = buf;
    cancel_bufs.n++;
    next(buf);
}

CT_API void __pthread_unregister_cancel(__pthread_unwind_buf_t *buf)
{
    static void (*next)(__pthread_unwind_buf_t *);
    NEXT(next, "__pthread_unregister_cancel");
    forget_buf(buf);
    next(buf);
}

/* After a handler: the unwinding goes on to the next buffer out. */
CT_API void __pthread_unwind_next(__pthread_unwind_buf_t *buf)
{
    static void (*next)(__pthread_unwind_buf_t *);
    NEXT(next, "__pthread_unwind_next");
    forget_buf(buf);
    leaving_for_buf();
    next(buf);
    __builtin_unreachable();
}

CT_API int pthread_cancel(pthread_t th)
{
    static int (*next)(pthread_t);
    NEXT(next, "pthread_cancel");
    unwinder_ready();
    mark(th);
    return next(th);
}

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
    unwinding();
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

/* Whether fn is libgcc_s's: what the context's CFA means below is
 * libgcc's way, not every unwinder's (LLVM's libunwind gives the landing
 * frame's own CFA). */
static int from_libgcc(void *fn)
{
    Dl_info info;
    return dladdr(fn, &info) && info.dli_fname &&
           strstr(info.dli_fname, "/libgcc_s.so");
}

/* The context libgcc gives the personality routine for the frame it lands
 * in still holds the CFA of the frame below (libgcc moves it up only after
 * the personality routine has run): the landing frame's own stack pointer
 * at the call the unwinding came back through.  Everything below it is
 * left, as at a catch (jump.c), the library call made from that frame
 * included.  Under another unwinder the library call ends, as before, at
 * the next event that finds it gone. */
CT_API void _Unwind_SetIP(struct _Unwind_Context *ctx, _Unwind_Ptr ip)
{
    static void (*next)(struct _Unwind_Context *, _Unwind_Ptr);
    static _Unwind_Word (*get_cfa)(struct _Unwind_Context *);
    static int libgcc = -1;
    NEXT(next, "_Unwind_SetIP");
    NEXT(get_cfa, "_Unwind_GetCFA");
    if (libgcc < 0)
        libgcc = from_libgcc((void *)next);
    next(ctx, ip);
    uintptr_t sp = libgcc ? (uintptr_t)get_cfa(ctx) : 0;
    if (sp)
        ct_landing_pad(sp);
}

/* glibc unwinds the thread through a libgcc_s it opens itself, so the
 * _Unwind_ForcedUnwind above is not seen: disarm here. */
CT_API void pthread_exit(void *ret)
{
    static void (*next)(void *);
    NEXT(next, "pthread_exit");
    unwinder_ready();
    ct_plt_disarm();
    leaving_for_buf();
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
    unwinding();
    return real_find_object(pc, out);
}

static int unwinder_iterate_phdr(int (*cb)(struct dl_phdr_info *, size_t,
                                           void *),
                                 void *arg)
{
    unwinding();
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
