/*
 * The event stream as slices on per-thread tracks, for the timeline
 * writers (chrome, perfetto).  It keeps each thread's open frames and
 * calls back when a slice begins or ends, with the profile's rules
 * (docs/analysis.md):
 *
 *  - a return closes its frame; frames above it (calls with no return,
 *    or all open frames for a return with no call) end at the thread's
 *    previous event, marked "never_returned";
 *  - STACK records open frames that began before the data (kind
 *    CT_SLICE_BEFORE_DATA, not calls), closing those that differ;
 *  - thread ends and the end of the data close what is open, marked;
 *  - S..E (nested pairs as one) is an overhead slice inside the frame,
 *    ended before any frame ends or begins;
 *  - samples, on threads that record no calls, become slices from one
 *    sample to the next of the same stack (kind CT_SLICE_SAMPLE); on
 *    threads with calls they are counted in samples_left_out.
 *
 * Times given to the callbacks never go back within a thread.
 */
#ifndef CT_TIMELINE_H
#define CT_TIMELINE_H

#include <stdbool.h>
#include <stdint.h>

#include "analyzer/model/trace.h"

enum ct_slice_kind {
    CT_SLICE_CALL,
    CT_SLICE_BEFORE_DATA,   /* open when this thread's data began        */
    CT_SLICE_SAMPLE,
    CT_SLICE_OVERHEAD,      /* func is CT_FUNC_NONE                      */
};

struct ct_timeline_ops {
    void (*begin)(void *ctx, uint32_t thread, uint64_t t, uint32_t func,
                  enum ct_slice_kind kind);
    /* mark: NULL, "never_returned" or "open_at_window_end"; args and ret:
     * the call's arguments and return value as text (values.h), or NULL */
    void (*end)(void *ctx, uint32_t thread, uint64_t t, uint32_t func,
                enum ct_slice_kind kind, const char *mark, const char *args,
                const char *ret);
    /* CT_EV_USER and CT_EV_LOST, at time t */
    void (*instant)(void *ctx, uint64_t t, const struct ct_event *ev);
};

struct ct_trace_info;
struct ct_timeline {
    const struct ct_timeline_ops *ops;
    void *ctx;
    const struct ct_trace_info *info;  /* names pointers among values */
    struct ct_tl_thread *threads;
    size_t nthreads;
    uint64_t samples_left_out;
};

void ct_timeline_init(struct ct_timeline *tl,
                      const struct ct_timeline_ops *ops, void *ctx,
                      const struct ct_trace_info *info);
void ct_timeline_event(struct ct_timeline *tl, const struct ct_event *ev);
struct ct_view_opts;
struct ct_range_filter;

/* Closes every open frame at its thread's last event, marked
 * "open_at_window_end" under --time-range, else "never_returned"; a
 * thread that went on past the window (range, may be NULL) closes them at
 * the window's end, where the profile stops charging them. */
void ct_timeline_finish(struct ct_timeline *tl, const struct ct_view_opts *opts,
                        const struct ct_range_filter *range);
/* A timeline export's last word, after its output: 1, with an error, when
 * it drew nothing (drew_nothing) from an input that has per-function
 * sample counts but no times; else 0, with a warning for the samples
 * left out.  writer names the export in the messages. */
int ct_timeline_verdict(const struct ct_timeline *tl,
                        const struct ct_trace_info *info, const char *writer,
                        bool drew_nothing);
void ct_timeline_free(struct ct_timeline *tl);

#endif /* CT_TIMELINE_H */
