/*
 * The tracer's life in the process: start, clean close (quick_exit too),
 * fork, exec, crash signals, the toggle signal, and the hint for a program
 * that ran no instrumented function.  What a crash handler does must be
 * async-signal-safe: it only stores into mapped memory and calls munmap,
 * sigaction and raise.  The program sees and sets its own dispositions of
 * these signals through signals.c.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "preload/base/vec_upper.h"
#include "preload/args/args.h"
#include "preload/file/keeper.h"
#include "preload/patch/patch.h"
#include "preload/libcalls/plt.h"
#include "preload/profile/profile_mode.h"
#include "preload/sampling/sample.h"
#include "preload/filters/filter.h"
#include "preload/stream/stream.h"
#include "preload/tracer.h"

static const int crash_signals[] = {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL};
#define N_CRASH (sizeof crash_signals / sizeof *crash_signals)
static int exec_pending;

static struct ct_config *loading;

static void config_warn(const char *line)
{
    if (!loading || !loading->quiet)
        ct_message("%s", line);
}

static const char *env(const char *name)
{
    return ct_env_get(name);
}

static void toggle_handler(int sig)
{
    (void)sig;
    static int finished;
    int saved = errno;
    switch (ct_proc.cfg.toggle_action) {
    case CT_SIGACT_ON:
        __atomic_store_n(&ct_enabled, 1, __ATOMIC_RELAXED);
        break;
    case CT_SIGACT_OFF:
        __atomic_store_n(&ct_enabled, 0, __ATOMIC_RELAXED);
        break;
    case CT_SIGACT_FINISH:
        /* uftrace's --signal=SIG@finish: off, and no later signal turns
         * it on again (calltrace_enable() still can). */
        if (!finished)
            __atomic_store_n(&ct_enabled, 0, __ATOMIC_RELAXED);
        finished = 1;
        break;
    default:
        __atomic_xor_fetch(&ct_enabled, 1, __ATOMIC_RELAXED);
        break;
    }
    ct_global_update();
    errno = saved;
}

/* What the report uses of a crash: the thread's block closed (its CPU
 * time, its end), the thread and lost counts and the clock's rate in the
 * header.  The records themselves are safe in the shared mapping. */
static void close_here(void *unused)
{
    (void)unused;
    ct_thread_close_current(0);
    ct_file_finish(0);
}

/* On the tracer's stack: a crash may be a stack overflow handled on a
 * small alternate stack. */
static void close_for_crash(void)
{
    ct_deep_call(ct_self, close_here, NULL, 0);
}

/*
 * The program's own handler runs first, as it would without us: a handler
 * that returns (a fault it repaired) costs the trace nothing.  The trace
 * is closed when the program is about to die of the signal: its default
 * action, SIG_IGN for a fault (which the kernel makes fatal), and abort(),
 * whose SIGABRT is fatal whatever a handler does unless it jumps away.
 */
static void crash_handler(int sig, siginfo_t *info, void *ctx)
{
    int saved = errno;
    /* The trace's own mapping lost its storage: never the program's. */
    if (sig == SIGBUS && ct_file_fault(info)) {
        errno = saved;
        return;
    }
    struct sigaction prog;
    ct_sig_program(sig, &prog);
    /* sa_handler shares its storage with sa_sigaction */
    int handler = prog.sa_handler != SIG_DFL && prog.sa_handler != SIG_IGN;
    int sent = info && info->si_code <= 0;  /* kill, raise, sigqueue */
    if (prog.sa_handler == SIG_IGN && sent && sig != SIGABRT) {
        errno = saved;
        return;  /* ignored, as it would be */
    }
    if (!handler || sig == SIGABRT)
        close_for_crash();
    errno = saved;
    if (handler) {
        ct_sig_chain(sig, info, ctx);
        return;
    }
    /* Give the signal back to the program's disposition: a fault comes
     * again and is fatal, a sent signal is raised again, blocked while we
     * run and delivered, fatal, when we return. */
    ct_sig_release(sig);
    if (prog.sa_handler == SIG_DFL)
        raise(sig);
    errno = saved;
}

static void toggle_yield(int sig)
{
    ct_message("calltrace: the program installed its own handler for "
               "SIG%s (CALLTRACE_SIGNAL): its handler wins; the signal "
               "no longer toggles tracing", sigabbrev_np(sig));
}

/* A signal the program already handles stays the program's. */
static int program_handles(int sig)
{
    struct sigaction cur;
    return ct_sig_real(sig, NULL, &cur) != 0 || (cur.sa_flags & SA_SIGINFO) ||
           (cur.sa_handler != SIG_DFL && cur.sa_handler != SIG_IGN);
}

