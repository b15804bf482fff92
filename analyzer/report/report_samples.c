/*
 * The stack samples of a trace whose calls were also timed
 * (CALLTRACE_MODE=both).  The calls give every figure of the report; a
 * sample says only where a thread was at one moment, so the samples get a
 * section of their own instead of being added to call counts and times.
 * Each share carries its binomial standard error: what it is worth.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "analyzer/report/report_private.h"
#include "analyzer/util.h"

double ct_rep_sample_error(uint64_t n, uint64_t total)
{
    if (!total)
        return 0;
    double p = (double)n / (double)total;
    return 100.0 * sqrt(p * (1 - p) / (double)total);
}

struct srow {
    uint32_t func;
    uint64_t self, total;
};

static int cmp_srow(const void *a, const void *b)
{
    const struct srow *x = a, *y = b;
    if (x->self != y->self)
        return x->self > y->self ? -1 : 1;
    if (x->total != y->total)
        return x->total > y->total ? -1 : 1;
    return x->func < y->func ? -1 : x->func > y->func;
}

static const char blurb[] =
    "\n"
    " The calls above were timed exactly; these are the stack samples taken\n"
    " in the same run, a separate view that adds nothing to the figures\n"
    " above.  A sample is where the thread was at one moment.\n"
    "\n"
    " % self     share of the samples with the function on top.\n"
    " +-         one binomial standard error of that share, in points:\n"
    "            sqrt(p (1 - p) / N) for a share p of N samples; about two\n"
    "            thirds of repeated runs land within it.\n"
    " % total    share of the samples with the function anywhere on the\n"
    "            stack (counted once per sample).\n"
    " self, total  the samples themselves.\n";

void ct_report_samples(struct ct_rep *r)
{
    struct ct_profile *p = r->p;
    FILE *out = r->out;
    struct srow *rows = ct_xcalloc(p->nfuncs + 1, sizeof *rows);
    size_t n = 0;
    uint64_t nsamples = 0;
    for (uint32_t f = 0; f < p->nfuncs; f++) {
        const struct ct_fstats *fs = &p->funcs[f];
        nsamples += fs->samples_self;
        if (fs->samples_total || fs->samples_self)
            rows[n++] = (struct srow){f, fs->samples_self, fs->samples_total};
    }
    qsort(rows, n, sizeof *rows, cmp_srow);
    char iv[32];
    ct_rep_dur(iv, sizeof iv,
               p->info->sample_interval_ns
                   ? (double)p->info->sample_interval_ns
                   : ct_rep_ns(r, p->ticks_per_sample));
    fputs("Sampled flat profile:\n\n", out);
    fprintf(out, "%" PRIu64 " stack samples, one every %s; a separate view, "
            "not in the figures above.\n", nsamples, iv);
    fputs(" % self     +-  % total       self      total  name\n", out);
    for (size_t i = 0; i < n; i++) {
        const struct srow *w = &rows[i];
        double self = nsamples ? 100.0 * (double)w->self / (double)nsamples
                               : 0.0;
        double total = nsamples ? 100.0 * (double)w->total / (double)nsamples
                                : 0.0;
        if (r->o->min_percent > 0 && total < r->o->min_percent)
            continue;
        fprintf(out, "%7.2f %6.2f %8.2f %10" PRIu64 " %10" PRIu64 "  ", self,
                ct_rep_sample_error(w->self, nsamples), total, w->self,
                w->total);
        if (ct_rep_listed(r, w->func)) {
            fprintf(out, "%s [%" PRIu32 "]\n", ct_rep_name(r, w->func),
                    r->index[w->func]);
        } else {
            const char *name = ct_functab_name(p->info->funcs, w->func);
            const struct ct_func *fn = ct_functab_get(p->info->funcs, w->func);
            if (name && *name)
                fprintf(out, "%s\n", name);
            else
                fprintf(out, "0x%" PRIx64 "\n", fn ? fn->addr : 0);
        }
    }
    if (!r->o->brief)
        fputs(blurb, out);
    fputs("\f\n", out);
    free(rows);
}
