/* --tid: see tidsel.h. */
#include <inttypes.h>
#include <stdlib.h>

#include "analyzer/model/tidsel.h"
#include "analyzer/util.h"

int ct_tid_parse(const char *text, uint64_t **tids, size_t *ntids)
{
    /* Checked whole first, so that a bad list adds nothing. */
    size_t count = 0;
    for (const char *p = text;; p++) {
        char *end;
        if (*p < '0' || *p > '9')
            return -1;
        unsigned long long t = strtoull(p, &end, 10);
        if (t == 0 || t > UINT32_MAX || (*end && *end != ','))
            return -1;
        count++;
        if (!*end)
            break;
        p = end;
    }
    *tids = ct_xrealloc(*tids, (*ntids + count) * sizeof **tids);
    for (const char *p = text; count--; p++) {
        char *end;
        (*tids)[(*ntids)++] = strtoull(p, &end, 10);
        p = end;
    }
    return 0;
}

bool ct_tid_selected(const struct ct_tid_filter *f, uint32_t thread)
{
    if (thread >= f->info->nthreads)
        return false;
    uint64_t tid = f->info->threads[thread].tid;
    for (size_t i = 0; i < f->ntids; i++)
        if (f->tids[i] == tid)
            return true;
    return false;
}

static int tid_event(struct ct_sink *self, const struct ct_event *ev)
{
    struct ct_tid_filter *f = (struct ct_tid_filter *)self;
    if (!ct_tid_selected(f, ev->thread))
        return 0;
    f->passed++;
    return f->next->event(f->next, ev);
}

void ct_tid_filter_init(struct ct_tid_filter *f, struct ct_sink *next,
                        struct ct_trace_info *info, const uint64_t *tids,
                        size_t ntids)
{
    *f = (struct ct_tid_filter){
        .sink = {tid_event},
        .next = next,
        .info = info,
        .tids = tids,
        .ntids = ntids,
    };
}

size_t ct_tid_filter_finish(struct ct_tid_filter *f)
{
    struct ct_trace_info *info = f->info;
    for (uint32_t i = 0; i < info->nthreads; i++)
        info->threads[i].excluded = !ct_tid_selected(f, i);
    size_t found = 0;
    for (size_t k = 0; k < f->ntids; k++) {
        bool any = false;
        for (uint32_t i = 0; i < info->nthreads && !any; i++)
            any = info->threads[i].tid == f->tids[k];
        if (any)
            found++;
        else
            ct_warn("%s: --tid: no thread %" PRIu64 " in the trace",
                    info->path, f->tids[k]);
    }
    return found;
}
