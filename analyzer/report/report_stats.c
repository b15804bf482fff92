/*
 * --stats: the distribution of every function's and arc's per-call total
 * and self times (profile_dist.h); --sort=KEY: the order of the flat
 * profile and of this section; --slowest=FUNC: FUNC's longest calls, each
 * with the tree command that shows it.  docs/report-format.md describes
 * the output.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/model/match.h"
#include "analyzer/model/profile_dist.h"
#include "analyzer/report/report.h"
#include "analyzer/report/report_private.h"
#include "analyzer/util.h"

static const char *const sort_keys[] = {
    "self", "calls", "total", "avg", "min", "p50", "p90", "p99", "max",
    "name", NULL,
};

bool ct_sort_key_valid(const char *key)
{
    for (size_t i = 0; sort_keys[i]; i++)
        if (strcmp(key, sort_keys[i]) == 0)
            return true;
    return false;
}

bool ct_sort_needs_stats(const char *key)
{
    static const char *const dist_keys[] = {"min", "p50", "p90", "p99",
                                            "max", NULL};
    for (size_t i = 0; key && dist_keys[i]; i++)
        if (strcmp(key, dist_keys[i]) == 0)
            return true;
    return false;
}

/* The quantile in permille a distribution key names; -1 for others. */
static int key_permille(const char *key)
{
    static const struct { const char *k; int q; } q[] = {
        {"min", 0}, {"p50", 500}, {"p90", 900}, {"p99", 990}, {"max", 1000},
    };
    for (size_t i = 0; i < sizeof q / sizeof q[0]; i++)
        if (strcmp(key, q[i].k) == 0)
            return q[i].q;
    return -1;
}

uint64_t ct_rep_sort_key(const struct ct_rep *r, uint32_t func,
                         uint64_t self, uint64_t child, uint64_t calls)
{
    const char *key = r->o->sort ? r->o->sort : "self";
    if (strcmp(key, "calls") == 0)
        return calls;
    if (strcmp(key, "total") == 0)
        return self + child;
    if (strcmp(key, "avg") == 0)
        return calls ? (self + child) / calls : 0;
    if (strcmp(key, "name") == 0)
        return 0;
    int q = key_permille(key);
    if (q >= 0) {
        const struct ct_call_dist *d = ct_profile_func_dist(r->p, func);
        return d ? ct_hist_quantile(&d->total, (unsigned)q) : 0;
    }
    return self;
}

/* ---- --stats ---- */

struct srow {
    uint32_t func;
    uint64_t key;
    const char *name;
};

static int cmp_srow(const void *a, const void *b)
{
    const struct srow *x = a, *y = b;
    if (x->key != y->key)
        return x->key > y->key ? -1 : 1;
    return strcmp(x->name, y->name);
}

static void put_dur(struct ct_rep *r, uint64_t ticks)
{
    char buf[32];
    ct_rep_dur(buf, sizeof buf, ct_rep_ns(r, ticks));
    fprintf(r->out, " %9s", buf);
}

static void put_hist(struct ct_rep *r, const char *what,
                     const struct ct_hist *h)
{
    fprintf(r->out, "  %-5s", what);
    put_dur(r, h->min);
    put_dur(r, ct_hist_quantile(h, 500));
    put_dur(r, ct_hist_quantile(h, 900));
    put_dur(r, ct_hist_quantile(h, 990));
    put_dur(r, h->max);
    put_dur(r, h->sum);
}

/* Two lines: the calls' total times, then their self times. */
static void put_dist(struct ct_rep *r, const struct ct_call_dist *d,
                     const char *label, uint32_t index)
{
    fprintf(r->out, "%10" PRIu64, d->total.count);
    put_hist(r, "total", &d->total);
    fprintf(r->out, "  %s", label);
    if (index)
        fprintf(r->out, " [%" PRIu32 "]", index);
    fprintf(r->out, "\n%10s", "");
    put_hist(r, "self", &d->self);
    fputc('\n', r->out);
}

struct arow {
    uint32_t arc;
    uint64_t calls;
    const char *caller;
};

/* Most calls first, then by the caller's name: not by arc number, which
 * depends on the order the arcs were met in (and so on --jobs). */
static int cmp_arow(const void *a, const void *b)
{
    const struct arow *x = a, *y = b;
    if (x->calls != y->calls)
        return x->calls > y->calls ? -1 : 1;
    return strcmp(x->caller, y->caller);
}

/* The arcs into func, when more than one: with one, its figures are the
 * function's. */
static void put_arcs(struct ct_rep *r, uint32_t func)
{
    const struct ct_profile *p = r->p;
    struct arow *rows = NULL;
    size_t n = 0, cap = 0;
    for (uint32_t a = 0; a < p->narcs; a++) {
        const struct ct_call_dist *d = ct_profile_arc_dist(p, a);
        if (p->arcs[a].callee != func || !d)
            continue;
        uint32_t caller = p->arcs[a].caller;
        ct_grow(&rows, &cap, n, sizeof *rows);
        rows[n++] = (struct arow){
            .arc = a, .calls = d->total.count,
            .caller = caller == CT_FUNC_NONE ? "<spontaneous>"
                                             : ct_rep_name(r, caller),
        };
    }
    if (n > 1)
        qsort(rows, n, sizeof *rows, cmp_arow);
    for (size_t i = 0; n > 1 && i < n; i++) {
        uint32_t a = rows[i].arc;
        const struct ct_call_dist *d = ct_profile_arc_dist(p, a);
        uint32_t caller = p->arcs[a].caller;
        const char *cn = caller == CT_FUNC_NONE
                             ? "<spontaneous>"
                             : ct_rep_short_name(r, caller);
        size_t len = strlen(cn) + 16;
        char *label = ct_xmalloc(len);
        snprintf(label, len, "    <- %s", cn);
        put_dist(r, d, label,
                 caller == CT_FUNC_NONE ? 0 : r->index[caller]);
        free(label);
    }
    free(rows);
}

