/*
 * Sampling mode: per-thread timers, the SIGPROF handler, and the wrappers
 * that keep it safe (loader guard) and out of the program's way (SIGPROF
 * ownership).  docs/sampling.md explains the choices.
 */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "calltrace_format.h"
#include "preload/args/args.h"
#include "preload/patch/patch.h"
#include "preload/sampling/sample.h"
#include "preload/tracer.h"

#define EXPORT __attribute__((visibility("default")))
#define TLS __thread __attribute__((tls_model("initial-exec")))

/* ---- configuration -------------------------------------------------- */

int ct_sample_parse_mode(const char *text)
{
    if (!text || !*text || strcmp(text, "trace") == 0)
        return CT_MODE_TRACE;
    if (strcmp(text, "sample") == 0)
        return CT_MODE_SAMPLE;
    if (strcmp(text, "both") == 0)
        return CT_MODE_BOTH;
    if (strcmp(text, "profile") == 0)
        return CT_MODE_PROFILE;
    return -1;
}

int ct_sample_parse_interval(const char *text, uint64_t *ns)
{
    if (!text || *text < '0' || *text > '9')
        return -1;
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (errno || end == text)
        return -1;
    double scale;
    if (*end == '\0' || strcmp(end, "ms") == 0)
        scale = 1e6;
    else if (strcmp(end, "us") == 0)
        scale = 1e3;
    else if (strcmp(end, "ns") == 0)
        scale = 1;
    else if (strcmp(end, "s") == 0)
        scale = 1e9;
    else
        return -1;
    double total = v * scale;
    if (!(total >= (double)CT_SAMPLE_MIN_NS && total <= (double)CT_SAMPLE_MAX_NS))
        return -1;
    *ns = (uint64_t)(total + 0.5);
    return 0;
}

size_t ct_sample_encode(uint8_t *out, uint64_t weight, const uintptr_t *pcs,
                        unsigned depth)
{
    if (depth > CT_SAMPLE_MAX_DEPTH)
        depth = CT_SAMPLE_MAX_DEPTH;
    uint8_t *p = ct_put_varint(out, weight);
    p = ct_put_varint(p, depth);
    for (unsigned i = 0; i < depth; i++)
        p = ct_put_varint(p, pcs[i]);
    return (size_t)(p - out);
}

/* The same text goes into the trace as a user event, so the report says
 * why a sampled profile is empty or ends early. */
/* A line snprintf wrote into msg (cap bytes; n its return) into the
 * trace as an event, cut where the buffer cut it. */
static void record_line(const char *msg, int n, size_t cap)
{
    if (n > 0)
        ct_tracer_append_ext(CT_EXT_USER, msg,
                             (size_t)n < cap ? (size_t)n : cap - 1);
}

static void say_and_record(const char *text)
{
    ct_message("calltrace: %s", text);
    char msg[256];
    int n = snprintf(msg, sizeof msg, "calltrace: %s", text);
    record_line(msg, n, sizeof msg);
}

/* ---- state ---------------------------------------------------------- */

enum { OFF, ON, YIELDED };
static _Atomic int g_state = OFF;
static uint64_t g_interval_ns;
static clockid_t g_clock = CLOCK_THREAD_CPUTIME_ID;
/* 1: the kernel samples (sample_perf.c), no signal, no timer; 0: the
 * SIGPROF timers below, where perf_event_open is refused. */
static int g_perf;
/* sival_ptr of our timers' signals: a SIGPROF without it is not ours. */
static char g_timer_tag;

static _Atomic uint64_t st_samples, st_leaf_only, st_reentered,
    st_unwind_failed, st_not_written, st_no_timer;

static TLS int t_in_handler;  /* re-entry guard                           */
static TLS int t_in_loader;   /* inside dlopen/dlclose/dl_iterate_phdr    */
static TLS int t_slot = -1;   /* this thread's timer in g_timers          */
/* Threads inside the loader, and handlers inside a stack walk, process-
 * wide: each side announces itself before looking at the other, so a walk
 * and a loader call never overlap (see docs/sampling.md). */