static void install_handlers(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = crash_handler;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < N_CRASH; i++)
        ct_sig_take(crash_signals[i], &sa, CT_SIG_CHAIN, NULL);
    int sig = ct_proc.cfg.toggle_signal;
    if (!sig)
        return;
    struct sigaction ts;
    memset(&ts, 0, sizeof ts);
    ts.sa_handler = toggle_handler;
    ts.sa_flags = SA_RESTART;
    sigemptyset(&ts.sa_mask);
    if (program_handles(sig) ||
        ct_sig_take(sig, &ts, CT_SIG_YIELD, toggle_yield) != 0)
        ct_message("calltrace: the program already handles SIG%s "
                   "(CALLTRACE_SIGNAL): its handler wins; the signal does "
                   "not toggle tracing", sigabbrev_np(sig));
}

/* The trace file is made at the first event when nothing needs it
 * sooner: not for a stream, a flight ring, the control socket or samples,
 * which need the file (or its header) from the start. */
static int open_trace(int forked_child, uint32_t ppid)
{
    if (ct_stream_wanted(ct_proc.cfg.output) || ct_proc.cfg.flight ||
        ct_proc.cfg.control || ct_proc.calls_off || ct_sample_wanted())
        return ct_file_open(forked_child, ppid);
    return ct_file_open_lazily(forked_child, ppid);
}

static void fork_prepare(void)
{
    ct_threads_lock();
    ct_threads_fork_keep(1);
}

static void fork_parent(void)
{
    ct_threads_fork_keep(0);
    ct_threads_unlock();
}

static void fork_child(void)
{
    if (ct_proc.started != 2) {
        ct_threads_unlock();
        return;
    }
    uint32_t ppid = ct_proc.pid;
    ct_proc.pid = (uint32_t)getpid();
    ct_proc.started = 1;
    ct_global_update();
    ct_thread_after_fork_child();
    ct_file_drop();
    if (open_trace(1, ppid) == 0) {
        ct_maps_write();
        ct_cpu_header_after_fork();
    }
    ct_proc.started = 2;
    ct_global_update();
    ct_sample_after_fork_child();
    ct_control_after_fork();
}

void ct_clone_prepare(void)
{
    fork_prepare();
}

void ct_clone_parent(void)
{
    fork_parent();
}

void ct_clone_child(void)
{
    fork_child();
}

static void quick_exit_close(void)
{
    ct_process_finish();
}

