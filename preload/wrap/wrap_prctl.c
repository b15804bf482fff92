/*
 * Wrappers of prctl and syscall for what takes the tracer's clock or its
 * system calls away from a thread:
 *   PR_SET_TSC with PR_TSC_SIGSEGV  reading the TSC faults from then on
 *                                   (the vDSO's clock_gettime reads it
 *                                   too): the tracer moves to
 *                                   CLOCK_MONOTONIC by system call first,
 *                                   and the trace goes on (clock.c).
 *   seccomp strict mode             (PR_SET_SECCOMP, or the seccomp system
 *                                   call through syscall(); glibc has no
 *                                   seccomp() of its own) allows read,
 *                                   write, _exit and sigreturn only, and
 *                                   turns the TSC off: the trace is closed
 *                                   cleanly first, with one line, and the
 *                                   thread records nothing more.
 * Each then calls the next definition, which sets errno as it would.
 */
#include <dlfcn.h>
#include <linux/seccomp.h>
#include <stdarg.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "preload/tracer.h"

typedef int (*prctl_fn)(int, unsigned long, unsigned long, unsigned long,
                        unsigned long);
typedef long (*syscall_fn)(long, long, long, long, long, long, long);

CT_API int prctl(int option, ...);
CT_API long syscall(long number, ...);

static void before_strict(void)
{
    if (ct_proc.started != 2 || ct_proc.finished)
        return;
    ct_clock_tsc_gone();
    ct_message("calltrace: the program enters seccomp strict mode, where "
               "the tracer can neither read a clock nor write its trace: "
               "the trace ends here");
    ct_process_finish();
    /* Nothing more from this process: no new block, no clock (other
     * threads too, whose next block switch would end here). */
    __atomic_store_n(&ct_proc.failed, 1, __ATOMIC_RELEASE);
    ct_global_update();
    ct_thread_retire_current();
}

static void before(long option, long arg2)
{
    if (option == PR_SET_TSC && arg2 == PR_TSC_SIGSEGV &&
        !__atomic_load_n(&ct_tsc_off, __ATOMIC_ACQUIRE)) {
        ct_clock_tsc_gone();
        /* The reader learns why the calls cost more from here. */
        static const char note[] = "calltrace: the program turned the TSC "
                                   "off: times from CLOCK_MONOTONIC by "
                                   "system call from here";
        if (ct_proc.started == 2)
            ct_tracer_append_ext(CT_EXT_USER, note, sizeof note - 1);
    }
    else if (option == PR_SET_SECCOMP && arg2 == SECCOMP_MODE_STRICT)
        before_strict();
}

CT_API int prctl(int option, ...)
{
    va_list ap;
    va_start(ap, option);
    unsigned long a2 = va_arg(ap, unsigned long);
    unsigned long a3 = va_arg(ap, unsigned long);
    unsigned long a4 = va_arg(ap, unsigned long);
    unsigned long a5 = va_arg(ap, unsigned long);
    va_end(ap);
    prctl_fn next = (prctl_fn)dlsym(RTLD_NEXT, "prctl");
    before(option, (long)a2);
    return next(option, a2, a3, a4, a5);
}

/* Six arguments are read whatever the call takes, as libc's own does:
 * registers, harmless to read. */
CT_API long syscall(long number, ...)
{
    va_list ap;
    va_start(ap, number);
    long a[6];
    for (int i = 0; i < 6; i++)
        a[i] = va_arg(ap, long);
    va_end(ap);
    /* Looked up once: dlsym takes the loader's lock, which a context
     * sharing the caller's TLS (a CLONE_VM child) must not meet twice. */
    static syscall_fn cached;
    syscall_fn next = __atomic_load_n(&cached, __ATOMIC_ACQUIRE);
    if (!next) {
        next = (syscall_fn)dlsym(RTLD_NEXT, "syscall");
        __atomic_store_n(&cached, next, __ATOMIC_RELEASE);
    }
    if (number == SYS_prctl)
        before(a[0], a[1]);
    else if (number == SYS_seccomp && a[0] == SECCOMP_SET_MODE_STRICT)
        before_strict();
    return next(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}
