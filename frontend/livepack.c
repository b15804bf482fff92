/*
 * record --pack while the program runs: a thread of record's own (never
 * the program's) that every 100 ms moves the closed blocks of each trace
 * in the staging folder, packed, into the trace's side file and frees
 * their pages (analyzer/readers/calltrace_livepack.c), so that a long run
 * needs about its packed size of disk.  It runs at a lower priority than
 * the program: on a busy machine it falls behind rather than slow the
 * program, and what it has not moved the final pack packs.
 */
#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "analyzer/readers/calltrace_pack.h"
#include "frontend/frontend.h"

#define LIVE_LEVEL CTR_PACK_LEVEL  /* the final pack keeps these frames */
#define LIVE_NAP_NS 100000000l
#define LIVE_NICE 5

struct trace_state {
    char *name;
    struct ctr_live *live;
};

struct ct_fe_livepack {
    char *staging;
    pthread_t thread;
    int stop;               /* atomic: set by ct_fe_livepack_stop        */
    struct trace_state *t;
    size_t n, cap;
    struct ctr_live_stats total;
};

static struct trace_state *state_of(struct ct_fe_livepack *lp,
                                    const char *name)
{
    for (size_t i = 0; i < lp->n; i++)
        if (strcmp(lp->t[i].name, name) == 0)
            return &lp->t[i];
    if (lp->n == lp->cap) {
        size_t cap = lp->cap ? 2 * lp->cap : 8;
        struct trace_state *g = realloc(lp->t, cap * sizeof *g);
        if (!g)
            return NULL;
        lp->t = g;
        lp->cap = cap;
    }
    char *path;
    if (asprintf(&path, "%s/%s", lp->staging, name) < 0)
        return NULL;
    struct trace_state *s = &lp->t[lp->n++];
    s->name = strdup(name);
    s->live = ctr_live_open(path, LIVE_LEVEL);
    free(path);
    return s;
}

/* One pass over the staging folder's traces. */
static void pass(struct ct_fe_livepack *lp)
{
    DIR *d = opendir(lp->staging);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!ct_fe_is_trace_name(e->d_name))
            continue;
        struct trace_state *s = state_of(lp, e->d_name);
        if (!s || !s->live || ctr_live_done(s->live))
            continue;
        char err[512] = "";
        if (ctr_live_step(s->live, err, sizeof err) < 0 && err[0])
            ct_fe_error("%s", err);
    }
    closedir(d);
}

static void *run(void *arg)
{
    struct ct_fe_livepack *lp = arg;
    /* This thread alone: the kernel takes a thread id here. */
    setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), LIVE_NICE);
    while (!__atomic_load_n(&lp->stop, __ATOMIC_ACQUIRE)) {
        pass(lp);
        struct timespec ts = {0, LIVE_NAP_NS};
        nanosleep(&ts, NULL);
    }
    return NULL;
}

struct ct_fe_livepack *ct_fe_livepack_start(const char *staging)
{
    struct ct_fe_livepack *lp = calloc(1, sizeof *lp);
    if (!lp)
        return NULL;
    lp->staging = strdup(staging);
    /* Every signal blocked in the thread, which inherits this mask: the
     * ones record waits for (SIGCHLD, SIGALRM, the forwarded ones) must
     * reach the thread that sleeps in sigsuspend for them. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    int rc = lp->staging ? pthread_create(&lp->thread, NULL, run, lp) : -1;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        free(lp->staging);
        free(lp);
        return NULL;
    }
    return lp;
}

void ct_fe_livepack_stop(struct ct_fe_livepack *lp)
{
    if (!lp)
        return;
    __atomic_store_n(&lp->stop, 1, __ATOMIC_RELEASE);
    pthread_join(lp->thread, NULL);
    for (size_t i = 0; i < lp->n; i++) {
        if (lp->t[i].live) {
            const struct ctr_live_stats *st = ctr_live_stats(lp->t[i].live);
            lp->total.moved += st->moved;
            lp->total.freed += st->freed;
        }
        ctr_live_close(lp->t[i].live);
        free(lp->t[i].name);
    }
    if (getenv("CT_LIVEPACK_STATS"))  /* tests: that it moved blocks */
        fprintf(stderr, "calltrace: live pack: %llu blocks moved, %llu "
                "bytes freed\n", (unsigned long long)lp->total.moved,
                (unsigned long long)lp->total.freed);
    free(lp->t);
    free(lp->staging);
    free(lp);
}
