/*
 * The common model of a trace (trace.h): the trace info a reader fills
 * (threads by tid, notes, sample counts), and the tee that hands every
 * event to two sinks.
 */
#include "analyzer/model/filtered.h"
#include "analyzer/model/trace.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/util.h"

void ct_trace_info_init(struct ct_trace_info *info, const char *path,
                        const char *format)
{
    memset(info, 0, sizeof *info);
    info->path = path;
    info->format = format;
    info->ns_per_tick = 1.0;
    info->funcs = ct_functab_new();
}

void ct_trace_info_free(struct ct_trace_info *info)
{
    for (size_t i = 0; i < info->nmeta; i++) {
        free(info->meta[i].key);
        free(info->meta[i].value);
    }
    free(info->meta);
    free(info->threads);
    free(info->sample_counts);
    free(info->sample_arcs);
    ct_functab_free(info->funcs);
    ct_filtered_free(info->filtered);
    memset(info, 0, sizeof *info);
}

uint32_t ct_trace_thread(struct ct_trace_info *info, uint64_t tid)
{
    for (uint32_t i = 0; i < info->nthreads; i++)
        if (info->threads[i].tid == tid)
            return i;
    return ct_trace_thread_new(info, tid);
}

uint32_t ct_trace_thread_new(struct ct_trace_info *info, uint64_t tid)
{
    size_t cap = info->threads_cap;
    ct_grow(&info->threads, &cap, info->nthreads, sizeof *info->threads);
    info->threads_cap = (uint32_t)cap;
    memset(&info->threads[info->nthreads], 0, sizeof *info->threads);
    info->threads[info->nthreads].tid = tid;
    return info->nthreads++;
}

uint32_t ct_trace_thread_rank(const struct ct_trace_info *info,
                              uint32_t thread)
{
    uint32_t rank = 0;
    for (uint32_t i = 0; i < thread && thread < info->nthreads; i++)
        rank += info->threads[i].tid == info->threads[thread].tid &&
                info->threads[i].context == info->threads[thread].context;
    return rank;
}

void ct_trace_thread_label(const struct ct_trace_info *info, uint32_t thread,
                           char *buf, size_t cap)
{
    const struct ct_thread_info *ti =
        thread < info->nthreads ? &info->threads[thread] : NULL;
    int n;
    if (ti && ti->name[0])
        n = snprintf(buf, cap, "%s", ti->name);
    else
        n = snprintf(buf, cap, "thread %" PRIu64,
                     ti && ti->tid ? ti->tid : (uint64_t)thread);
    uint32_t rank = ct_trace_thread_rank(info, thread);
    if (rank && n >= 0 && (size_t)n < cap)
        n += snprintf(buf + n, cap - (size_t)n, " #%" PRIu32, rank + 1);
    if (ti && ti->context && n >= 0 && (size_t)n < cap)
        snprintf(buf + n, cap - (size_t)n, " context %" PRIu64, ti->context);
}

void ct_trace_add_meta(struct ct_trace_info *info, const char *key,
                       const char *value)
{
    ct_grow(&info->meta, &info->meta_cap, info->nmeta, sizeof *info->meta);
    info->meta[info->nmeta].key = ct_xstrdup(key);
    info->meta[info->nmeta].value = ct_xstrdup(value);
    info->nmeta++;
}

void ct_trace_add_sample_count(struct ct_trace_info *info, uint32_t func,
                               uint64_t self, uint64_t total)
{
    ct_grow(&info->sample_counts, &info->sample_counts_cap,
            info->nsample_counts, sizeof *info->sample_counts);
    info->sample_counts[info->nsample_counts++] =
        (struct ct_sample_count){func, self, total};
}

void ct_trace_add_sample_arc(struct ct_trace_info *info, uint32_t caller,
                             uint32_t callee, uint64_t count)
{
    ct_grow(&info->sample_arcs, &info->sample_arcs_cap, info->nsample_arcs,
            sizeof *info->sample_arcs);
    info->sample_arcs[info->nsample_arcs++] =
        (struct ct_sample_arc){caller, callee, count};
}

static int tee_event(struct ct_sink *self, const struct ct_event *ev)
{
    struct ct_tee *t = (struct ct_tee *)self;
    int r = t->a->event(t->a, ev);
    int s = t->b->event(t->b, ev);
    return r ? r : s;
}

void ct_tee_init(struct ct_tee *tee, struct ct_sink *a, struct ct_sink *b)
{
    tee->sink.event = tee_event;
    tee->a = a;
    tee->b = b;
}
