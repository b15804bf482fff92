/*
 * The processes a recorded program leaves running (a daemon's double
 * fork, a server started in the background): calltrace record is their
 * subreaper (PR_SET_CHILD_SUBREAPER), so they become its children when
 * their parents exit, and it waits for the traced ones before it moves the
 * recording into place.  A --timeout or Ctrl-C ends the wait; the
 * processes still running are then named, and their traces are kept as far
 * as they got.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "frontend/frontend.h"

void ct_fe_reap_begin(void)
{
    /* Failure (a kernel before 3.4) leaves orphans to init: their traces
     * may then be cut short, as before. */
    prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
}

/* ------------------------------------------------------ the process tree */
struct proc {
    int pid, ppid;
    char state;
    char comm[32];
};

struct procs {
    struct proc *p;
    size_t n;
};

static bool read_stat(int pid, struct proc *out)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    FILE *f = fopen(path, "re");
    if (!f)
        return false;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    /* "pid (comm) state ppid": comm may hold spaces and parentheses. */
    char *open = strchr(buf, '('), *close = strrchr(buf, ')');
    if (!open || !close || close < open)
        return false;
    /* A zombie stays: it links its children to us until they are
     * reparented (its maps are empty, so it is never counted as traced). */
    char state;
    if (sscanf(close + 1, " %c %d", &state, &out->ppid) != 2)
        return false;
    out->pid = pid;
    out->state = state;
    snprintf(out->comm, sizeof out->comm, "%.*s", (int)(close - open - 1),
             open + 1);
    return true;
}

/* Every live process on the machine, with its parent. */
static void list_procs(struct procs *ps)
{
    ps->n = 0;
    DIR *d = opendir("/proc");
    if (!d)
        return;
    size_t cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        struct proc p;
        if (*end || pid <= 0 || !read_stat((int)pid, &p))
            continue;
        if (ps->n == cap) {
            cap = cap ? 2 * cap : 256;
            struct proc *g = realloc(ps->p, cap * sizeof *g);
            if (!g)
                break;
            ps->p = g;
        }
        ps->p[ps->n++] = p;
    }
    closedir(d);
}

static bool descends_from(const struct procs *ps, int pid, int root)
{
    for (size_t hops = 0; hops < ps->n && pid > 1; hops++) {
        size_t i = 0;
        while (i < ps->n && ps->p[i].pid != pid)
            i++;
        if (i == ps->n)
            return false;
        pid = ps->p[i].ppid;
        if (pid == root)
            return true;
    }
    return false;
}

/* Whether the process has the tracer mapped (it may have exec'ed a static
 * program, or be an untraced helper: those are not waited for).  One that
 * was alive when listed but has no mappings now is exiting, perhaps just
 * after a fork whose child the listing missed: it counts, and its exit
 * wakes us for another look. */
static bool traced(const struct proc *p, const char *lib)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/maps", p->pid);
    FILE *f = fopen(path, "re");
    if (!f)
        return false;
    char line[4096 + 256];
    bool found = false, any = false;
    while (!found && fgets(line, sizeof line, f)) {
        any = true;
        found = strstr(line, lib) != NULL;
    }
    fclose(f);
    return found || (!any && p->state != 'Z');
}

/* Our traced descendants now, into *out; their count. */
static size_t traced_descendants(const char *lib, struct procs *ps,
                                 struct procs *out)
{
    list_procs(ps);
    out->n = 0;
    struct proc *g = realloc(out->p, (ps->n ? ps->n : 1) * sizeof *g);
    if (!g)
        return 0;
    out->p = g;
    int self = (int)getpid();
    for (size_t i = 0; i < ps->n; i++)
        if (descends_from(ps, ps->p[i].pid, self) &&
            traced(&ps->p[i], lib))
            out->p[out->n++] = ps->p[i];
    return out->n;
}

/* ------------------------------------------------------------- the wait */
static volatile sig_atomic_t stop_sig;

static void on_stop(int sig) { stop_sig = sig; }
static void on_wake(int sig) { (void)sig; }

