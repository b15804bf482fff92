/* Section 5: the user events (V records) in time order. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/report/report_private.h"
#include "analyzer/util.h"

void ct_report_events(struct ct_rep *r)
{
    const struct ct_profile *p = r->p;
    const struct ct_trace_info *info = p->info;
    uint64_t origin = info->have_first_time ? info->first_time
                                            : p->totals.first;
    uint64_t span = p->nevents
                        ? p->events[p->nevents - 1].time - origin : 0;
    struct ct_unit u = ct_unit_for(ct_rep_ns(r, span));
    fprintf(r->out, "User events (time order): %zu\n\n", p->nevents);
    if (!p->nevents)
        return;
    fprintf(r->out, "%14s  %-10s %-30s %s\n", u.column, "thread", "function",
            "message");
    for (size_t i = 0; i < p->nevents; i++) {
        const struct ct_user_event *e = &p->events[i];
        double t = e->time >= origin ? ct_rep_ns(r, e->time - origin)
                                     : -ct_rep_ns(r, origin - e->time);
        char thread[48];
        if (e->thread < info->nthreads)
            snprintf(thread, sizeof thread, "%" PRIu64,
                     info->threads[e->thread].tid);
        else
            snprintf(thread, sizeof thread, "#%" PRIu32, e->thread);
        const char *fn = "-";
        if (e->func != CT_FUNC_NONE && e->func < p->nfuncs &&
            ct_rep_listed(r, e->func))
            fn = ct_rep_name(r, e->func);
        /* One event a line: a newline in a message must not open a row. */
        char *text = ct_escape_line(e->text, strlen(e->text));
        fprintf(r->out, "%14.6f  %-10s %-30s %s\n", t / u.ns, thread, fn,
                text);
        free(text);
    }
}
