/*
 * The gprof-format report: sets up what the sections share (units, names,
 * call-graph order and index, cycle totals) and prints the sections the
 * options ask for.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/model/match.h"
#include "analyzer/report/report.h"
#include "analyzer/report/report_private.h"
#include "analyzer/util.h"

static const struct ct_unit units[] = {
    {1e9, "s", "seconds"},
    {1e6, "ms", "ms"},
    {1e3, "us", "us"},
    {1, "ns", "ns"},
};
#define NUNITS (sizeof units / sizeof units[0])

struct ct_unit ct_unit_for(double ns)
{
    for (size_t i = 0; i < NUNITS; i++)
        if (ns >= units[i].ns)
            return units[i];
    return units[0];
}

struct ct_unit ct_unit_fitting(double ns, double limit)
{
    for (size_t i = NUNITS; i-- > 0;)
        if (ns / units[i].ns < limit)
            return units[i];
    return units[0];
}

struct ct_unit ct_unit_per_call(double min_ns, double max_ns)
{
    if (min_ns <= 0)
        return ct_unit_fitting(max_ns, 99999.995);
    if (min_ns < 1)
        return units[NUNITS - 1];  /* ns: below one, still two decimals */
    /* A figure a hair under a unit, from ticks to ns (a sample of 1 ms is
     * 999999.99 ns), is 1.00 in that unit: the same profile read from
     * another format, with exact figures, must get the same unit. */
    return ct_unit_for(min_ns / 0.9999);
}

double ct_rep_ns(const struct ct_rep *r, uint64_t ticks)
{
    return ct_ticks_to_ns(r->p->info, ticks);
}

double ct_rep_val(const struct ct_rep *r, uint64_t ticks)
{
    return ct_rep_ns(r, ticks) / r->unit.ns;
}

void ct_rep_dur(char *buf, size_t len, double ns)
{
    if (ns < 1e3)
        snprintf(buf, len, "%.0fns", ns);
    else if (ns < 1e6)
        snprintf(buf, len, "%.2fus", ns / 1e3);
    else if (ns < 1e9)
        snprintf(buf, len, "%.2fms", ns / 1e6);
    else
        snprintf(buf, len, "%.2fs", ns / 1e9);
}

bool ct_rep_sampled(const struct ct_rep *r)
{
    const struct ct_profile *p = r->p;
    return !p->samples_apart &&
           (p->info->sampled || p->counts.samples || p->info->nsample_counts);
}

const char *ct_rep_granularity(const struct ct_rep *r, char *buf, size_t len)
{
    const struct ct_profile *p = r->p;
    if (!ct_rep_sampled(r))
        return "every call timed";
    /* one sample's ticks: sampled self time over self samples */
    uint64_t samples = 0, ticks = 0;
    for (uint32_t f = 0; f < p->nfuncs; f++) {
        samples += p->funcs[f].samples_self;
        ticks += p->funcs[f].self_ticks;
    }
    char d[32];
    /* The interval itself when the source names it: the ticks one sample
     * is charged are the interval rounded to the clock. */
    if (p->info->sample_interval_ns && p->info->sample_runtime_ms <= 0)
        ct_rep_dur(d, sizeof d, (double)p->info->sample_interval_ns);
    else
        ct_rep_dur(d, sizeof d, samples ? ct_rep_ns(r, ticks) /
                                              (double)samples
                                        : 0.0);
    snprintf(buf, len, "each sample counts as %s", d);
    return buf;
}

const char *ct_rep_name(const struct ct_rep *r, uint32_t func)
{
    return r->names[func];
}

const char *ct_rep_short_name(const struct ct_rep *r, uint32_t func)
{
    return r->short_names ? r->short_names[func] : r->names[func];
}

bool ct_rep_listed(const struct ct_rep *r, uint32_t func)
{
    return r->listed[func];
}

/* Functions with calls, time or samples, and every end of an arc. */
static void make_listed(struct ct_rep *r)
{
    const struct ct_profile *p = r->p;
    r->listed = ct_xcalloc(p->nfuncs + 1, sizeof *r->listed);
    for (uint32_t f = 0; f < p->nfuncs; f++) {
        const struct ct_fstats *s = &p->funcs[f];
        r->listed[f] = s->calls || s->self_calls || s->self_ticks ||
                       s->child_ticks ||
                       (!p->samples_apart &&
                        (s->samples_total || s->samples_self));
    }
    for (uint32_t a = 0; a < p->narcs; a++) {
        r->listed[p->arcs[a].callee] = true;
        if (p->arcs[a].caller != CT_FUNC_NONE)
            r->listed[p->arcs[a].caller] = true;
    }
}

static struct ct_rep *sort_ctx;

