/*
 * calltrace binary reader: the thread of a kernel sample.  The perf_event
 * sampler writes every sample into its own thread's blocks as a SAMPLE_OF
 * record naming the sampled tid (preload/sampling/sample_perf.c); the views
 * show it under that thread, as the timer's samples, written by the sampled
 * thread itself, are.
 */
#include <stdlib.h>

#include "analyzer/readers/calltrace_reader.h"
#include "analyzer/util.h"

struct ctr_tid_span {
    uint64_t tid;
    uint64_t first;         /* ticks: the thread's first block begins     */
    uint32_t thread;        /* its index in ct_trace_info.threads         */
};

static int cmp_span(const void *a, const void *b)
{
    const struct ctr_tid_span *x = a, *y = b;
    if (x->tid != y->tid)
        return x->tid < y->tid ? -1 : 1;
    return x->first < y->first ? -1 : x->first > y->first;
}

void ctr_sample_tids(struct ctr_reading *r, const struct block *blocks, size_t n)
{
    size_t cap = 0;
    for (size_t i = 0; i < n; i++) {
        const struct block *b = &blocks[i];
        if (b->kind != CT_BLOCK_EVENTS)
            continue;
        ct_grow(&r->tids, &cap, r->ntids, sizeof *r->tids);
        r->tids[r->ntids++] = (struct ctr_tid_span){b->tid, b->first,
                                                    b->thread};
    }
    if (r->ntids > 1) /* qsort wants a table, even empty */
        qsort(r->tids, r->ntids, sizeof *r->tids, cmp_span);
    /* One entry per thread: its earliest block. */
    size_t k = 0;
    for (size_t i = 0; i < r->ntids; i++)
        if (!k || r->tids[k - 1].thread != r->tids[i].thread ||
            r->tids[k - 1].tid != r->tids[i].tid)
            r->tids[k++] = r->tids[i];
    r->ntids = k;
}

uint32_t ctr_sample_thread(struct ctr_reading *r, uint64_t tid, uint64_t t)
{
    /* the first entry of tid */
    size_t lo = 0, hi = r->ntids;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r->tids[mid].tid < tid)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == r->ntids || r->tids[lo].tid != tid)
        return ct_trace_thread(r->info, tid);
    size_t best = lo;
    for (size_t i = lo; i < r->ntids && r->tids[i].tid == tid; i++)
        if (r->tids[i].first <= t)
            best = i;
    return r->tids[best].thread;
}
