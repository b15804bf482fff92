/*
 * --export callgrind: the finished profile in the Callgrind format, for
 * KCachegrind/QCachegrind, callgrind_annotate and gprof2dot.
 *
 * Traced data has one event, `ns`: a function's cost lines are its self
 * time, and each arc caller -> callee is a `calls=` line with the arc's
 * count and the inclusive time of those calls (the arc's self plus
 * children, docs/analysis.md).  A self-arc f -> f carries its count and no
 * cost, so that a function's inclusive cost, as the tools add it up (self
 * plus the calls below it), is the report's self + children.  Sampled data
 * has the event `samples` instead, and an arc's count is its samples.
 * Every figure is rounded to whole nanoseconds once, and the summary is the
 * sum of what is written, so the tools' totals agree to the nanosecond.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/writers/export.h"
#include "analyzer/model/profile.h"
#include "analyzer/util.h"

#ifndef CALLTRACE_VERSION
#define CALLTRACE_VERSION "0.1.0"
#endif

/* Names and paths on one line: the format has no quoting. */
static void put_str(FILE *out, const char *key, const char *s)
{
    fputs(key, out);
    for (; *s; s++)
        fputc(*s == '\n' || *s == '\r' ? ' ' : *s, out);
    fputc('\n', out);
}

struct cg_func {
    const char *name, *file, *object;
    uint32_t line;
};

static struct cg_func func_of(struct ct_trace_info *info, uint32_t id)
{
    const struct ct_func *f = ct_functab_get(info->funcs, id);
    struct cg_func c = {"?", "???", NULL, 0};
    if (f) {
        if (f->name)
            c.name = f->name;
        if (f->file)
            c.file = f->file;
        c.object = f->object;
        c.line = f->line;
    }
    return c;
}

static void put_position(FILE *out, const char *ob, const char *fl,
                         const char *fn, const struct cg_func *f)
{
    put_str(out, ob, f->object ? f->object : "???");
    put_str(out, fl, f->file);
    put_str(out, fn, f->name);
}

static bool used(const struct ct_fstats *f)
{
    return f->calls || f->self_calls || f->self_ticks || f->child_ticks ||
           f->samples_self || f->samples_total;
}

struct cg_costs {
    uint64_t *self;     /* per function, in the file's unit             */
    uint64_t *incl;     /* per arc                                      */
    uint64_t total;
};

static uint64_t to_ns(const struct ct_trace_info *info, uint64_t ticks)
{
    return (uint64_t)llround(ct_ticks_to_ns(info, ticks));
}

static void costs(const struct ct_profile *p, bool sampled,
                  struct cg_costs *c)
{
    const struct ct_trace_info *info = p->info;
    c->self = ct_xcalloc(p->nfuncs + 1, sizeof *c->self);
    c->incl = ct_xcalloc(p->narcs + 1, sizeof *c->incl);
    c->total = 0;
    for (uint32_t i = 0; i < p->nfuncs; i++) {
        const struct ct_fstats *f = &p->funcs[i];
        c->self[i] = sampled ? f->samples_self : to_ns(info, f->self_ticks);
        c->total += c->self[i];
    }
    for (uint32_t i = 0; i < p->narcs; i++) {
        const struct ct_arc *a = &p->arcs[i];
        if (a->caller == a->callee)
            continue;
        c->incl[i] = sampled ? a->count
                             : to_ns(info, a->self_ticks + a->child_ticks);
    }
}

/* Arcs grouped by caller, so each function's calls follow its cost. */
static int cmp_arc_caller(const void *x, const void *y)
{
    const struct ct_arc *a = *(const struct ct_arc *const *)x;
    const struct ct_arc *b = *(const struct ct_arc *const *)y;
    if (a->caller != b->caller)
        return a->caller < b->caller ? -1 : 1;
    return a->callee < b->callee ? -1 : a->callee > b->callee;
}

static void write_header(FILE *out, const struct ct_trace_info *info,
                         bool sampled, uint64_t total)
{
    fputs("# callgrind format\nversion: 1\n", out);
    fputs("creator: calltrace " CALLTRACE_VERSION "\n", out);
    if (info->pid)
        fprintf(out, "pid: %" PRIu64 "\n", info->pid);
    if (info->command[0])
        put_str(out, "cmd: ", info->command);
    else if (info->program[0])
        put_str(out, "cmd: ", info->program);
    fputs("part: 1\n\n", out);
    if (sampled) {
        fputs("event: samples : Stack samples\nevents: samples\n", out);
    } else {
        fputs("event: ns : Wall time in nanoseconds (exact, calltrace)\n"
              "events: ns\n",
              out);
    }
    fprintf(out, "summary: %" PRIu64 "\n\n", total);
}

static int cg_finish(struct ct_exporter *ex, struct ct_profile *p)
{
    struct ct_profile_writer *x = (struct ct_profile_writer *)ex;
    struct ct_trace_info *info = x->info;
    FILE *out = x->out;
    if (!p) {
        ct_error("--export callgrind needs the profile");
        return 1;
    }
    bool sampled = info->sampled && !p->counts.calls;
    struct cg_costs c;
    costs(p, sampled, &c);
    write_header(out, info, sampled, c.total);

    const struct ct_arc **by_caller =
        ct_xmalloc((p->narcs + 1) * sizeof *by_caller);
    uint32_t n = 0;
    for (uint32_t i = 0; i < p->narcs; i++)
        if (p->arcs[i].caller != CT_FUNC_NONE)
            by_caller[n++] = &p->arcs[i];
    qsort(by_caller, n, sizeof *by_caller, cmp_arc_caller);

    uint32_t k = 0;
    for (uint32_t i = 0; i < p->nfuncs; i++) {
        const struct ct_fstats *f = &p->funcs[i];
        while (k < n && by_caller[k]->caller < i)
            k++;
        if (!used(f) && (k == n || by_caller[k]->caller != i))
            continue;
        struct cg_func fi = func_of(info, i);
        put_position(out, "ob=", "fl=", "fn=", &fi);
        fprintf(out, "%" PRIu32 " %" PRIu64 "\n", fi.line, c.self[i]);
        for (; k < n && by_caller[k]->caller == i; k++) {
            const struct ct_arc *a = by_caller[k];
            struct cg_func ci = func_of(info, a->callee);
            put_position(out, "cob=", "cfl=", "cfn=", &ci);
            fprintf(out, "calls=%" PRIu64 " %" PRIu32 "\n", a->count,
                    ci.line);
            fprintf(out, "%" PRIu32 " %" PRIu64 "\n", fi.line,
                    c.incl[a - p->arcs]);
        }
        fputc('\n', out);
    }
    fprintf(out, "totals: %" PRIu64 "\n", c.total);
    free(by_caller);
    free(c.self);
    free(c.incl);
    return 0;
}

struct ct_exporter *ct_export_callgrind_new(FILE *out, struct ct_trace_info *info,
                                            const struct ct_view_opts *opts)
{
    (void)opts;
    struct ct_profile_writer *x =
        ct_profile_writer_new(sizeof *x, out, info, cg_finish);
    return &x->ex;
}