static uint64_t entry_total(const struct ct_rep *r, int64_t e)
{
    if (e < 0) {
        const struct ct_rcycle *c = &r->cycles[~e];
        return c->self + c->child;
    }
    const struct ct_fstats *f = &r->p->funcs[e];
    return f->self_ticks + f->child_ticks;
}

static uint64_t entry_calls(const struct ct_rep *r, int64_t e)
{
    if (e < 0)
        return r->cycles[~e].calls;
    return r->p->funcs[e].calls + r->p->funcs[e].self_calls;
}

/* gprof's order: total time (self + children) first, then calls, then
 * name; a cycle comes before its members at equal time. */
static int cmp_entry(const void *a, const void *b)
{
    const struct ct_rep *r = sort_ctx;
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    uint64_t tx = entry_total(r, x), ty = entry_total(r, y);
    if (tx != ty)
        return tx > ty ? -1 : 1;
    if ((x < 0) != (y < 0))
        return x < 0 ? -1 : 1;
    uint64_t cx = entry_calls(r, x), cy = entry_calls(r, y);
    if (cx != cy)
        return cx > cy ? -1 : 1;
    if (x < 0)
        return ~x < ~y ? -1 : 1;
    int c = strcmp(r->names[x], r->names[y]);
    return c ? c : (x < y ? -1 : 1);
}

static void make_names(struct ct_rep *r)
{
    struct ct_profile *p = r->p;
    r->names = ct_xcalloc(p->nfuncs + 1, sizeof *r->names);
    for (uint32_t f = 0; f < p->nfuncs; f++) {
        if (!ct_rep_listed(r, f))
            continue;
        const char *n = ct_functab_name(p->info->funcs, f);
        if (n && *n) {
            r->names[f] = ct_xstrdup(n);
        } else {
            const struct ct_func *fn = ct_functab_get(p->info->funcs, f);
            char buf[32];
            snprintf(buf, sizeof buf, "0x%" PRIx64, fn ? fn->addr : 0);
            r->names[f] = ct_xstrdup(buf);
        }
    }
    if (!r->o->short_names)
        return;
    r->short_names = ct_xcalloc(p->nfuncs + 1, sizeof *r->short_names);
    for (uint32_t f = 0; f < p->nfuncs; f++)
        if (r->names[f])
            r->short_names[f] = ct_short_name(r->names[f]);
}

static void make_cycles(struct ct_rep *r)
{
    struct ct_profile *p = r->p;
    r->cycles = ct_xcalloc(p->ncycles + 1, sizeof *r->cycles);
    for (uint32_t f = 0; f < p->nfuncs; f++) {
        int32_t c = p->funcs[f].cycle;
        if (c) {
            r->cycles[c].self += p->funcs[f].self_ticks;
            r->cycles[c].child += p->funcs[f].child_ticks;
        }
    }
    for (uint32_t a = 0; a < p->narcs; a++) {
        const struct ct_arc *arc = &p->arcs[a];
        int32_t ce = p->funcs[arc->callee].cycle;
        int32_t cr = arc->caller == CT_FUNC_NONE ? 0
                                                  : p->funcs[arc->caller].cycle;
        if (!ce)
            continue;
        if (ce != cr)
            r->cycles[ce].calls += arc->count;
        else if (arc->caller != arc->callee)
            r->cycles[ce].internal += arc->count;
    }
}

static void make_order(struct ct_rep *r)
{
    struct ct_profile *p = r->p;
    r->order = ct_xcalloc((size_t)p->nfuncs + p->ncycles + 1,
                          sizeof *r->order);
    r->index = ct_xcalloc(p->nfuncs + 1, sizeof *r->index);
    for (uint32_t f = 0; f < p->nfuncs; f++)
        if (ct_rep_listed(r, f))
            r->order[r->norder++] = f;
    for (uint32_t c = 1; c <= p->ncycles; c++)
        r->order[r->norder++] = ~(int64_t)c;
    sort_ctx = r;
    qsort(r->order, r->norder, sizeof *r->order, cmp_entry);
    for (uint32_t i = 0; i < r->norder; i++) {
        int64_t e = r->order[i];
        if (e < 0)
            r->cycles[~e].index = i + 1;
        else
            r->index[e] = i + 1;
    }
}

void ct_rep_init(struct ct_rep *r, FILE *out, struct ct_profile *p,
                 const struct ct_view_opts *o)
{
    memset(r, 0, sizeof *r);
    r->out = out;
    r->p = p;
    r->o = o;
    r->print_ticks = 0;
    for (uint32_t f = 0; f < p->nfuncs; f++)
        r->print_ticks += p->funcs[f].self_ticks;
    r->unit = ct_unit_for(ct_rep_ns(r, r->print_ticks));
    make_listed(r);
    make_names(r);
    make_cycles(r);
    make_order(r);
}