static const int stops[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
#define NSTOPS (sizeof stops / sizeof stops[0])

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void reap_all(void)
{
    while (waitpid(-1, NULL, WNOHANG) > 0)
        ;
}

static void name_left(const struct procs *left, const char *why)
{
    for (size_t i = 0; i < left->n; i++)
        ct_fe_error("process %d (%s) still runs %s; its trace is kept as "
                    "far as it got", left->p[i].pid, left->p[i].comm, why);
}

void ct_fe_reap_wait(const char *lib, double timeout_s, bool quiet,
                     void (*on_tick)(void *), void *tick_arg)
{
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGCHLD);
    sigaddset(&block, SIGALRM);
    for (size_t i = 0; i < NSTOPS; i++)
        sigaddset(&block, stops[i]);
    sigprocmask(SIG_BLOCK, &block, &old);
    struct sigaction sa = { .sa_handler = on_stop }, wake = {
        .sa_handler = on_wake }, saved[NSTOPS], saved_chld, saved_alrm;
    sigemptyset(&sa.sa_mask);
    sigemptyset(&wake.sa_mask);
    for (size_t i = 0; i < NSTOPS; i++)
        sigaction(stops[i], &sa, &saved[i]);
    sigaction(SIGCHLD, &wake, &saved_chld);
    sigaction(SIGALRM, &wake, &saved_alrm);
    /* A tick: a descendant that exec'ed an untraced program or left the
     * tree sends no SIGCHLD; the timeout needs one too. */
    struct itimerval tick = { { 0, 200000 }, { 0, 200000 } }, saved_timer;
    setitimer(ITIMER_REAL, &tick, &saved_timer);
    sigset_t wait_mask = old;
    sigdelset(&wait_mask, SIGCHLD);
    sigdelset(&wait_mask, SIGALRM);
    for (size_t i = 0; i < NSTOPS; i++)
        sigdelset(&wait_mask, stops[i]);

    stop_sig = 0;
    double start = mono_s();
    bool announced = false;
    int untraced_seen = 0;
    struct procs all = {0}, left = {0};
    for (;;) {
        reap_all();
        /* No child left, no descendant: the usual end, without a look at
         * every process. */
        if (waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD)
            break;
        if (traced_descendants(lib, &all, &left) == 0) {
            /* Only untraced processes left (or none): a traced one in the
             * middle of an exec has no tracer mapped for a moment, so
             * one more look a tick later confirms. */
            if (waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD)
                break;
            if (untraced_seen++)
                break;
            sigsuspend(&wait_mask);
            continue;
        }
        untraced_seen = 0;
        double waited = mono_s() - start;
        if (stop_sig) {
            name_left(&left, "after Ctrl-C (or a signal) ended the wait");
            break;
        }
        if (timeout_s >= 0 && waited >= timeout_s) {
            name_left(&left, "after the --timeout");
            break;
        }
        if (!announced && !quiet && waited >= 1.0) {
            ct_fe_error("the program exited; waiting for the %zu traced "
                        "process%s it left running (first: %d %s); Ctrl-C "
                        "or --timeout ends the wait", left.n,
                        left.n == 1 ? "" : "es", left.p[0].pid,
                        left.p[0].comm);
            announced = true;
        }
        sigsuspend(&wait_mask);
        if (on_tick)
            on_tick(tick_arg);
    }
    free(all.p);
    free(left.p);
    setitimer(ITIMER_REAL, &saved_timer, NULL);
    /* A tick still pending would end us once SIGALRM is back to its
     * default. */
    sigset_t alrm;
    sigemptyset(&alrm);
    sigaddset(&alrm, SIGALRM);
    struct timespec now = {0};
    while (sigtimedwait(&alrm, NULL, &now) == SIGALRM)
        ;
    for (size_t i = 0; i < NSTOPS; i++)
        sigaction(stops[i], &saved[i], NULL);
    sigaction(SIGCHLD, &saved_chld, NULL);
    sigaction(SIGALRM, &saved_alrm, NULL);
    sigprocmask(SIG_SETMASK, &old, NULL);
}
