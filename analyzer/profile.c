/* Placeholder until the profile model lands. */
#include <stdlib.h>

#include "profile.h"
#include "util.h"

static int ignore(struct ct_sink *s, const struct ct_event *ev)
{
    (void)s;
    (void)ev;
    return 0;
}

static struct ct_sink ignore_sink = {ignore};

struct ct_profile *ct_profile_new(struct ct_trace_info *info,
                                  const struct ct_profile_opts *opts)
{
    struct ct_profile *p = ct_xcalloc(1, sizeof *p);
    p->info = info;
    p->opts = *opts;
    return p;
}

struct ct_sink *ct_profile_sink(struct ct_profile *p)
{
    (void)p;
    return &ignore_sink;
}

void ct_profile_finish(struct ct_profile *p)
{
    (void)p;
}

void ct_profile_free(struct ct_profile *p)
{
    free(p);
}
