/*
 * Running the recorded program as a child that owns the terminal as much as
 * calltrace does: the same standard streams, the same process group (so
 * Ctrl-C and Ctrl-\ from the terminal reach it directly, while calltrace
 * ignores them and waits for its verdict), and signals sent to calltrace
 * alone (kill PID, a closed terminal) handed on to it.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "frontend/frontend.h"

static volatile sig_atomic_t child_pid;

static void forward(int sig)
{
    if (child_pid > 0)
        kill((pid_t)child_pid, sig);
}

static const int ignored[] = { SIGINT, SIGQUIT };
static const int forwarded[] = { SIGTERM, SIGHUP, SIGUSR1, SIGUSR2 };
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

struct saved {
    struct sigaction ignored[COUNT(ignored)], forwarded[COUNT(forwarded)];
};

static void take_signals(struct saved *s)
{
    struct sigaction ign = { .sa_handler = SIG_IGN };
    sigemptyset(&ign.sa_mask);
    for (size_t i = 0; i < COUNT(ignored); i++)
        sigaction(ignored[i], &ign, &s->ignored[i]);
    struct sigaction fwd = { .sa_handler = forward, .sa_flags = SA_RESTART };
    sigemptyset(&fwd.sa_mask);
    for (size_t i = 0; i < COUNT(forwarded); i++)
        sigaction(forwarded[i], &fwd, &s->forwarded[i]);
}

static void give_back_signals(const struct saved *s)
{
    for (size_t i = 0; i < COUNT(ignored); i++)
        sigaction(ignored[i], &s->ignored[i], NULL);
    for (size_t i = 0; i < COUNT(forwarded); i++)
        sigaction(forwarded[i], &s->forwarded[i], NULL);
}

static int exit_status(int st)
{
    if (WIFSIGNALED(st))
        return 128 + WTERMSIG(st);
    return WEXITSTATUS(st);
}

static int wait_for(pid_t pid)
{
    int st;
    while (waitpid(pid, &st, 0) < 0) {
        if (errno != EINTR) {
            ct_fe_error("waiting for the program: %m");
            return -1;
        }
    }
    return exit_status(st);
}

/* wait_for with a tick every CT_FE_TICK_S: SIGCHLD (blocked by the
 * caller) ends each nap early, so the program's end is seen at once. */
static int wait_ticking(pid_t pid, const struct ct_fe_wait *w)
{
    sigset_t chld;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    struct timespec nap = { 0, (long)(CT_FE_TICK_S * 1e9) };
    for (;;) {
        int st;
        pid_t r = waitpid(pid, &st, WNOHANG);
        if (r == pid)
            return exit_status(st);
        if (r < 0 && errno != EINTR) {
            ct_fe_error("waiting for the program: %m");
            return -1;
        }
        if (r == 0 && sigtimedwait(&chld, NULL, &nap) < 0 && errno == EAGAIN)
            w->tick(w->tick_arg);
    }
}

/* In the child: the program gets the dispositions calltrace was started
 * with (an ignored SIGINT stays ignored, as under nohup), then runs. */
static void __attribute__((noreturn))
exec_child(char *const argv[], char *const env_add[], const struct saved *s,
           const sigset_t *mask)
{
    give_back_signals(s);
    sigprocmask(SIG_SETMASK, mask, NULL);
    for (size_t i = 0; env_add && env_add[i]; i++)
        if (putenv(env_add[i]) != 0)
            _exit(127);
    execvp(argv[0], argv);
    int err = errno;
    fprintf(stderr, "calltrace: cannot run %s: %s\n", argv[0], strerror(err));
    _exit(err == ENOENT ? 127 : 126);
}

int ct_fe_spawn(char *const argv[], char *const env_add[],
                const struct ct_fe_wait *tree)
{
    sigset_t all, old;
    sigfillset(&all);
    /* Blocked until child_pid is set, so a forwarded signal is never lost
     * between fork and the assignment. */
    sigprocmask(SIG_BLOCK, &all, &old);
    struct saved saved;
    take_signals(&saved);
    if (tree)
        ct_fe_reap_begin();
    pid_t pid = fork();
    if (pid < 0) {
        ct_fe_error("cannot start %s: %m", argv[0]);
        give_back_signals(&saved);
        sigprocmask(SIG_SETMASK, &old, NULL);
        return -1;
    }
    if (pid == 0)
        exec_child(argv, env_add, &saved, &old);
    child_pid = pid;
    int status;
    if (tree && tree->tick) {
        /* SIGCHLD stays blocked while we wait, for sigtimedwait. */
        sigset_t waiting = old;
        sigaddset(&waiting, SIGCHLD);
        sigprocmask(SIG_SETMASK, &waiting, NULL);
        status = wait_ticking(pid, tree);
        sigprocmask(SIG_SETMASK, &old, NULL);
    } else {
        sigprocmask(SIG_SETMASK, &old, NULL);
        status = wait_for(pid);
    }
    child_pid = 0;
    if (tree)
        ct_fe_reap_wait(tree->lib, tree->timeout_s, tree->quiet, tree->tick,
                        tree->tick_arg);
    give_back_signals(&saved);
    return status;
}

int ct_fe_run_tool(char *const argv[])
{
    pid_t pid = fork();
    if (pid < 0) {
        ct_fe_error("cannot start %s: %m", argv[0]);
        return -1;
    }
    if (pid == 0) {
        execv(argv[0], argv);
        fprintf(stderr, "calltrace: cannot run %s: %s\n", argv[0],
                strerror(errno));
        _exit(126);
    }
    return wait_for(pid);
}
