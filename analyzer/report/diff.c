/*
 * --diff=OLD in the report form: both runs' profiles, their functions and
 * arcs matched (diff_match.c) and printed as two tables sorted by the size
 * of the change.  The format is documented in docs/analysis.md ("The diff
 * of two runs"); tests/e2e/report_diff.sh reads it by its columns.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/report/diff.h"
#include "analyzer/report/diff_match.h"
#include "analyzer/model/view_opts.h"
#include "analyzer/model/profile.h"
#include "analyzer/model/profile_dist.h"
#include "analyzer/util.h"

/* ------------------------------------------------------------------- */
/* One run's functions and arcs as diff_match.h takes them. */
struct side_data {
    struct ct_diff_fn *fns;
    struct ct_diff_arc *arcs;
};

/* p99 of the total time per call (ns): 0 when no call returned, NAN when
 * calls were made but the run keeps no call one by one (a sampled trace,
 * a profile of CALLTRACE_MODE=profile): shown as "-", never as 0. */
static double p99_of(const struct ct_profile *p, const struct ct_call_dist *d,
                     uint64_t calls)
{
    if (!d)
        return calls ? NAN : 0;
    return ct_ticks_to_ns(p->info, ct_hist_quantile(&d->total, 990));
}

static struct ct_diff_side side_of(struct ct_profile *p, struct side_data *sd)
{
    const struct ct_trace_info *info = p->info;
    uint32_t n = p->nfuncs;
    if (ct_functab_count(info->funcs) < n)
        n = ct_functab_count(info->funcs);
    sd->fns = ct_xcalloc(n + 1, sizeof *sd->fns);
    for (uint32_t f = 0; f < n; f++) {
        const struct ct_fstats *fs = &p->funcs[f];
        const struct ct_func *fn = ct_functab_get(info->funcs, f);
        sd->fns[f] = (struct ct_diff_fn){
            .name = fn ? fn->name : NULL, .file = fn ? fn->file : NULL,
            .v = {.calls = fs->calls + fs->self_calls,
                  .self_ns = ct_ticks_to_ns(info, fs->self_ticks),
                  .total_ns = ct_ticks_to_ns(info, fs->self_ticks +
                                                       fs->child_ticks),
                  .p99_ns = p99_of(p, ct_profile_func_dist(p, f),
                                    fs->calls + fs->self_calls)}};
    }
    sd->arcs = ct_xcalloc(p->narcs + 1, sizeof *sd->arcs);
    for (uint32_t a = 0; a < p->narcs; a++) {
        const struct ct_arc *arc = &p->arcs[a];
        sd->arcs[a] = (struct ct_diff_arc){
            .caller = arc->caller == CT_FUNC_NONE ? CT_DIFF_NONE : arc->caller,
            .callee = arc->callee,
            .v = {.calls = arc->count,
                  .self_ns = ct_ticks_to_ns(info, arc->self_ticks),
                  .total_ns = ct_ticks_to_ns(info, arc->self_ticks +
                                                       arc->child_ticks),
                  .p99_ns = p99_of(p, ct_profile_arc_dist(p, a), arc->count)}};
    }
    return (struct ct_diff_side){sd->fns, n, sd->arcs, p->narcs};
}

/* ------------------------------------------------------------------- */
struct printer {
    FILE *out;
    const struct ct_diff *d;
    bool *same_name;        /* per function row: another row has its name */
    double unit_ns;
    const char *unit;
};

static void pick_unit(struct printer *pr, double max_ns)
{
    static const struct { double ns; const char *name; } units[] = {
        {1e9, "s"}, {1e6, "ms"}, {1e3, "us"}, {1, "ns"}};
    size_t u = 0;
    while (u < 3 && max_ns < 10 * units[u].ns)
        u++;
    pr->unit_ns = units[u].ns;
    pr->unit = units[u].name;
}

static void percent(char *buf, size_t len, double old, double new)
{
    if (old == 0)
        snprintf(buf, len, "%s", new == 0 ? "0.0%" : "new");
    else
        snprintf(buf, len, "%+.1f%%", 100.0 * (new - old) / old);
}

