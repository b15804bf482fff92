/*
 * glibc's clone(): execution contexts the fork and pthread_create
 * handlers do not see.  The child's function is wrapped; its start record
 * goes on the top of the child's stack, which the child would use anyway.
 *
 *  - Without CLONE_VM the child is a process with a copy of the memory:
 *    it runs the fork handlers' child work (its own trace file, as after
 *    fork) with no frame open, and its trace is closed when its function
 *    returns (glibc then ends it without exit handlers).
 *  - With CLONE_VM and no CLONE_SETTLS the child shares the caller's TLS,
 *    so its ct_self and its state: while it lives, every event of both
 *    goes to the slow path, which records the caller's and counts the
 *    child's lost (CT_STOP_SHARED).
 *  - With CLONE_VM and CLONE_SETTLS the TLS is the caller's making, not
 *    one the tracer can keep a state in: the child's events are counted
 *    lost.
 *
 * vfork (wrap_vfork.S) is the second case, the caller waiting.  A child
 * process made past glibc (syscall(SYS_clone), clone3) without CLONE_VM
 * finds its thread state wiped (thread.c, wipe_on_fork); one with
 * CLONE_VM is not seen: docs/tracer.md, "What is kept, and when".
 */
#include <dlfcn.h>
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>

#include "preload/libcalls/plt.h"
#include "preload/tracer.h"

typedef int (*clone_fn)(int (*)(void *), void *, int, void *, ...);

CT_API int clone(int (*fn)(void *), void *stack, int flags, void *arg, ...);

struct clone_start {
    int (*fn)(void *);
    void *arg;
    int flags;
    struct ct_thread *shared;  /* the caller's state the child shares */
};

static int child_start(void *p)
{
    struct clone_start st = *(struct clone_start *)p;
    if (!(st.flags & CLONE_VM)) {
        ct_clone_child();
        ct_thread_clone_fresh();
        ct_plt_clone_fresh();
        int rc = st.fn(st.arg);
        ct_process_finish();
        return rc;
    }
    if (st.flags & CLONE_SETTLS) {
        ct_thread_set_lost();  /* in the child's own TLS */
        return st.fn(st.arg);
    }
    if (!st.shared)  /* the caller has no state: this TLS is not ours to set */
        return st.fn(st.arg);
    int rc = st.fn(st.arg);
    ct_thread_share_end(st.shared);
    return rc;
}

/* The real vfork, for wrap_vfork.S; fork where none is found (POSIX lets
 * vfork be fork). */
uintptr_t ct_vfork_next;
void ct_vfork_begin(void);

void ct_vfork_begin(void)
{
    int saved = errno;
    if (!__atomic_load_n(&ct_vfork_next, __ATOMIC_ACQUIRE)) {
        void *next = dlsym(RTLD_NEXT, "vfork");
        if (!next)
            next = dlsym(RTLD_NEXT, "fork");
        __atomic_store_n(&ct_vfork_next, (uintptr_t)next, __ATOMIC_RELEASE);
    }
    /* the caller's own state first: a child making it would put it in
     * the TLS it borrows */
    struct ct_thread *t = ct_proc.started == 2 ? ct_thread_get() : NULL;
    if (t)
        ct_thread_vfork_begin(t);
    errno = saved;
}

/* glibc's clone for the tracer's own processes (the file keeper, the
 * helpers): they run no instrumented code, and through the wrapper a
 * CLONE_VM one would put its caller in the shared mode for its whole
 * life, every event of the caller on the slow path. */
int ct_clone_real(int (*fn)(void *), void *stack, int flags, void *arg,
                  pid_t *ptid, void *tls, pid_t *ctid)
{
    static clone_fn next;
    clone_fn f = __atomic_load_n(&next, __ATOMIC_ACQUIRE);
    if (!f) {
        /* libc's own, under the name it defines clone as an alias of: an
         * interposer of clone (ThreadSanitizer's runtime takes it for a
         * fork and resets the caller's state in the memory the child
         * shares) must not see the tracer's processes */
        f = (clone_fn)dlsym(RTLD_NEXT, "__clone");
        if (!f)
            f = (clone_fn)dlsym(RTLD_NEXT, "clone");
        if (!f) {
            errno = ENOSYS;
            return -1;
        }
        __atomic_store_n(&next, f, __ATOMIC_RELEASE);
    }
    return f(fn, stack, flags, arg, ptid, tls, ctid);
}

CT_API int clone(int (*fn)(void *), void *stack, int flags, void *arg, ...)
{
    va_list ap;
    va_start(ap, arg);
    /* Read whether given or not, as glibc's own clone does. */
    pid_t *ptid = va_arg(ap, pid_t *);
    void *tls = va_arg(ap, void *);
    pid_t *ctid = va_arg(ap, pid_t *);
    va_end(ap);
    clone_fn next = (clone_fn)dlsym(RTLD_NEXT, "clone");
    if (!next) {
        errno = ENOSYS;
        return -1;
    }
    if (!fn || !stack || ct_proc.started != 2)
        return next(fn, stack, flags, arg, ptid, tls, ctid);
    struct clone_start *st =
        (struct clone_start *)(((uintptr_t)stack - sizeof *st) & ~(uintptr_t)15);
    st->fn = fn;
    st->arg = arg;
    st->flags = flags;
    st->shared = NULL;
    struct ct_thread *self = ct_thread_get();
    int vm = flags & CLONE_VM;
    if (vm && !(flags & CLONE_SETTLS) && self) {
        st->shared = self;
        ct_thread_share_begin(self);
    }
    if (!vm)
        ct_clone_prepare();
    int rc = next(child_start, st, flags, st, ptid, tls, ctid);
    int saved = errno;
    if (!vm)
        ct_clone_parent();
    if (rc < 0 && st->shared)
        ct_thread_share_end(self);
    errno = saved;
    return rc;
}
