/* Section 2: the flat profile, in gprof's columns. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/model/profile_lines.h"
#include "analyzer/report/report_private.h"
#include "analyzer/util.h"

struct row {
    const char *name;        /* display name (not owned)                  */
    char *owned;             /* --by-line keys                            */
    uint32_t index;          /* call-graph index, 0 = none                */
    uint64_t self, child, calls;
    uint64_t key;            /* --sort: the key, largest first            */
    bool uncertain;          /* less left than the bias taken off        */
};

static int cmp_row(const void *a, const void *b)
{
    const struct row *x = a, *y = b;
    if (x->key != y->key)
        return x->key > y->key ? -1 : 1;
    if (x->self != y->self)
        return x->self > y->self ? -1 : 1;
    if (x->calls != y->calls)
        return x->calls > y->calls ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* "name (file:line)", or the name alone when the line is unknown. */
static char *line_name(const char *name, const char *file, uint32_t line)
{
    size_t len = strlen(name) + (file ? strlen(file) : 0) + 24;
    char *s = ct_xmalloc(len);
    if (file)
        snprintf(s, len, "%s (%s:%" PRIu32 ")", name, file, line);
    else
        snprintf(s, len, "%s", name);
    return s;
}

/* --by-line from stack samples with pcs: one row per line sampled. */
static size_t rows_of_lines(struct ct_rep *r, const struct ct_line_profile *lp,
                            struct row **rowsp)
{
    uint64_t unit = lp->ticks_per_sample;
    struct row *rows = ct_xcalloc(lp->nelems + 1, sizeof *rows);
    for (uint32_t i = 0; i < lp->nelems; i++) {
        const struct ct_line_elem *e = &lp->elems[i];
        rows[i].owned = line_name(ct_rep_name(r, e->func), e->file, e->line);
        rows[i].name = rows[i].owned;
        rows[i].self = e->self * unit;
        rows[i].child = (e->total - e->self) * unit;
        rows[i].calls = e->calls;
    }
    *rowsp = rows;
    return lp->nelems;
}

/* --by-line without pcs (aggregated or traced data): the functions, each
 * at its own file:line as the input gives it. */
static void name_by_definition(struct ct_rep *r, struct row *rows, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t f = rows[i].index; /* func id, see caller */
        const struct ct_func *fn = ct_functab_get(r->p->info->funcs, f);
        if (fn && fn->file) {
            rows[i].owned = line_name(rows[i].name, fn->file, fn->line);
            rows[i].name = rows[i].owned;
        }
        rows[i].index = 0;
    }
}

static const char blurb[] =
    "\n"
    " %         share of the total self time (the cpu figure of the\n"
    "time       summary) spent in this function itself.\n"
    "\n"
    "cumulative running sum of the self column down to this line.\n"
    "\n"
    " self      time spent in this function itself, not in what it\n"
    "           calls; the list is sorted by it.\n"
    "\n"
    "calls      how often the function was called (recursive calls\n"
    "           included); for sampled data, samples showing the call.\n"
    "\n"
    " self      self time divided by calls.\n"
    "per call\n"
    "\n"
    " total     self plus children time divided by calls; recursion is\n"
    "per call   counted once.\n"
    "\n"
    "name       the function; the bracketed number is its index in the\n"
    "           call graph.  Ties are broken by calls, then by name.  With\n"
    "           --subtract-bias, ~ marks a function left with less self\n"
    "           time than the bias taken off it (a library call: than\n"
    "           that and what its stub costs beyond a hooked call, which\n"
    "           stays on it): uncertain by more than its figure.\n"
    "\n"
    "Times are measured, not sampled: the column headings name their unit\n"
    "(seconds, ms, us or ns).  The per-call columns' unit is chosen so that\n"
    "the smallest per-call figure is at least 1.\n";

/* Only in a sampled profile, whose shares are estimates. */
static const char blurb_sampled[] =
    "\n"
    " +-        one binomial standard error of the % time share, in\n"
    "           points: 100 sqrt(p (1 - p) / N) for a share p of N\n"
    "           samples; about two thirds of repeated runs land within\n"
    "           it, nearly all within three.\n";

/* The samples the shares are of: every function's self samples. */
static uint64_t sample_count(const struct ct_profile *p)
{
    uint64_t n = 0;
    for (uint32_t f = 0; f < p->nfuncs; f++)
        n += p->funcs[f].samples_self;
    return n;
}

/* One binomial standard error, in points, of a share of pct percent. */
static double share_error(double pct, uint64_t n)
{
    if (!n)
        return 0;
    double q = pct / 100.0;
    if (q > 1)
        q = 1;
    return 100.0 * sqrt(q * (1 - q) / (double)n);
}

