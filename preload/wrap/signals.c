/*
 * The program's view of the signals the tracer holds.  A signal the tracer
 * takes (crash signals, SIGPROF, the toggle and snapshot signals) gets a
 * slot that keeps the disposition the program set, as the program set it:
 * the wrappers below (sigaction, signal, bsd_signal, sysv_signal, sigset,
 * sigignore, siginterrupt) answer queries from the slot, so the program
 * sees its own handlers, never the tracer's.
 *
 * Two kinds of slot:
 *   CT_SIG_CHAIN  the tracer's handler stays installed; a new disposition
 *                 of the program goes into the slot, and the tracer's
 *                 handler calls it (ct_sig_chain).  The kernel gets the
 *                 program's mask and SA_RESTART/SA_NODEFER with the
 *                 tracer's handler, so a chained handler runs as it would.
 *   CT_SIG_YIELD  the program's first new disposition replaces the
 *                 tracer's handler for good (its on_yield hook says so).
 *
 * A slot's disposition is written by the wrappers under a lock, with every
 * signal blocked, into the copy not in use, then published; a handler
 * reads the published copy without a lock.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>

#include "preload/tracer.h"

#define EXPORT __attribute__((visibility("default")))
#define SLOTS 65  /* signals 1.._NSIG-1 */

struct slot {
    int held;                    /* 0, CT_SIG_CHAIN or CT_SIG_YIELD       */
    int cur;                     /* which of prog[] is published          */
    struct sigaction prog[2];    /* the program's disposition             */
    struct sigaction ours;       /* the tracer's handler and base flags   */
    ct_sig_yield_fn on_yield;
    int ign_at_exec;             /* SIG_IGN put back for an exec          */
};

static struct slot slots[SLOTS];
static int lock;

typedef int (*sigaction_fn)(int, const struct sigaction *, struct sigaction *);
static sigaction_fn real_sigaction;

/* Resolved at load time by ct_sig_resolve: a handler may need it. */
static sigaction_fn next_sigaction(void)
{
    if (!real_sigaction)
        real_sigaction = (sigaction_fn)dlsym(RTLD_NEXT, "sigaction");
    return real_sigaction;
}

void ct_sig_resolve(void)
{
    (void)next_sigaction();
}

int ct_sig_real(int sig, const struct sigaction *act, struct sigaction *old)
{
    return next_sigaction()(sig, act, old);
}

static struct slot *slot_of(int sig)
{
    return sig > 0 && sig < SLOTS ? &slots[sig] : NULL;
}

/* sa_handler and sa_sigaction share their storage: SIG_DFL and SIG_IGN
 * are no function whatever the flags say. */
static int is_function(const struct sigaction *sa)
{
    return sa->sa_handler != SIG_DFL && sa->sa_handler != SIG_IGN;
}

/* Every signal blocked and the lock held: neither a handler on this thread
 * nor another thread writes the slot meanwhile. */
static void enter(sigset_t *old)
{
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, old);
    while (__atomic_exchange_n(&lock, 1, __ATOMIC_ACQUIRE))
        ;
}

static void leave(const sigset_t *old)
{
    __atomic_store_n(&lock, 0, __ATOMIC_RELEASE);
    pthread_sigmask(SIG_SETMASK, old, NULL);
}

static void publish(struct slot *s, const struct sigaction *prog)
{
    int next = !__atomic_load_n(&s->cur, __ATOMIC_RELAXED);
    s->prog[next] = *prog;
    __atomic_store_n(&s->cur, next, __ATOMIC_RELEASE);
}

/* The tracer's handler with what the program asked of the kernel for its
 * own: the mask and flags a chained handler expects.  A default action
 * keeps SA_ONSTACK, so a stack overflow still reaches the tracer. */
static struct sigaction kernel_view(const struct slot *s,
                                    const struct sigaction *prog)
{
    struct sigaction k = s->ours;
    if (is_function(prog)) {
        k.sa_mask = prog->sa_mask;
        k.sa_flags = (k.sa_flags & ~SA_ONSTACK) |
                     (prog->sa_flags & (SA_RESTART | SA_NODEFER | SA_ONSTACK));
    }
    return k;
}

/* A fork while another thread held the lock: the child has no such
 * thread, and the published copies are whole. */
static void unlock_in_child(void)
{
    lock = 0;
}