static void time_cols(const struct printer *pr, double old, double new)
{
    char pct[32];
    percent(pct, sizeof pct, old, new);
    fprintf(pr->out, " %10.3f %10.3f %+10.3f %8s", old / pr->unit_ns,
            new / pr->unit_ns, (new - old) / pr->unit_ns, pct);
}

static void func_name(const struct printer *pr, uint32_t f)
{
    const struct ct_diff_row *r = &pr->d->funcs[f];
    fputs(r->name, pr->out);
    if (pr->same_name[f])
        fprintf(pr->out, " (%s)", r->file && *r->file ? r->file : "?");
}

static void p99_cols(const struct printer *pr, double old, double new)
{
    char pct[32] = "-";
    if (!isnan(old) && !isnan(new))
        percent(pct, sizeof pct, old, new);
    double v[2] = {old, new};
    for (int s = 0; s < 2; s++)
        if (isnan(v[s]))
            fprintf(pr->out, " %10s", "-");
        else
            fprintf(pr->out, " %10.3f", v[s] / pr->unit_ns);
    fprintf(pr->out, " %8s", pct);
}

static void row(const struct printer *pr, const struct ct_diff_row *r)
{
    time_cols(pr, r->v[0].self_ns, r->v[1].self_ns);
    fputs("  ", pr->out);
    time_cols(pr, r->v[0].total_ns, r->v[1].total_ns);
    fputs("  ", pr->out);
    p99_cols(pr, r->v[0].p99_ns, r->v[1].p99_ns);
    fprintf(pr->out, "  %10" PRIu64 " %10" PRIu64 " %+11" PRId64 "  %-4s  ",
            r->v[0].calls, r->v[1].calls,
            (int64_t)(r->v[1].calls - r->v[0].calls),
            r->in[0] && r->in[1] ? "both" : r->in[0] ? "old" : "new");
    if (r->name) {
        func_name(pr, r->id);
    } else {
        if (r->caller == CT_DIFF_NONE)
            fputs("<spontaneous>", pr->out);
        else
            func_name(pr, r->caller);
        fputs(" -> ", pr->out);
        func_name(pr, r->callee);
    }
    fputc('\n', pr->out);
}

static void table(const struct printer *pr, const char *title,
                  struct ct_diff_row *rows, size_t n, double min_ns,
                  const char *what)
{
    ct_diff_sort(rows, n, pr->d);
    size_t shown = 0;
    for (size_t i = 0; i < n; i++)
        shown += ct_diff_shown(&rows[i], min_ns);
    fprintf(pr->out, "\n%s: %zu of %zu, largest change in self time first "
            "(times in %s):\n\n", title, shown, n, pr->unit);
    fprintf(pr->out, " %-41s   %-41s   %-30s   %s\n", "self time",
            "total time", "p99 of total time per call", "calls");
    for (int k = 0; k < 2; k++)
        fprintf(pr->out, "%s %10s %10s %10s %8s", k ? "  " : "", "old", "new",
                "change", "change%");
    fprintf(pr->out, "   %10s %10s %8s", "old", "new", "change%");
    fprintf(pr->out, "  %10s %10s %11s  %-4s  %s\n", "old", "new", "change",
            "in", what);
    for (size_t i = 0; i < n; i++)
        if (ct_diff_shown(&rows[i], min_ns))
            row(pr, &rows[i]);
}

static double max_time(const struct ct_diff *d, const double total[2])
{
    double m = fmax(total[0], total[1]);
    for (size_t i = 0; i < d->nfuncs; i++)
        for (int s = 0; s < 2; s++)
            m = fmax(m, d->funcs[i].v[s].total_ns);
    return m;
}