static _Atomic int g_loader_busy, g_walkers;
static _Atomic int g_fork_gate;  /* closed while a fork is being prepared */
/* Bumped by every dlopen and dlclose: a walk outside a handler re-reads
 * the loaded objects when it changed. */
static _Atomic uint64_t g_loader_gen;
static uint64_t g_walk_seen_gen = ~0ull;

/* Every live timer, so that all of them can be deleted when the program
 * takes SIGPROF over.  Slot value: (timer_t << 1) | 1, 0 when free. */
#define MAX_TIMERS 4096
static _Atomic uintptr_t g_timers[MAX_TIMERS];

int ct_sample_wanted(void)
{
    int m = ct_sample_parse_mode(ct_env_get("CALLTRACE_MODE"));
    return m == CT_MODE_SAMPLE || m == CT_MODE_BOTH;
}

void ct_sample_get_stats(struct ct_sample_stats *out)
{
    out->samples = atomic_load(&st_samples);
    out->leaf_only = atomic_load(&st_leaf_only);
    out->reentered = atomic_load(&st_reentered);
    out->unwind_failed = atomic_load(&st_unwind_failed);
    out->not_written = atomic_load(&st_not_written);
}

int ct_sample_loader_busy(void)
{
    return t_in_loader || atomic_load(&g_loader_busy);
}

/* ---- the sample ----------------------------------------------------- */

int ct_sample_guard_enter(void)
{
    if (t_in_handler)
        return 0;
    t_in_handler = 1;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    return 1;
}

void ct_sample_guard_leave(void)
{
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    t_in_handler = 0;
}

unsigned ct_sample_take(void *ucontext, uintptr_t *pcs, unsigned max)
{
    if (max == 0 || !ct_sample_guard_enter()) {
        atomic_fetch_add_explicit(&st_reentered, 1, memory_order_relaxed);
        return 0;
    }
    unsigned n = 0;
    atomic_fetch_add(&g_walkers, 1);
    if (!t_in_loader && atomic_load(&g_loader_busy) == 0 &&
        atomic_load(&g_fork_gate) == 0) {
        n = ct_sample_unwind(ucontext, pcs, max);
        if (n == 0)
            atomic_fetch_add_explicit(&st_unwind_failed, 1,
                                      memory_order_relaxed);
    } else {
        atomic_fetch_add_explicit(&st_leaf_only, 1, memory_order_relaxed);
    }
    atomic_fetch_sub(&g_walkers, 1);
    if (n == 0) {
        pcs[0] = ct_sample_leaf_pc(ucontext);
        n = 1;
    }
    ct_sample_guard_leave();
    return n;
}

struct sample_args {
    siginfo_t *si;
    void *ucontext;
};

static void take_sample(void *p)
{
    struct sample_args *a = p;
    uintptr_t pcs[CT_SAMPLE_MAX_DEPTH];
    unsigned depth = ct_sample_take(a->ucontext, pcs, CT_SAMPLE_MAX_DEPTH);
    if (!depth)
        return;
    uint8_t payload[CT_SAMPLE_PAYLOAD_MAX];
    /* Expirations the kernel merged count as samples of this stack: the
     * best guess we have, and it keeps totals right. */
    uint64_t weight = 1 + (uint64_t)(a->si->si_overrun > 0 ? a->si->si_overrun : 0);
    size_t len = ct_sample_encode(payload, weight, pcs, depth);
    if (ct_tracer_append_ext(CT_EXT_SAMPLE, payload, len) == 0)
        atomic_fetch_add_explicit(&st_samples, 1, memory_order_relaxed);
    else
        atomic_fetch_add_explicit(&st_not_written, 1, memory_order_relaxed);
}

/* The walk and the record (a few KiB of frames) run on the thread's
 * tracer stack: the program's stack holds only the signal frame.  The
 * handler's mask blocks the signals that may come at any time, so none of
 * the program's handlers runs on the tracer's stack. */
