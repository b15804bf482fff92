/*
 * calltrace binary reader: threads merged by time, so that every sink sees
 * one time-ordered stream without buffering.
 */
#include <stdlib.h>

#include "analyzer/readers/calltrace_reader.h"
#include "analyzer/util.h"

struct heap_item {
    uint64_t time;
    struct cursor *c;
};

static bool earlier(const struct heap_item *a, const struct heap_item *b)
{
    return a->time != b->time ? a->time < b->time
                              : a->c->thread < b->c->thread;
}

static void heap_push(struct heap_item *h, size_t *n, struct heap_item it)
{
    size_t i = (*n)++;
    while (i > 0 && earlier(&it, &h[(i - 1) / 2])) {
        h[i] = h[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h[i] = it;
}

static struct heap_item heap_pop(struct heap_item *h, size_t *n)
{
    struct heap_item top = h[0], last = h[--*n];
    size_t i = 0;
    for (;;) {
        size_t k = 2 * i + 1;
        if (k >= *n)
            break;
        if (k + 1 < *n && earlier(&h[k + 1], &h[k]))
            k++;
        if (!earlier(&h[k], &last))
            break;
        h[i] = h[k];
        i = k;
    }
    if (*n)
        h[i] = last;
    return top;
}

void ctr_merge(struct ctr_reading *r, struct cursor *cs, size_t n)
{
    if (n == 1) {
        ctr_run(r, &cs[0], UINT64_MAX);
        return;
    }
    struct heap_item *h = ct_xmalloc((n ? n : 1) * sizeof *h);
    size_t nh = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t t = ctr_next_time(r, &cs[i]);
        if (cs[i].state != C_DONE)
            heap_push(h, &nh, (struct heap_item){t, &cs[i]});
    }
    while (nh && !r->stop) {
        struct heap_item it = heap_pop(h, &nh);
        ctr_run(r, it.c, nh ? h[0].time : UINT64_MAX);
        uint64_t t = ctr_next_time(r, it.c);
        if (it.c->state != C_DONE)
            heap_push(h, &nh, (struct heap_item){t, it.c});
    }
    free(h);
}