static void summary(const struct printer *pr, struct ct_profile *p[2],
                    const double total[2])
{
    FILE *out = pr->out;
    fputs("Diff of two runs\n", out);
    for (int s = 0; s < 2; s++) {
        const struct ct_trace_info *info = p[s]->info;
        fprintf(out, "  %s: %s", s ? "new" : "old", info->path);
        if (info->program[0])
            fprintf(out, " (%s)", info->program);
        /* a sampled run has no calls; its times are estimates */
        if (info->sampled)
            fputs(" [sampled: times estimated from samples, no calls]", out);
        fputc('\n', out);
    }
    char unit[32], pct[32];
    snprintf(unit, sizeof unit, "total time (%s)", pr->unit);
    fprintf(out, "\n%-16s %12s %12s %12s %8s\n", "", "old", "new", "change",
            "change%");
    percent(pct, sizeof pct, total[0], total[1]);
    fprintf(out, "%-16s %12.3f %12.3f %+12.3f %8s\n", unit,
            total[0] / pr->unit_ns, total[1] / pr->unit_ns,
            (total[1] - total[0]) / pr->unit_ns, pct);
    percent(pct, sizeof pct, (double)p[0]->counts.calls,
            (double)p[1]->counts.calls);
    fprintf(out, "%-16s %12" PRIu64 " %12" PRIu64 " %+12" PRId64 " %8s\n",
            "calls", p[0]->counts.calls, p[1]->counts.calls,
            (int64_t)(p[1]->counts.calls - p[0]->counts.calls), pct);
}

static const char blurb[] =
"\n"
"Each function of the two runs is matched by its name and source file (by\n"
"its name alone when one run has no file for it, or it moved), each arc by\n"
"the functions at its ends, so that two builds of a program compare.\n"
"self time   time in the function itself, old and new run, the change\n"
"            (new - old) and the change relative to the old run ('new':\n"
"            the old run spent nothing there);\n"
"total time  self time plus the time of its callees (recursion counted\n"
"            once; for an arc: the callee's, during the calls on it);\n"
"p99         of the total time of each call, old and new run, and its\n"
"            change relative to the old run (quantiles within 0.4%, as\n"
"            --stats gives them);\n"
"calls       calls in each run and their change, exact;\n"
"in          both, old (the new run has no call of it) or new.\n"
"Rows are sorted by the size of the change in self time, then in total\n"
"time, then in calls.  --threshold=PCT leaves out the rows whose calls are\n"
"the same and whose times changed by less than PCT% of the larger run's\n"
"total time; the title says how many rows are shown.\n";

static bool *mark_same_names(const struct ct_diff *d)
{
    /* rows come out of ct_diff_build sorted by name */
    bool *same = ct_xcalloc(d->nfuncs + 1, sizeof *same);
    for (size_t i = 1; i < d->nfuncs; i++)
        if (strcmp(d->funcs[i].name, d->funcs[i - 1].name) == 0)
            same[i] = same[i - 1] = true;
    return same;
}

static void print_diff(FILE *out, struct ct_profile *p[2],
                       const struct ct_view_opts *o)
{
    struct side_data sd[2];
    struct ct_diff_side side[2] = {side_of(p[0], &sd[0]),
                                   side_of(p[1], &sd[1])};
    struct ct_diff d;
    ct_diff_build(&d, side);
    double total[2] = {ct_ticks_to_ns(p[0]->info, p[0]->totals.cpu),
                       ct_ticks_to_ns(p[1]->info, p[1]->totals.cpu)};
    struct printer pr = {.out = out, .d = &d,
                         .same_name = mark_same_names(&d)};
    pick_unit(&pr, max_time(&d, total));
    double min_ns = o->diff_threshold / 100 * fmax(total[0], total[1]);
    summary(&pr, p, total);
    /* the arcs' ends are rows of the function table: sort a copy */
    struct ct_diff_row *funcs = ct_xmalloc((d.nfuncs + 1) * sizeof *funcs);
    memcpy(funcs, d.funcs, d.nfuncs * sizeof *funcs);
    if (!o->graph_only)
        table(&pr, "Functions", funcs, d.nfuncs, min_ns, "function");
    if (!o->flat_only)
        table(&pr, "Arcs", d.arcs, d.narcs, min_ns, "caller -> callee");
    if (!o->brief)
        fputs(blurb, out);
    free(funcs);
    free(pr.same_name);
    ct_diff_free(&d);
    for (int s = 0; s < 2; s++) {
        free(sd[s].fns);
        free(sd[s].arcs);
    }
}

void ct_diff_print(FILE *out, struct ct_profile *oldp, struct ct_profile *newp,
                   const struct ct_view_opts *o)
{
    struct ct_profile *p[2] = {oldp, newp};
    print_diff(out, p, o);
}