static void on_sigprof(int sig, siginfo_t *si, void *ucontext)
{
    (void)sig;
    int saved_errno = errno;
    /* Only our timers' signals are samples; a stray SIGPROF (kill -PROF)
     * is ignored rather than allowed to end the program. */
    if (si->si_code == SI_TIMER && si->si_value.sival_ptr == &g_timer_tag &&
        atomic_load_explicit(&g_state, memory_order_relaxed) == ON) {
        struct sample_args a = {si, ucontext};
        ct_deep_call(ct_self, take_sample, &a, 0);
    }
    errno = saved_errno;
}

int ct_sample_walk_begin(unsigned wait_ms, int *changed)
{
    struct timespec nap = {0, 200000};
    for (unsigned waited_us = 0;; waited_us += 200) {
        atomic_fetch_add(&g_walkers, 1);
        if (!t_in_loader && atomic_load(&g_loader_busy) == 0 &&
            atomic_load(&g_fork_gate) == 0)
            break;
        atomic_fetch_sub(&g_walkers, 1);
        if (waited_us >= wait_ms * 1000u)
            return 0;
        nanosleep(&nap, NULL);
    }
    /* libunwind's own dl_iterate_phdr calls pass the wrapper uncounted,
     * as from the handler. */
    t_in_handler = 1;
    uint64_t gen = atomic_load(&g_loader_gen);
    *changed = gen != g_walk_seen_gen;
    g_walk_seen_gen = gen;
    return 1;
}

void ct_sample_walk_end(void)
{
    t_in_handler = 0;
    atomic_fetch_sub(&g_walkers, 1);
}

/* ---- timers --------------------------------------------------------- */

static void arm_this_thread(void)
{
    if (atomic_load(&g_state) != ON || t_slot >= 0)
        return;
    if (g_perf) {
        /* Each thread's own event, set up on the thread itself. */
        if (ct_perf_thread_open(g_interval_ns, &t_slot) != 0)
            atomic_fetch_add(&st_no_timer, 1);
        return;
    }
    /* The tracer's per-thread state is made here, not by the first sample:
     * making it takes the registry lock, which this thread may hold when a
     * signal arrives (fork). */
    if (!ct_thread_get())
        return;
    struct sigevent sev;
    memset(&sev, 0, sizeof sev);
    sev.sigev_notify = SIGEV_THREAD_ID;
    sev.sigev_signo = SIGPROF;
    sev.sigev_value.sival_ptr = &g_timer_tag;
    sev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
    timer_t timer;
    if (timer_create(g_clock, &sev, &timer) != 0) {
        atomic_fetch_add(&st_no_timer, 1);
        return;
    }
    uintptr_t value = ((uintptr_t)timer << 1) | 1;
    for (int i = 0; i < MAX_TIMERS; i++) {
        uintptr_t expected = 0;
        if (atomic_compare_exchange_strong(&g_timers[i], &expected, value)) {
            t_slot = i;
            break;
        }
    }
    if (t_slot < 0) {
        timer_delete(timer);
        atomic_fetch_add(&st_no_timer, 1);
        return;
    }
    struct itimerspec its;
    its.it_interval.tv_sec = (time_t)(g_interval_ns / 1000000000u);
    its.it_interval.tv_nsec = (long)(g_interval_ns % 1000000000u);
    its.it_value = its.it_interval;
    timer_settime(timer, 0, &its, NULL);
}

/* Whoever empties the slot deletes the timer, so a thread exiting while
 * the program takes SIGPROF over never deletes a timer twice. */
static void delete_slot(int i)
{
    uintptr_t value = atomic_exchange(&g_timers[i], 0);
    if (value)
        timer_delete((timer_t)(value >> 1));
}

static void disarm_this_thread(void *unused)
{
    (void)unused;
    if (t_slot >= 0 && g_perf) {
        ct_perf_thread_end(t_slot);
        t_slot = -1;
    } else if (t_slot >= 0) {
        delete_slot(t_slot);
        t_slot = -1;
    }
}

