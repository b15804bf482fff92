/*
 * Which flat-profile figures the bias subtraction leaves uncertain: a
 * function whose remaining self time is smaller than the bias taken off it
 * (its calls' share and its calls' callers' share, a library call's stub
 * excess included) has an error as large as the figure itself, since the
 * bias is an average over calls whose real hook cost varies by about as
 * much (docs/analysis.md, "The error").  The flat profile marks those rows
 * rather than print a confident number.
 */
#include <stdlib.h>

#include "analyzer/report/report_private.h"
#include "analyzer/util.h"

/* Per function, the bias taken off its self time, in ticks, as the
 * profile took it (profile_run.h); NULL when no bias was subtracted.  Free
 * with free(). */
uint64_t *ct_rep_bias_taken(const struct ct_rep *r)
{
    const struct ct_profile *p = r->p;
    if (!p->bias_subtracted)
        return NULL;
    const struct ct_trace_info *info = p->info;
    struct ct_view_bias vb = ct_view_bias(info);
    uint64_t *taken = ct_xcalloc(p->nfuncs + 1, sizeof *taken);
    for (uint32_t f = 0; f < p->nfuncs; f++) {
        uint64_t calls = p->funcs[f].calls + p->funcs[f].self_calls;
        taken[f] = calls * ct_call_bias(&vb, info->funcs, f).self;
    }
    for (uint32_t i = 0; i < p->narcs; i++) {
        const struct ct_arc *a = &p->arcs[i];
        if (a->caller < p->nfuncs)
            taken[a->caller] +=
                a->count * ct_call_bias(&vb, info->funcs, a->callee).child;
    }
    return taken;
}
