/*
 * --tid=TID[,TID...] (uftrace's --tid): a sink in front of every view that
 * passes on only the events of the threads named, so that the report, the
 * tree, the dump and every export tell the story of the same threads.  A
 * thread is named by its kernel tid: a coroutine of that thread (a context)
 * and a later thread that reused the tid are selected with it.
 */
#ifndef CT_TIDSEL_H
#define CT_TIDSEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyzer/model/trace.h"

struct ct_tid_filter {
    struct ct_sink sink;
    struct ct_sink *next;
    struct ct_trace_info *info;
    const uint64_t *tids;
    size_t ntids;
    uint64_t passed;          /* events passed on                           */
};

/* Adds the tids of "TID[,TID...]" to *tids; returns 0, or -1 (and leaves
 * *tids as it was) when text is not a list of whole numbers above 0. */
int ct_tid_parse(const char *text, uint64_t **tids, size_t *ntids);

void ct_tid_filter_init(struct ct_tid_filter *f, struct ct_sink *next,
                        struct ct_trace_info *info, const uint64_t *tids,
                        size_t ntids);
/* Whether the thread (an index in info->threads) is selected. */
bool ct_tid_selected(const struct ct_tid_filter *f, uint32_t thread);
/*
 * After the read: marks the threads left out (ct_thread_info.excluded) so
 * that the summaries list only the selected ones, and reports each tid
 * that names no thread of the trace.  Returns the number of tids that
 * named a thread.
 */
size_t ct_tid_filter_finish(struct ct_tid_filter *f);

#endif /* CT_TIDSEL_H */
