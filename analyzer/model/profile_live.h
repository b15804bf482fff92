/*
 * A profile read while events still arrive (calltrace top): the figures
 * so far, frames still open included, up to each thread's latest event.
 */
#ifndef CT_PROFILE_LIVE_H
#define CT_PROFILE_LIVE_H

#include <stdint.h>

#include "analyzer/model/profile.h"

struct ct_live_fstats {
    uint64_t calls;         /* calls so far, self-recursive ones included */
    uint64_t self_ticks;    /* time in the function itself                */
    uint64_t total_ticks;   /* time with it on the stack, recursion once  */
};

/* Fills out[0 .. n) for functab ids below n (zero past p->nfuncs).  The
 * bias is taken off at each return, so an open frame still holds it. */
void ct_profile_live(const struct ct_profile *p, struct ct_live_fstats *out,
                     uint32_t n);

/* The latest event time of any thread (ticks), 0 before the first. */
uint64_t ct_profile_live_now(const struct ct_profile *p);
/* The earliest first event of any thread (ticks), 0 before the first. */
uint64_t ct_profile_live_first(const struct ct_profile *p);

#endif /* CT_PROFILE_LIVE_H */