static void delete_all_timers(void)
{
    for (int i = 0; i < MAX_TIMERS; i++)
        delete_slot(i);
    t_slot = -1;
}

/* ---- wrapped libc and libdl functions ------------------------------- */

static int (*real_pthread_create)(pthread_t *, const pthread_attr_t *,
                                  void *(*)(void *), void *);
static int (*real_dlclose)(void *);
static int (*real_dl_iterate_phdr)(int (*)(struct dl_phdr_info *, size_t, void *),
                                   void *);

/* dlsym outside signal handlers only: ct_sample_init resolves everything,
 * and a wrapper that runs before it (another library's constructor)
 * resolves its own. */
#define REAL(name)                                                        \
    ({                                                                    \
        if (!real_##name)                                                 \
            real_##name = (__typeof__(real_##name))dlsym(RTLD_NEXT, #name); \
        real_##name;                                                      \
    })

static void resolve_all(void)
{
    ct_sig_resolve();
    (void)REAL(pthread_create);
    (void)REAL(dlclose);
    (void)REAL(dl_iterate_phdr);
}

/* The program takes SIGPROF: it wins.  Timers go first so that as few of
 * our signals as possible reach its handler; those already pending on this
 * thread are taken off. */
static void yield_sigprof(int sig)
{
    (void)sig;
    int expected = ON;
    if (!atomic_compare_exchange_strong(&g_state, &expected, YIELDED))
        return;
    delete_all_timers();
    sigset_t prof, old;
    sigemptyset(&prof);
    sigaddset(&prof, SIGPROF);
    pthread_sigmask(SIG_BLOCK, &prof, &old);
    struct timespec zero = {0, 0};
    siginfo_t si;
    while (sigtimedwait(&prof, &si, &zero) == SIGPROF &&
           si.si_code == SI_TIMER && si.si_value.sival_ptr == &g_timer_tag)
        ;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    say_and_record("the program installed its own SIGPROF handler: sampling "
                   "stopped, the program's handler is in place");
}

struct start {
    void *(*routine)(void *);
    void *arg;
};

/* In a section of its own: the kernel sampler tells this frame, under
 * every thread it started, from the tracer's own work (sample_perf.c). */
__attribute__((section("ct_thread_start"), noinline))
static void *start_sampled_thread(void *p)
{
    struct start s = *(struct start *)p;
    free(p);
    arm_this_thread();
    void *ret;
    pthread_cleanup_push(disarm_this_thread, NULL);
    ret = s.routine(s.arg);
    pthread_cleanup_pop(1);
    return ret;
}

EXPORT int pthread_create(pthread_t *thread, const pthread_attr_t *attr,
                          void *(*routine)(void *), void *arg)
{
    if (atomic_load(&g_state) == ON) {
        struct start *s = malloc(sizeof *s);
        if (s) {
            s->routine = routine;
            s->arg = arg;
            int rc = REAL(pthread_create)(thread, attr, start_sampled_thread, s);
            if (rc != 0)
                free(s);
            return rc;
        }
    }
    return REAL(pthread_create)(thread, attr, routine, arg);
}

/*
 * Loader guard.  A call made from our own handler (libunwind looking for
 * unwind tables) is not counted, or every walk would block the others.
 *
 * The same counts make fork safe: glibc does not reset the loader's locks
 * in the child of a threaded fork, so a child that looks at the loaded
 * objects (the tracer's MAPS block, libunwind) hangs when another thread
 * held one at that moment.  Our fork-prepare handler closes a gate to new
 * loader calls and walks and waits for those under way to end.
 */
static TLS int t_forking;

static void loader_enter(void);
static void loader_leave(void);

int ct_loader_enter(void)
{
    if (t_in_handler)
        return 0;
    loader_enter();
    return 1;
}

void ct_loader_leave(void)
{
    atomic_fetch_add(&g_loader_gen, 1);
    loader_leave();
}

static void loader_enter(void)
{
    if (t_in_loader++ > 0 || t_forking) {
        atomic_fetch_add(&g_loader_busy, 1);   /* nested: already admitted */
        return;
    }
    for (;;) {
        while (atomic_load(&g_fork_gate))
            sched_yield();
        atomic_fetch_add(&g_loader_busy, 1);
        if (!atomic_load(&g_fork_gate))
            break;
        atomic_fetch_sub(&g_loader_busy, 1);   /* a fork began: let it go */
    }
    /* A walk that started before we announced ourselves may be inside
     * dl_iterate_phdr; it ends in microseconds and waits for nothing we
     * hold, so wait for it before taking the loader lock. */
    while (atomic_load(&g_walkers) != 0)
        sched_yield();
}

static void loader_leave(void)
{
    atomic_fetch_sub(&g_loader_busy, 1);
    t_in_loader--;
}

static void fork_prepare(void)
{
    int expected = 0;
    while (!atomic_compare_exchange_weak(&g_fork_gate, &expected, 1)) {
        expected = 0;
        sched_yield();
    }
    t_forking = 1;
    while (atomic_load(&g_loader_busy) != t_in_loader ||
           atomic_load(&g_walkers) != 0)
        sched_yield();
}

static void fork_parent(void)
{
    t_forking = 0;
    atomic_store(&g_fork_gate, 0);
}

/* The tracer's fork handler (which calls ct_sample_after_fork_child) runs
 * before this one: its MAPS block is written with the gate still closed. */
static void fork_child(void)
{
    t_forking = 0;
    atomic_store(&g_walkers, 0);
    atomic_store(&g_loader_busy, t_in_loader);
    atomic_store(&g_fork_gate, 0);
}

EXPORT int dlclose(void *handle)
{
    if (t_in_handler)
        return REAL(dlclose)(handle);
    loader_enter();
    int rc = REAL(dlclose)(handle);
    int saved = errno;
    ct_maps_after_unload(rc);
    if (rc == 0) {
        ct_patch_after_unload();
        ct_args_site_after_unload();
    }
    atomic_fetch_add(&g_loader_gen, 1);
    loader_leave();
    errno = saved;
    return rc;
}

EXPORT int dl_iterate_phdr(int (*cb)(struct dl_phdr_info *, size_t, void *),
                           void *data)
{
    if (t_in_handler)
        return REAL(dl_iterate_phdr)(cb, data);
    loader_enter();
    int rc = REAL(dl_iterate_phdr)(cb, data);
    loader_leave();
    return rc;
}

/* ---- start, fork, stop ---------------------------------------------- */

static uint64_t interval_from_env(void)
{
    const char *text = ct_env_get("CALLTRACE_SAMPLE_INTERVAL");
    uint64_t ns;
    if (!text || !*text)
        return CT_SAMPLE_DEFAULT_NS;
    if (ct_sample_parse_interval(text, &ns) == 0)
        return ns;
    ct_message("calltrace: CALLTRACE_SAMPLE_INTERVAL=%s is not an interval from 10us to 60s "
        "(e.g. 10ms, 500us, 1s; a bare number is ms): using 10ms", text);
    return CT_SAMPLE_DEFAULT_NS;
}

static void say_errno(const char *fmt, int err)
{
    char line[320];
    snprintf(line, sizeof line, fmt, strerror(err));
    say_and_record(line);
}

/* The kernel's sampling, when it lets us: the main thread's event first,
 * then the sampler's thread.  -1 (after one line saying why) when the
 * timers must do. */
static int start_perf(void)
{
    int main_slot = -1;
    int wall_err = g_clock == CLOCK_MONOTONIC ? ct_perf_wall(g_interval_ns) : 0;
    int err = ct_perf_thread_open(g_interval_ns, &main_slot);
    if (err) {
        say_errno("sampling: perf_event_open refused (%s; see "
                  "/proc/sys/kernel/perf_event_paranoid): sampling CPU time "
                  "with a SIGPROF timer instead, bound to the scheduler tick "
                  "and less accurate", err);
        return -1;
    }
    if (ct_perf_start(g_interval_ns) != 0) {
        ct_perf_thread_end(main_slot);
        ct_perf_stop();
        say_errno("sampling: cannot start the sampler's thread (%s): "
                  "sampling CPU time with a SIGPROF timer instead", EAGAIN);
        return -1;
    }
    if (wall_err)
        say_errno("sampling: CALLTRACE_SAMPLE_CLOCK=wall: the kernel refuses "
                  "context-switch samples (%s; they need perf_event_paranoid "
                  "<= 1 or CAP_PERFMON): time spent blocked is not sampled, "
                  "only CPU time", wall_err);
    g_perf = 1;
    g_clock = CLOCK_THREAD_CPUTIME_ID;
    ct_tracer_set_sampled(g_interval_ns);
    t_slot = main_slot;
    atomic_store(&g_state, ON);
    return 0;
}

static clockid_t clock_from_env(void)
{
    const char *text = ct_env_get("CALLTRACE_SAMPLE_CLOCK");
    if (!text || !*text || strcmp(text, "cpu") == 0)
        return CLOCK_THREAD_CPUTIME_ID;
    if (strcmp(text, "wall") == 0)
        return CLOCK_MONOTONIC;
    ct_message("calltrace: CALLTRACE_SAMPLE_CLOCK=%s is neither cpu nor wall: using cpu", text);
    return CLOCK_THREAD_CPUTIME_ID;
}

void ct_sample_init(void)
{
    resolve_all();
    static int fork_handlers;
    if (!fork_handlers++)
        pthread_atfork(fork_prepare, fork_parent, fork_child);
    const char *mode = ct_env_get("CALLTRACE_MODE");
    if (ct_sample_parse_mode(mode) < 0)
        ct_message("calltrace: CALLTRACE_MODE=%s is not trace, sample, "
                   "both or profile: using trace", mode);
    if (!ct_sample_wanted() || atomic_load(&g_state) != OFF)
        return;
    g_interval_ns = interval_from_env();
    g_clock = clock_from_env();
    /* CALLTRACE_SAMPLE_TIMER=1: the SIGPROF timer even where the kernel
     * would sample (a kernel whose perf sampling misbehaves; tests). */
    const char *timer = ct_env_get("CALLTRACE_SAMPLE_TIMER");
    if (!(timer && strcmp(timer, "1") == 0) && start_perf() == 0)
        return;
    /* The fallback samples CPU time only: a wall-clock timer's signal
     * would interrupt the program's blocking calls (signal(7): nanosleep,
     * poll, select, epoll_wait... are never restarted). */
    g_clock = CLOCK_THREAD_CPUTIME_ID;

    struct sigaction cur;
    if (ct_sig_real(SIGPROF, NULL, &cur) == 0 &&
        !(cur.sa_flags & SA_SIGINFO) && cur.sa_handler != SIG_DFL &&
        cur.sa_handler != SIG_IGN) {
        say_and_record("SIGPROF already has a handler (another profiler?): "
                       "sampling off, that handler left in place");
        return;
    }
    if ((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction) {
        say_and_record("SIGPROF already has a handler (another profiler?): "
                       "sampling off, that handler left in place");
        return;
    }

    int unwinder = ct_sample_unwind_prepare();
    if (unwinder == -2) {
        say_and_record("libunwind's address checks cannot be kept off the "
                       "program's descriptors: samples keep the interrupted "
                       "pc only");
    } else if (unwinder < 0) {
        const char *why = dlerror();
        char line[320];
        snprintf(line, sizeof line, "cannot load libunwind (%s): samples "
                 "keep the interrupted pc only", why ? why : "no such library");
        say_and_record(line);
    }
    struct sigaction act;
    memset(&act, 0, sizeof act);
    act.sa_sigaction = on_sigprof;
    /* SA_RESTART: a sample never makes a system call fail with EINTR. */
    act.sa_flags = SA_SIGINFO | SA_RESTART;
    sigfillset(&act.sa_mask);
    sigdelset(&act.sa_mask, SIGSEGV);
    sigdelset(&act.sa_mask, SIGBUS);
    sigdelset(&act.sa_mask, SIGFPE);
    sigdelset(&act.sa_mask, SIGILL);
    sigdelset(&act.sa_mask, SIGTRAP);
    sigdelset(&act.sa_mask, SIGSYS);
    /* Held: the program sees its own SIGPROF disposition, and its first
     * new one replaces ours (signals.c). */
    if (ct_sig_take(SIGPROF, &act, CT_SIG_YIELD, yield_sigprof) != 0) {
        ct_message("calltrace: cannot install the SIGPROF handler: %s; sampling off",
            strerror(errno));
        return;
    }
    ct_tracer_set_sampled(g_interval_ns);
    atomic_store(&g_state, ON);
    arm_this_thread();
}

void ct_sample_after_fork_child(void)
{
    if (atomic_load(&g_state) != ON)
        return;
    if (g_perf) {
        ct_perf_after_fork_child();
        t_slot = -1;
        arm_this_thread();
        return;
    }
    /* The child has this thread only, and no timers: forget the
     * parent's, and its counts. */
    atomic_store(&st_samples, 0);
    atomic_store(&st_leaf_only, 0);
    atomic_store(&st_reentered, 0);
    atomic_store(&st_unwind_failed, 0);
    atomic_store(&st_not_written, 0);
    for (int i = 0; i < MAX_TIMERS; i++)
        atomic_store(&g_timers[i], 0);
    t_slot = -1;
    arm_this_thread();
}

/* The last drain, then what the figures rest on, when anything was
 * lost or cut short. */
static void stop_perf(void)
{
    ct_perf_stop();
    t_slot = -1;
    struct ct_perf_stats st;
    ct_perf_get_stats(&st);
    uint64_t no_event = atomic_load(&st_no_timer);
    uint64_t walks, checked, differ;
    char msg[400];
    if (ct_sample_remote_stats(&walks, &checked, &differ)) {
        /* CALLTRACE_SAMPLE_UNWIND=check: what the tests compare */
        int n = snprintf(msg, sizeof msg,
                         "calltrace: sampling: unwind check: %llu walks, "
                         "%llu both ways, %llu differ",
                         (unsigned long long)walks,
                         (unsigned long long)checked,
                         (unsigned long long)differ);
        record_line(msg, n, sizeof msg);
    }
    if (st.lost + st.leaf_only + st.not_written + no_event + st.in_tracer +
        st.cut == 0)
        return;
    int n = snprintf(msg, sizeof msg,
                     "calltrace: sampling: %llu records, %llu samples lost "
                     "(ring full), %llu with the leaf only (loader busy), "
                     "%llu not written, %llu threads without an event, "
                     "%llu in the tracer's own code (left out), %llu cut "
                     "short by a smaller stack copy",
                     (unsigned long long)st.records,
                     (unsigned long long)st.lost,
                     (unsigned long long)st.leaf_only,
                     (unsigned long long)st.not_written,
                     (unsigned long long)no_event,
                     (unsigned long long)st.in_tracer,
                     (unsigned long long)st.cut);
    record_line(msg, n, sizeof msg);
}

void ct_sample_stop(void)
{
    int expected = ON;
    if (!atomic_compare_exchange_strong(&g_state, &expected, OFF))
        return;
    if (g_perf) {
        stop_perf();
        return;
    }
    delete_all_timers();
    /* Samples that lost their callers or were not written are told in the
     * trace, so the report's reader knows what the figures rest on. */
    struct ct_sample_stats st;
    ct_sample_get_stats(&st);
    if (st.leaf_only + st.unwind_failed + st.not_written == 0)
        return;
    char msg[256];
    int n = snprintf(msg, sizeof msg,
                     "calltrace: sampling: %llu records, %llu with the leaf "
                     "only (loader busy), %llu with the leaf only (no unwind "
                     "information), %llu not written",
                     (unsigned long long)st.samples,
                     (unsigned long long)st.leaf_only,
                     (unsigned long long)st.unwind_failed,
                     (unsigned long long)st.not_written);
    record_line(msg, n, sizeof msg);
}
