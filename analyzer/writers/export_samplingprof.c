/*
 * --export samplingprof: the finished profile as a SamplingProf document.
 *
 * Stack samples with pcs (calltrace's sampling mode) are written by line,
 * as SamplingProf means its call elements: "file:line:function" for each
 * line sampled, with the counts and links of profile_lines.h.  Other
 * sampled profiles (SamplingProf's own) are written as they are: sample
 * counts per function and per arc.  The runtime is the one the input came
 * with, or the samples times the interval.
 * A call trace has exact times instead; it is written as pseudo-samples of
 * one millisecond: self = self time in ms, total = self + children in ms,
 * an arc's count = the time of those calls in ms, each rounded to the
 * nearest ms.  Functions without a known source file are written as
 * "?:0:<name>", which the reader takes back as "file unknown".
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/writers/export.h"
#include "analyzer/model/profile.h"
#include "analyzer/model/profile_lines.h"
#include "analyzer/util.h"

static uint64_t ticks_ms(const struct ct_trace_info *info, uint64_t ticks)
{
    return (uint64_t)llround(ct_ticks_to_ns(info, ticks) / 1e6);
}

static bool used(const struct ct_fstats *f)
{
    return f->calls || f->self_calls || f->self_ticks || f->child_ticks ||
           f->samples_self || f->samples_total;
}

static void element(FILE *out, const char *file, uint32_t line,
                    const char *name, uint32_t id)
{
    /* commas are fine (split at the last one), newlines are not */
    if (file)
        fprintf(out, "%.*s:%" PRIu32 ":", (int)strcspn(file, "\n"), file,
                line);
    else
        fputs("?:0:", out);
    fprintf(out, "%.*s,%" PRIu32 "\n", (int)strcspn(name, "\n"), name, id);
}

static void func_element(FILE *out, struct ct_functab *tab, uint32_t id)
{
    const struct ct_func *f = ct_functab_get(tab, id);
    element(out, f ? f->file : NULL, f ? f->line : 0,
            f && f->name ? f->name : "?", id);
}

static void arc_line(FILE *out, uint32_t caller, uint32_t callee, uint64_t n)
{
    if (caller == CT_FUNC_NONE)
        fprintf(out, "-1,%" PRIu32 ",%" PRIu64 "\n", callee, n);
    else
        fprintf(out, "%" PRIu32 ",%" PRIu32 ",%" PRIu64 "\n", caller, callee,
                n);
}

static void write_lines(FILE *out, struct ct_functab *tab,
                        const struct ct_line_profile *lp)
{
    for (uint32_t i = 0; i < lp->nelems; i++) {
        const struct ct_line_elem *e = &lp->elems[i];
        element(out, e->file, e->line, ct_functab_name(tab, e->func), i);
    }
    fputc('\n', out);
    for (uint32_t i = 0; i < lp->nelems; i++)
        fprintf(out, "%" PRIu32 ",%" PRIu64 ",%" PRIu64 "\n", i,
                lp->elems[i].self, lp->elems[i].total);
    fputc('\n', out);
    for (uint32_t i = 0; i < lp->narcs; i++)
        arc_line(out, lp->arcs[i].caller, lp->arcs[i].callee,
                 lp->arcs[i].count);
}

static int sp_finish(struct ct_exporter *ex, struct ct_profile *p)
{
    struct ct_profile_writer *x = (struct ct_profile_writer *)ex;
    struct ct_trace_info *info = x->info;
    if (!p) {
        ct_error("--export samplingprof needs the profile");
        return 1;
    }
    bool sampled = info->sampled;
    double runtime = info->sample_runtime_ms;
    if (sampled && runtime <= 0 && info->sample_interval_ns) {
        uint64_t n = 0;
        for (uint32_t i = 0; i < p->nfuncs; i++)
            n += p->funcs[i].samples_self;
        runtime = (double)n * (double)info->sample_interval_ns / 1e6;
    } else if (!sampled) {
        runtime = ct_ticks_to_ns(info, p->totals.cpu) / 1e6;
    }
    fprintf(x->out, "%.3f\n\n", runtime);
    const struct ct_line_profile *lp = sampled ? ct_profile_lines(p) : NULL;
    if (lp) {
        write_lines(x->out, info->funcs, lp);
        return 0;
    }
    for (uint32_t i = 0; i < p->nfuncs; i++)
        if (used(&p->funcs[i]))
            func_element(x->out, info->funcs, i);
    fputc('\n', x->out);
    for (uint32_t i = 0; i < p->nfuncs; i++) {
        const struct ct_fstats *f = &p->funcs[i];
        if (!used(f))
            continue;
        uint64_t self = sampled ? f->samples_self
                                : ticks_ms(info, f->self_ticks);
        uint64_t total = sampled ? f->samples_total
                                 : ticks_ms(info, f->self_ticks +
                                                      f->child_ticks);
        fprintf(x->out, "%" PRIu32 ",%" PRIu64 ",%" PRIu64 "\n", i, self,
                total);
    }
    fputc('\n', x->out);
    for (uint32_t i = 0; i < p->narcs; i++) {
        const struct ct_arc *a = &p->arcs[i];
        uint64_t n = sampled ? a->count
                             : ticks_ms(info, a->self_ticks + a->child_ticks);
        arc_line(x->out, a->caller, a->callee, n);
    }
    return 0;
}

struct ct_exporter *ct_export_samplingprof_new(FILE *out, struct ct_trace_info *info,
                                               const struct ct_view_opts *opts)
{
    (void)opts;
    struct ct_profile_writer *x =
        ct_profile_writer_new(sizeof *x, out, info, sp_finish);
    return &x->ex;
}