void ct_process_start(void)
{
    int expected = 0;
    if (!__atomic_compare_exchange_n(&ct_proc.started, &expected, 1, 0,
                                     __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
        return;
    int saved = errno;
    ct_message_start();
    ct_env_capture();
    loading = &ct_proc.cfg;
    ct_config_load(&ct_proc.cfg, env, config_warn);
    loading = NULL;
    /* The TSC's start window opens here and closes once the steps below
     * are done: every process pays the 100 us the window needs, so they
     * are spent on work, not in a wait. */
    ct_clock_begin(ct_proc.cfg.clock_monotonic);
    if (ct_proc.cfg.clock_fenced)
        ct_clock_fence();
    ct_enabled = !ct_proc.cfg.start_paused;
    ct_proc.pid = (uint32_t)getpid();
    ct_proc.calls_off = ct_sample_parse_mode(env("CALLTRACE_MODE")) ==
                        CT_MODE_SAMPLE;
    ct_tracer_stack_choose(ct_sample_wanted());
    ct_profile_start();
    if (ct_profile_stop)
        ct_profile_measure_bias();  /* the profile path's cost */
    else
        ct_measure_bias();  /* fills ct_proc.bias_*_ps */
    /* A first rate for the header, over the bias measurement's tens of us,
     * in case the process is killed before the window closes. */
    ct_clock_calibrate(0);
    if (open_trace(0, (uint32_t)getppid()) == 0) {
        install_handlers();
        ct_flight_start();
        pthread_atfork(fork_prepare, fork_parent, fork_child);
        /* quick_exit ends in libc's internal _exit, which no wrapper sees
         * and which runs no destructor.  Registered first, this runs after
         * the program's own at_quick_exit handlers. */
        at_quick_exit(quick_exit_close);
        /* before the slots get their rules; a profile writes no call,
         * so it keeps no values */
        if (!ct_profile_stop)
            ct_args_start();
        else if (ct_env_get("CALLTRACE_ARGS"))
            ct_message("calltrace: CALLTRACE_ARGS: the profile mode keeps "
                       "no call's values; the rules are not used");
        /* before any stub or patched entry is used */
        ct_vec_upper_init();
        /* Before the library calls: an object with patched entries calls
         * no hook, and its library calls are recorded all the same. */
        if (!ct_proc.calls_off) {
            ct_clock_hooks_point();  /* before the argument rules' */
            ct_patch_start();
        }
        ct_plt_start(ct_proc.calls_off ? CT_LIBCALLS_NONE
                                       : ct_proc.cfg.libcalls);
        /* without library calls (the sampling mode's too) it measures
         * nothing */
        ct_plt_measure_bias();
        /* after the library calls' slots, which it lists (the readers'
         * bias), and before any call of the program's is recorded */
        ct_maps_write();
        if (!ct_proc.calls_off)
            ct_args_site_start();
    }
    /* Record-time filters decide per written call; a profile writes none */
    if ((ct_proc.hdr || ct_file_pending()) && !ct_proc.calls_off &&
        !ct_profile_stop)
        ct_filter_start();
    /* 100 us pins the TSC rate to a few 1e-4 (clock_gettime's jitter is
     * tens of ns): under a ns of error over a run of a ms.  Longer runs
     * are recalibrated over the run so far at each new block, at a crash
     * and at exit. */
    ct_clock_calibrate(100);
    if (ct_proc.hdr)
        __atomic_store_n(&ct_proc.hdr->tick_hz, ct_clock.tick_hz,
                         __ATOMIC_RELAXED);
    ct_proc.started = 2;
    ct_global_update();
    if (ct_proc.hdr || ct_file_pending())
        ct_sample_init();
    ct_control_start();
    errno = saved;
}

/* An empty trace with no word why is the first thing a user of a program
 * built without -finstrument-functions meets: say it here and in the
 * header, so the report says it too.  Not before exec, where the new image
 * may well be instrumented. */
/* 1 when the parent process has this library mapped: a helper that a
 * traced program started (system(), a shell's child) keeps quiet, only
 * the header tells.  The parent's maps are read once, at exit. */
static int parent_is_traced(void)
{
    Dl_info self;
    if (!dladdr((void *)&ct_proc, &self) || !self.dli_fname)
        return 0;
    const char *base = strrchr(self.dli_fname, '/');
    base = base ? base + 1 : self.dli_fname;
    size_t blen = strlen(base);
    if (blen == 0 || blen >= 256)
        return 0;
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/maps", (int)getppid());
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    /* Chunks overlap by the name's length, so no match is split. */
    char buf[4096 + 256];
    size_t have = 0;
    int found = 0;
    ssize_t n;
    while (!found && (n = read(fd, buf + have, 4096)) > 0) {
        have += (size_t)n;
        buf[have] = '\0';
        found = memmem(buf, have, base, blen) != NULL;
        size_t keep = have < blen ? have : blen;
        memmove(buf, buf + have - keep, keep);
        have = keep;
    }
    close(fd);
    return found;
}

static void tell_if_no_calls_ran(void)
{
    if (ct_proc.calls_ran || ct_proc.calls_off || !ct_proc.hdr ||
        ct_proc.failed || exec_pending)
        return;
    __atomic_fetch_or(&ct_proc.hdr->flags, CT_FILE_NO_CALLS_RAN,
                      __ATOMIC_RELAXED);
    /* CALLTRACE_MODE=both: the samples are there to look at, and the
     * report's summary says that no call ran; stderr stays the program's */
    if (ct_proc.cfg.quiet || parent_is_traced() || ct_proc.sample_interval_ns)
        return;
    ct_message("calltrace: %s ran no instrumented function, so the trace "
               "has no calls; build it with -finstrument-functions, or use "
               "CALLTRACE_MODE=sample", ct_proc.hdr->exe[0] ?
               ct_proc.hdr->exe : "the program");
}

void ct_process_finish(void)
{
    if (ct_proc.started != 2 || ct_proc.finished)
        return;
    /* _exit in a child sharing our memory (vfork, clone(CLONE_VM)): the
     * trace is the parent's, which goes on. */
    if ((uint32_t)getpid() != ct_proc.pid)
        return;
    int saved = errno;
    ct_proc.finished = 1;
    ct_sample_stop();
    ct_control_stop();
    ct_thread_close_current(0);
    ct_threads_end_others();
    ct_maps_write_if_changed();
    tell_if_no_calls_ran();
    ct_file_finish(1);
    ct_keeper_closing();
    errno = saved;
}

void ct_exec_prepare(void)
{
    /* A vfork child too: its dispositions are its own. */
    ct_sig_before_exec();
    /* After vfork the child shares our memory: the trace is the parent's. */
    if (ct_proc.started != 2 || ct_proc.finished ||
        (uint32_t)getpid() != ct_proc.pid)
        return;
    exec_pending = 1;
    ct_process_finish();
    ct_keeper_stop();
}

void ct_exec_failed(void)
{
    ct_sig_exec_failed();
    if (!exec_pending)
        return;
    exec_pending = 0;
    ct_proc.finished = 0;
    ct_threads_resume_others();
    ct_keeper_resume();
    if (ct_proc.hdr)
        __atomic_fetch_and(&ct_proc.hdr->flags, ~CT_FILE_FINISHED,
                           __ATOMIC_RELAXED);
}

