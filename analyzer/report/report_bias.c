/*
 * Which flat-profile figures the bias subtraction leaves uncertain: a
 * function whose remaining self time is smaller than the bias taken off it
 * (its calls' share and its calls' callers' share) has an error as large
 * as the figure itself, since the bias is an average over calls whose real
 * hook cost varies by about as much (docs/analysis.md, "The error").  A
 * library call also keeps what its stub costs beyond a hooked call, which
 * is not taken off.  The flat profile marks those rows rather than print
 * a confident number.
 */
#include <stdlib.h>
#include <string.h>

#include "analyzer/model/symbolize.h"
#include "analyzer/report/report_private.h"
#include "analyzer/util.h"

/* Per function, the error the subtraction leaves in its self time, in
 * ticks: the bias taken off it, and for a library call the stub's excess
 * over a hooked call left on it; NULL when no bias was subtracted.  Free
 * with free(). */
uint64_t *ct_rep_bias_taken(const struct ct_rep *r)
{
    const struct ct_profile *p = r->p;
    if (!p->bias_subtracted)
        return NULL;
    const struct ct_trace_info *info = p->info;
    uint64_t self = ct_bias_ticks(ct_bias_self_ns(info), info->ns_per_tick);
    uint64_t child = ct_bias_ticks(ct_bias_child_ns(info), info->ns_per_tick);
    uint64_t *taken = ct_xcalloc(p->nfuncs + 1, sizeof *taken);
    uint64_t lib = ct_bias_ticks(ct_bias_lib_extra_ns(info), info->ns_per_tick);
    for (uint32_t f = 0; f < p->nfuncs; f++) {
        uint64_t calls = p->funcs[f].calls + p->funcs[f].self_calls;
        taken[f] = calls * self;
        const char *name = lib && calls ? ct_functab_name(info->funcs, f) : NULL;
        if (name && ct_libcall_mark_len(name, strlen(name)))
            taken[f] += calls * lib;
    }
    for (uint32_t i = 0; i < p->narcs; i++) {
        const struct ct_arc *a = &p->arcs[i];
        if (a->caller < p->nfuncs)
            taken[a->caller] += a->count * child;
    }
    return taken;
}