int ct_sig_take(int sig, const struct sigaction *ours, int mode,
                ct_sig_yield_fn on_yield)
{
    static int atfork;
    struct slot *s = slot_of(sig);
    if (!s || s->held)
        return -1;
    if (!__atomic_exchange_n(&atfork, 1, __ATOMIC_ACQ_REL))
        pthread_atfork(NULL, NULL, unlock_in_child);
    sigset_t mask;
    enter(&mask);
    struct sigaction prog;
    int rc = ct_sig_real(sig, NULL, &prog);
    if (rc == 0) {
        s->ours = *ours;
        s->on_yield = on_yield;
        publish(s, &prog);
        struct sigaction k = mode == CT_SIG_CHAIN ? kernel_view(s, &prog) : *ours;
        rc = ct_sig_real(sig, &k, NULL);
        if (rc == 0)
            __atomic_store_n(&s->held, mode, __ATOMIC_RELEASE);
    }
    leave(&mask);
    return rc;
}

int ct_sig_held(int sig)
{
    struct slot *s = slot_of(sig);
    return s ? __atomic_load_n(&s->held, __ATOMIC_ACQUIRE) : 0;
}

void ct_sig_program(int sig, struct sigaction *out)
{
    struct slot *s = slot_of(sig);
    if (!s)
        return;
    *out = s->prog[__atomic_load_n(&s->cur, __ATOMIC_ACQUIRE)];
}

/* From a handler: no lock (the handler may have interrupted a wrapper's
 * own thread, whose signals are then blocked, so it is another thread's
 * at worst, which a crash does not wait for). */
void ct_sig_release(int sig)
{
    struct slot *s = slot_of(sig);
    if (!s || !__atomic_exchange_n(&s->held, 0, __ATOMIC_ACQ_REL))
        return;
    struct sigaction prog;
    ct_sig_program(sig, &prog);
    ct_sig_real(sig, &prog, NULL);
}

void ct_sig_chain(int sig, siginfo_t *info, void *ctx)
{
    struct slot *s = slot_of(sig);
    if (!s)
        return;
    struct sigaction prog;
    ct_sig_program(sig, &prog);
    if (!is_function(&prog))
        return;
    if (prog.sa_flags & SA_RESETHAND) {
        /* The kernel would have reset it on delivery: the slot does. */
        struct sigaction dfl;
        memset(&dfl, 0, sizeof dfl);
        dfl.sa_handler = SIG_DFL;
        publish(s, &dfl);
        struct sigaction k = kernel_view(s, &dfl);
        ct_sig_real(sig, &k, NULL);
    }
    if (prog.sa_flags & SA_SIGINFO)
        prog.sa_sigaction(sig, info, ctx);
    else
        prog.sa_handler(sig);
}

/* The kernel keeps SIG_IGN across exec and resets handlers: a signal the
 * program ignores must be ignored by the new image too. */
void ct_sig_before_exec(void)
{
    for (int sig = 1; sig < SLOTS; sig++) {
        struct slot *s = &slots[sig];
        struct sigaction prog;
        if (!ct_sig_held(sig))
            continue;
        ct_sig_program(sig, &prog);
        if (!(prog.sa_flags & SA_SIGINFO) && prog.sa_handler == SIG_IGN &&
            ct_sig_real(sig, &prog, NULL) == 0)
            s->ign_at_exec = 1;
    }
}

void ct_sig_exec_failed(void)
{
    for (int sig = 1; sig < SLOTS; sig++) {
        struct slot *s = &slots[sig];
        if (!s->ign_at_exec)
            continue;
        s->ign_at_exec = 0;
        struct sigaction prog;
        ct_sig_program(sig, &prog);
        struct sigaction k = s->held == CT_SIG_CHAIN ? kernel_view(s, &prog)
                                                     : s->ours;
        ct_sig_real(sig, &k, NULL);
    }
}

/* A new disposition for a held signal: into the slot (CHAIN), or in place
 * of the tracer's handler (YIELD).  old gets what the program had. */
static int set_held(int sig, struct slot *s, const struct sigaction *act,
                    struct sigaction *old)
{
    sigset_t mask;
    enter(&mask);
    int mode = __atomic_load_n(&s->held, __ATOMIC_ACQUIRE);
    if (!mode) {
        leave(&mask);
        return ct_sig_real(sig, act, old);
    }
    if (old)
        ct_sig_program(sig, old);
    int rc = 0;
    if (act && mode == CT_SIG_CHAIN) {
        /* The kernel checks and normalizes the program's disposition (its
         * flags, its mask, libc's restorer) as a later query reports it;
         * the tracer's handler goes back at once. */
        struct sigaction norm, k = kernel_view(s, act);
        rc = ct_sig_real(sig, act, NULL);
        if (rc == 0 && ct_sig_real(sig, &k, &norm) == 0)
            publish(s, &norm);
    } else if (act) {
        __atomic_store_n(&s->held, 0, __ATOMIC_RELEASE);
        leave(&mask);
        if (s->on_yield)
            s->on_yield(sig);
        return ct_sig_real(sig, act, NULL);
    }
    leave(&mask);
    return rc;
}