void ct_rep_free(struct ct_rep *r)
{
    if (r->names)
        for (uint32_t f = 0; f < r->p->nfuncs; f++)
            free(r->names[f]);
    free(r->names);
    if (r->short_names)
        for (uint32_t f = 0; f < r->p->nfuncs; f++)
            free(r->short_names[f]);
    free(r->short_names);
    free(r->listed);
    free(r->cycles);
    free(r->order);
    free(r->index);
}

static void print_one(FILE *out, struct ct_profile *p,
                      const struct ct_view_opts *o, const bool *focus,
                      uint32_t nfocus)
{
    struct ct_rep r;
    ct_rep_init(&r, out, p, o);
    r.focus = focus;
    r.nfocus = nfocus;
    ct_report_summary(&r);
    if (!o->graph_only)
        ct_report_flat(&r);
    if (!o->graph_only && p->samples_apart)
        ct_report_samples(&r);
    if (o->stats)
        ct_report_stats(&r);
    if (!o->flat_only)
        ct_report_graph(&r);
    if (!o->flat_only && !o->graph_only)
        ct_report_index(&r);
    if (!o->flat_only && !o->graph_only && !o->no_events)
        ct_report_events(&r);
    ct_rep_free(&r);
}

static int print_all(FILE *out, struct ct_profile *p,
                     const struct ct_view_opts *opts, const bool *focus,
                     uint32_t nfocus);

/* --focus PATTERN against the whole trace's functions: the roots it
 * names, or one line on stderr and NULL when it names none or is an
 * ambiguous prefix (then the candidates are listed). */
static bool *resolve_focus(FILE *out, struct ct_profile *p,
                           const struct ct_view_opts *o)
{
    struct ct_rep r;
    ct_rep_init(&r, out, p, o);
    bool *chosen = ct_xcalloc(p->nfuncs + 1, sizeof *chosen);
    enum ct_select s = ct_name_select(o->focus, (const char *const *)r.names,
                                      p->nfuncs, chosen);
    if (s == CT_SELECT_NONE) {
        ct_error("--focus '%s': no function of that name in %s (a glob, a "
                 "name or the start of one)", o->focus, p->info->path);
    } else if (s == CT_SELECT_AMBIGUOUS) {
        size_t len = 0, cap = 256;
        char *list = ct_xmalloc(cap);
        list[0] = 0;
        uint32_t shown = 0, more = 0;
        for (uint32_t i = 0; i < r.norder; i++) {
            int64_t e = r.order[i];
            if (e < 0 || !chosen[e])
                continue;
            if (shown == 8) {
                more++;
                continue;
            }
            const char *n = r.names[e];
            ct_grow(&list, &cap, len + strlen(n) + 3, 1);
            len += (size_t)sprintf(list + len, "%s%s", shown ? ", " : "", n);
            shown++;
        }
        if (more)
            ct_error("--focus '%s' is the start of several names: %s and %u "
                     "more", o->focus, list, more);
        else
            ct_error("--focus '%s' is the start of several names: %s",
                     o->focus, list);
        free(list);
    }
    ct_rep_free(&r);
    if (s != CT_SELECT_FOUND) {
        free(chosen);
        return NULL;
    }
    return chosen;
}

int ct_report_print(FILE *out, struct ct_profile *p,
                    const struct ct_view_opts *opts)
{
    bool *focus = NULL;
    if (opts->focus && !opts->flat_only) {
        focus = resolve_focus(out, p, opts);
        if (!focus)
            return CT_EXIT_USAGE;
    }
    int status = print_all(out, p, opts, focus, p->nfuncs);
    free(focus);
    return status;
}

static int print_all(FILE *out, struct ct_profile *p,
                     const struct ct_view_opts *opts, const bool *focus,
                     uint32_t nfocus)
{
    if (!opts->per_thread || !p->threads) {
        print_one(out, p, opts, focus, nfocus);
        return CT_EXIT_OK;
    }
    bool first = true;
    for (uint32_t t = 0; t < p->nthreads; t++) {
        if (!p->threads[t])
            continue;
        const struct ct_thread_info *ti =
            t < p->info->nthreads ? &p->info->threads[t] : NULL;
        fprintf(out, "%s==== Thread %" PRIu32 " (", first ? "" : "\f\n", t);
        /* A reader's made-up thread has no real id to show. */
        if (ti && ti->synthetic)
            fprintf(out, "%s", ti->name);
        else
            fprintf(out, "tid %" PRIu64 "%s%s", ti ? ti->tid : 0,
                    ti && ti->name[0] ? ", " : "", ti ? ti->name : "");
        fputs(") ====\n\n", out);
        first = false;
        print_one(out, p->threads[t], opts, focus, nfocus);
    }
    if (first)
        print_one(out, p, opts, focus, nfocus);
    return CT_EXIT_OK;
}
