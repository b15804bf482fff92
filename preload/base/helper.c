/*
 * Helper processes that are not the program's children (helper.h).
 *
 * The program clones a middle process (CLONE_VM | CLONE_VFORK, no exit
 * signal), which opens a pidfd of the program, clones the helper (CLONE_VM,
 * no exit signal) and exits.  The program's thread resumes when the middle
 * has exited and reaps it at once by its pid (__WCLONE: a child with no
 * exit signal; it never sends SIGCHLD).  The helper, orphaned, is adopted
 * by init (or the nearest subreaper), which gets SIGCHLD for it and reaps
 * it when it ends.  The pidfd, opened while the program is stopped in the
 * vfork and so cannot have ended, turns readable when the program ends.
 *
 * Without pidfd_open (Linux before 5.3, or a seccomp filter) the helper is
 * cloned by the program itself as before: its child, with no exit signal,
 * watching getppid().
 */
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "preload/base/helper.h"
#include "preload/base/rawsys.h"
#include "preload/tracer.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

/* The middle process runs on the low end of the helper's stack: the helper
 * starts at the top, and the middle has exited before the program goes
 * on. */
#define MIDDLE_STACK 16384u

enum { MIDDLE_OK = 0, MIDDLE_NO_CLONE = 1, MIDDLE_NO_PIDFD = 2 };

/* The helper itself, with its tid kept in *h->ctid (the kernel clears it
 * when the helper ends; it writes it only once the helper first runs, so
 * it is written here too, before the program goes on). */
static int clone_helper(struct ct_helper *h)
{
    int flags = CLONE_VM;
    if (h->ctid)
        flags |= CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID;
    int pid = ct_clone_real(h->fn, h->stack + h->stack_size, flags, h->arg,
                            NULL, NULL, (pid_t *)h->ctid);
    uint32_t none = 0;
    if (pid > 0 && h->ctid)
        __atomic_compare_exchange_n(h->ctid, &none, (uint32_t)pid, 0,
                                    __ATOMIC_RELEASE, __ATOMIC_RELAXED);
    return pid;
}

static int middle(void *p)
{
    struct ct_helper *h = p;
    long fd = ct_rsys(SYS_pidfd_open, h->parent, 0, 0, 0, 0, 0);
    if (fd < 0)
        return MIDDLE_NO_PIDFD;
    h->pidfd = (int)fd;
    /* glibc's clone may write errno on failure: the program's thread
     * keeps its own (ct_helper_start). */
    int pid = clone_helper(h);
    return pid < 0 ? MIDDLE_NO_CLONE : MIDDLE_OK;
}

static int start_direct(struct ct_helper *h)
{
    h->pidfd = -1;
    int pid = clone_helper(h);
    return pid < 0 ? errno : 0;
}

int ct_helper_start(struct ct_helper *h)
{
    int saved = errno;
    h->parent = (uint32_t)getpid();
    h->pidfd = -1;
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int err = 0;
    int mid = ct_clone_real(middle, h->stack + MIDDLE_STACK,
                            CLONE_VM | CLONE_VFORK, h, NULL, NULL, NULL);
    if (mid < 0) {
        err = errno;
    } else {
        int st = 0;
        long rc;
        do
            rc = ct_rsys(SYS_wait4, mid, (long)&st, __WCLONE, 0, 0, 0);
        while (rc == -EINTR);
        int code = rc == mid && WIFEXITED(st) ? WEXITSTATUS(st) : MIDDLE_NO_CLONE;
        if (code == MIDDLE_NO_PIDFD)
            err = start_direct(h);
        else if (code != MIDDLE_OK)
            err = EAGAIN;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    errno = saved;
    return err;
}

int ct_helper_program_gone(const struct ct_helper *h)
{
    if (h->pidfd < 0)
        return (uint32_t)ct_rsys(SYS_getppid, 0, 0, 0, 0, 0, 0) != h->parent;
    struct pollfd p = {.fd = h->pidfd, .events = POLLIN};
    struct timespec zero = {0, 0};
    return ct_rsys(SYS_ppoll, (long)&p, 1, (long)&zero, 0, 0, 0) > 0;
}

static void close_range_raw(long lo, long hi)
{
    if (lo > hi)
        return;
    if (ct_rsys(SYS_close_range, lo, hi, 0, 0, 0, 0) == 0)
        return;
    for (long fd = lo; fd <= hi && fd < 65536; fd++)
        ct_rsys(SYS_close, fd, 0, 0, 0, 0, 0);
}

void ct_helper_close_others(const struct ct_helper *h, int keep)
{
    long a = keep, b = h->pidfd;
    if (a > b) {
        long t = a;
        a = b;
        b = t;
    }
    /* a <= b; either may be -1 */
    long lo = 0;
    if (a >= 0) {
        close_range_raw(lo, a - 1);
        lo = a + 1;
    }
    if (b >= 0 && b != a) {
        close_range_raw(lo, b - 1);
        lo = b + 1;
    }
    close_range_raw(lo, ~0u);
}