EXPORT int sigaction(int sig, const struct sigaction *act,
                     struct sigaction *old)
{
    struct slot *s = slot_of(sig);
    if (!s || !ct_sig_held(sig))
        return ct_sig_real(sig, act, old);
    int saved = errno;
    int rc = set_held(sig, s, act, old);
    if (rc == 0)
        errno = saved;
    return rc;
}

/* The libc interfaces below serve a signal the tracer does not hold
 * themselves; a held one gets the same semantics, through the wrapper
 * above. */
typedef sighandler_t (*set_fn)(int, sighandler_t);
typedef int (*int_fn)(int);
typedef int (*int2_fn)(int, int);
#define NEXT(name, type) ((type)dlsym(RTLD_NEXT, #name))

/* The signals siginterrupt made interruptible, as libc keeps them for its
 * own signal(). */
static sigset_t interruptible;

/* glibc's signal() has BSD semantics: SA_RESTART unless siginterrupt said
 * otherwise, the signal blocked in its own handler. */
static sighandler_t set_simple(int sig, sighandler_t handler, int flags,
                               int self_mask)
{
    struct sigaction act, old;
    memset(&act, 0, sizeof act);
    act.sa_handler = handler;
    act.sa_flags = flags;
    sigemptyset(&act.sa_mask);
    if (self_mask)
        sigaddset(&act.sa_mask, sig);
    if (handler == SIG_ERR || sigaction(sig, &act, &old) != 0) {
        errno = EINVAL;
        return SIG_ERR;
    }
    return old.sa_handler;
}

static int bsd_flags(int sig)
{
    return sigismember(&interruptible, sig) == 1 ? 0 : SA_RESTART;
}

EXPORT sighandler_t signal(int sig, sighandler_t handler)
{
    if (!ct_sig_held(sig))
        return NEXT(signal, set_fn)(sig, handler);
    return set_simple(sig, handler, bsd_flags(sig), 1);
}

EXPORT sighandler_t bsd_signal(int sig, sighandler_t handler)
{
    return signal(sig, handler);
}

/* System V: reset to the default on delivery, not blocked in the handler,
 * no restart (libc adds its old SA_INTERRUPT bit).  Strict-standard
 * builds call signal() by the name __sysv_signal. */
EXPORT sighandler_t __sysv_signal(int sig, sighandler_t handler)
{
    if (!ct_sig_held(sig))
        return NEXT(__sysv_signal, set_fn)(sig, handler);
    return set_simple(sig, handler, SA_RESETHAND | SA_NODEFER | 0x20000000, 0);
}

EXPORT sighandler_t sysv_signal(int sig, sighandler_t handler)
{
    return __sysv_signal(sig, handler);
}

EXPORT int sigignore(int sig)
{
    if (!ct_sig_held(sig))
        return NEXT(sigignore, int_fn)(sig);
    return set_simple(sig, SIG_IGN, 0, 0) == SIG_ERR ? -1 : 0;
}

/* libc's own keeps its set for its signal(); ours is for a held signal. */
EXPORT int siginterrupt(int sig, int flag)
{
    if (!ct_sig_held(sig))
        return NEXT(siginterrupt, int2_fn)(sig, flag);
    struct sigaction sa;
    if (sigaction(sig, NULL, &sa) != 0)
        return -1;
    if (flag) {
        sigaddset(&interruptible, sig);
        sa.sa_flags &= ~SA_RESTART;
    } else {
        sigdelset(&interruptible, sig);
        sa.sa_flags |= SA_RESTART;
    }
    return sigaction(sig, &sa, NULL);
}

/* SIG_HOLD blocks the signal; anything else sets the disposition and
 * unblocks it.  The previous disposition, or SIG_HOLD when it was
 * blocked. */
EXPORT sighandler_t sigset(int sig, sighandler_t disp)
{
    if (!ct_sig_held(sig))
        return NEXT(sigset, set_fn)(sig, disp);
    sigset_t one, was;
    sigemptyset(&one);
    sigaddset(&one, sig);
    struct sigaction old;
    if (disp == SIG_HOLD) {
        if (sigprocmask(SIG_BLOCK, &one, &was) != 0)
            return SIG_ERR;
        if (sigismember(&was, sig))
            return SIG_HOLD;
        return sigaction(sig, NULL, &old) == 0 ? old.sa_handler : SIG_ERR;
    }
    struct sigaction act;
    memset(&act, 0, sizeof act);
    act.sa_handler = disp;
    sigemptyset(&act.sa_mask);
    if (sigaction(sig, &act, &old) != 0 ||
        sigprocmask(SIG_UNBLOCK, &one, &was) != 0)
        return SIG_ERR;
    return sigismember(&was, sig) ? SIG_HOLD : old.sa_handler;
}