void ct_report_flat(struct ct_rep *r)
{
    FILE *out = r->out;
    struct ct_profile *p = r->p;
    struct row *rows = ct_xcalloc(p->nfuncs + 1, sizeof *rows);
    size_t n = 0;
    double total_ns = ct_rep_ns(r, r->print_ticks);
    /* --cpu: the same columns for the time on the CPU only */
    bool oncpu = r->o->oncpu && !r->o->by_line;
    uint64_t whole = oncpu ? 0 : r->print_ticks;
    uint64_t *taken = r->o->by_line ? NULL : ct_rep_bias_taken(r);
    size_t nuncertain = 0;
    for (uint32_t f = 0; f < p->nfuncs; f++) {
        if (!ct_rep_listed(r, f))
            continue;
        const struct ct_fstats *fs = &p->funcs[f];
        rows[n++] = (struct row){
            .name = ct_rep_short_name(r, f), .index = r->o->by_line ? f
                                                               : r->index[f],
            .self = fs->self_ticks, .child = fs->child_ticks,
            .calls = fs->calls + fs->self_calls,
            .uncertain = taken && fs->self_ticks < taken[f],
        };
        nuncertain += rows[n - 1].uncertain;
        if (oncpu) {
            struct row *w = &rows[n - 1];
            w->self -= fs->off_self_ticks < w->self ? fs->off_self_ticks
                                                    : w->self;
            w->child -= fs->off_child_ticks < w->child ? fs->off_child_ticks
                                                       : w->child;
            whole += w->self;
        }
        struct row *w = &rows[n - 1];
        if (r->o->sort)
            w->key = ct_rep_sort_key(r, f, w->self, w->child, w->calls);
    }
    const struct ct_line_profile *lp = r->o->by_line ? ct_profile_lines(p)
                                                     : NULL;
    if (lp) {
        free(rows);
        n = rows_of_lines(r, lp, &rows);
    } else if (r->o->by_line) {
        name_by_definition(r, rows, n);
    }
    qsort(rows, n, sizeof *rows, cmp_row);

    /* Per-call figures: one unit for the two columns, the largest in
     * which the smallest figure is still at least 1, so that no call
     * shows as 0.00 because a long one set the unit; the columns widen
     * past gprof's 8 characters when the longest needs it. */
    double min_call = 0, max_call = 0;
    for (size_t i = 0; i < n; i++)
        if (rows[i].calls) {
            double c = (double)rows[i].calls;
            double v[2] = {ct_rep_ns(r, rows[i].self) / c,
                           ct_rep_ns(r, rows[i].self + rows[i].child) / c};
            for (int k = 0; k < 2; k++) {
                if (v[k] > max_call)
                    max_call = v[k];
                if (v[k] > 0 && (min_call == 0 || v[k] < min_call))
                    min_call = v[k];
            }
        }
    struct ct_unit pc = ct_unit_per_call(min_call, max_call);
    char widest[64];
    int w = snprintf(widest, sizeof widest, "%.2f", max_call / pc.ns);
    if (w < 8)
        w = 8;
    char pcname[16];
    snprintf(pcname, sizeof pcname, "%s/call", pc.name);

    /* A sampled share is an estimate: its standard error goes beside it,
     * in a column of its own after gprof's first. */
    bool sampled = ct_rep_sampled(r);
    uint64_t nsamples = sampled ? sample_count(p) : 0;

    fputs("Flat profile:\n\n", out);
    char gran[64];
    const char *g = ct_rep_granularity(r, gran, sizeof gran);
    fprintf(out, "%c%s; %s are in %s, per-call times in %s.\n",
            g[0] == 'e' ? 'E' : g[0], g + 1,
            oncpu ? "on-CPU times (off-CPU time left out)" : "times",
            r->unit.column, pc.name);
    if (r->o->sort)
        fprintf(out, "Sorted by %s (--sort).\n", r->o->sort);
    /* gprof's heading, with the per-call columns' extra width in front */
    fprintf(out, "  %%%s   cumulative   self              %*sself     %*stotal"
            "           \n", sampled ? "       " : "", w - 8, "", w - 8, "");
    /* A sampled profile's count column holds samples, not calls. */
    fprintf(out, " time%s %9s %9s %8s %*s %*s  name    \n",
            sampled ? "     +-" : "", r->unit.column,
            r->unit.column, sampled ? "samples" : "calls", w,
            pcname, w, pcname);
    uint64_t cum = 0;
    for (size_t i = 0; i < n; i++) {
        const struct row *row = &rows[i];
        double pct = whole ? 100.0 * (double)row->self / (double)whole : 0.0;
        if (r->o->min_percent > 0 && pct < r->o->min_percent)
            continue;
        cum += row->self;
        fprintf(out, "%6.2f", pct);
        if (sampled)
            fprintf(out, " %6.2f", share_error(pct, nsamples));
        fprintf(out, " %9.2f %8.2f", ct_rep_val(r, cum),
                ct_rep_val(r, row->self));
        if (row->calls)
            fprintf(out, " %8" PRIu64 " %*.2f %*.2f  ", row->calls, w,
                    ct_rep_ns(r, row->self) / (double)row->calls / pc.ns, w,
                    ct_rep_ns(r, row->self + row->child) /
                        (double)row->calls / pc.ns);
        else
            fprintf(out, " %8.8s %*s %*s  ", "", w, "", w, "");
        fputs(row->name, out);
        if (row->index)
            fprintf(out, " [%" PRIu32 "]", row->index);
        if (row->uncertain)
            fputs(" ~", out);
        fputc('\n', out);
    }
    if (nuncertain)
        fprintf(out, "\n~ %zu function%s: less self time left than the bias "
                "taken off, so uncertain by more than the figure\n",
                nuncertain, nuncertain == 1 ? "" : "s");
    free(taken);
    (void)total_ns;
    if (!r->o->brief) {
        fputs(blurb, out);
        if (sampled)
            fputs(blurb_sampled, out);
    }
    fputs("\f\n", out);
    for (size_t i = 0; i < n; i++)
        free(rows[i].owned);
    free(rows);
}