static const char stats_blurb[] =
    "\n"
    "calls      calls that returned (a call whose return the trace lacks,\n"
    "           or that was still running at its end, is left out).\n"
    "\n"
    "total      each call's time from its call to its return, its callees'\n"
    "           included (a recursive call's inner calls are calls too).\n"
    "self       each call's time in the function itself.\n"
    "\n"
    "min, max   exact; p50, p90, p99: the calls' median and 90th and 99th\n"
    "           percentiles (nearest rank), within 0.4% of a call's time;\n"
    "sum        exact (the flat profile also counts calls that never returned).\n"
    "\n"
    "<- CALLER  the calls from CALLER, shown when a function has several\n"
    "           callers.\n";

void ct_report_stats(struct ct_rep *r)
{
    const struct ct_profile *p = r->p;
    struct srow *rows = ct_xcalloc(p->nfuncs + 1, sizeof *rows);
    size_t n = 0;
    for (uint32_t f = 0; f < p->nfuncs; f++) {
        if (!ct_rep_listed(r, f) || !ct_profile_func_dist(p, f))
            continue;
        const struct ct_fstats *fs = &p->funcs[f];
        rows[n++] = (struct srow){
            .func = f, .name = ct_rep_short_name(r, f),
            .key = ct_rep_sort_key(r, f, fs->self_ticks, fs->child_ticks,
                                   fs->calls + fs->self_calls),
        };
    }
    qsort(rows, n, sizeof *rows, cmp_srow);
    FILE *out = r->out;
    fprintf(out, "Call time distributions:\n\nEvery call timed; sorted by "
            "%s.\n\n", r->o->sort ? r->o->sort : "self");
    fprintf(out, "%10s  %-5s %9s %9s %9s %9s %9s %9s  name\n", "calls", "",
            "min", "p50", "p90", "p99", "max", "sum");
    for (size_t i = 0; i < n; i++) {
        put_dist(r, ct_profile_func_dist(p, rows[i].func), rows[i].name,
                 r->index[rows[i].func]);
        put_arcs(r, rows[i].func);
    }
    if (!n)
        fputs("(no call returned)\n", out);
    if (!r->o->brief)
        fputs(stats_blurb, out);
    fputs("\f\n", out);
    free(rows);
}

/* ---- --slowest ---- */

/* A window holding [start, end] ns in whole microseconds. */
static void put_tree_command(FILE *out, const struct ct_profile *p,
                             const char *name, double start_ns,
                             double end_ns)
{
    unsigned long long from = (unsigned long long)floor(start_ns / 1e3);
    unsigned long long to = (unsigned long long)ceil(end_ns / 1e3);
    fprintf(out, "      calltrace tree --focus='%s' --time-range=%lluus..%lluus"
            " %s\n", name, from, to, p->info->path);
}

static void put_slowest(struct ct_rep *r, uint32_t func)
{
    const struct ct_profile *p = r->p;
    const struct ct_slow_call *c;
    size_t n = ct_profile_slowest(p, func, &c);
    FILE *out = r->out;
    uint64_t calls = p->funcs[func].calls + p->funcs[func].self_calls;
    fprintf(out, "Slowest calls of %s [%" PRIu32 "]: %zu of %" PRIu64
            " call(s)\n\n", ct_rep_name(r, func), r->index[func], n, calls);
    if (!n)
        return;
    fprintf(out, "%4s %10s %10s %12s  %s\n", "#", "total", "self", "start",
            "thread");
    uint64_t origin = ct_profile_origin(p);
    for (size_t i = 0; i < n; i++) {
        char tot[32], self[32], th[96];
        ct_rep_dur(tot, sizeof tot, ct_rep_ns(r, c[i].total));
        ct_rep_dur(self, sizeof self, ct_rep_ns(r, c[i].self));
        double start = ct_rep_ns(r, c[i].start - origin);
        double end = ct_rep_ns(r, c[i].end - origin);
        ct_trace_thread_label(p->info, c[i].thread, th, sizeof th);
        fprintf(out, "%4zu %10s %10s %11.6fs  %s\n", i + 1, tot, self,
                start / 1e9, th);
        put_tree_command(out, p, ct_rep_name(r, func), start, end);
    }
}

int ct_report_slowest(FILE *out, struct ct_profile *p,
                      const struct ct_view_opts *o)
{
    struct ct_rep r;
    ct_rep_init(&r, out, p, o);
    bool *chosen = ct_xcalloc(p->nfuncs + 1, sizeof *chosen);
    enum ct_select s = ct_name_select(o->slowest,
                                      (const char *const *)r.names,
                                      p->nfuncs, chosen);
    int status = CT_EXIT_OK;
    if (s != CT_SELECT_FOUND) {
        ct_error("--slowest '%s': %s in %s", o->slowest,
                 s == CT_SELECT_NONE ? "no function of that name"
                                     : "the start of several names",
                 p->info->path);
        status = CT_EXIT_USAGE;
    }
    bool first = true;
    for (uint32_t f = 0; status == CT_EXIT_OK && f < p->nfuncs; f++) {
        if (!chosen[f])
            continue;
        if (!first)
            fputc('\n', out);
        first = false;
        put_slowest(&r, f);
    }
    free(chosen);
    ct_rep_free(&r);
    return status;
}
