/*
 * The calling contexts of a trace, for the writers that draw stacks
 * (folded, flamegraph): a tree whose nodes are call paths, each with the
 * self time spent with that exact path on the stack, its calls and its
 * samples.  It is a sink; time is charged with the profile's rules
 * (docs/analysis.md): only cpu intervals (a traced function on top, no
 * S..E open) count, intervals the profile calls unknown count nowhere,
 * frames still open at the end close at their thread's last event, and
 * with subtract_bias each called frame's self time loses the per-call
 * bias.  So the self times of all nodes add up to the report's cpu total.
 * Memory grows with the distinct call paths, not with the trace.
 */
#ifndef CT_STACKTREE_H
#define CT_STACKTREE_H

#include <stdbool.h>
#include <stdint.h>

#include "analyzer/writers/export.h"
#include "analyzer/model/trace.h"

#define CT_ST_ROOT 0u

struct ct_st_node {
    uint32_t func;          /* CT_FUNC_NONE for the root and thread roots */
    uint32_t parent;
    uint32_t child, next;   /* first child, next sibling (0 = none)       */
    uint32_t thread;        /* thread roots: the thread index             */
    uint64_t self;          /* ticks with this path on top                */
    uint64_t calls;         /* calls that opened this path                */
    uint64_t samples;       /* samples whose stack is this path           */
};

struct ct_stacktree {
    struct ct_sink sink;
    const struct ct_trace_info *info;
    bool by_thread;         /* a root per thread under the tree's root    */
    bool subtract_bias;
    struct ct_st_node *nodes;
    uint32_t nnodes, nodes_cap;
    uint32_t *slots;        /* open addressing (parent, func) -> node     */
    uint32_t nslots;
    struct ct_st_thread *threads;
    size_t nthreads;
    struct ct_view_bias bias;   /* off each call's self and its caller's */
    bool bias_known;
    uint64_t lost;          /* lost-event records' counts                 */
    /* --time-range, as the profile applies it: intervals are clipped to
     * the window, calls count when they lie inside it */
    bool have_range, origin_set;
    int64_t range_from_ns, range_to_ns;
    uint64_t rfrom, rto;    /* ticks, absolute, once origin_set          */
};

void ct_stacktree_init(struct ct_stacktree *t,
                       const struct ct_trace_info *info, bool by_thread,
                       bool subtract_bias);
struct ct_view_opts;
/* Sets the tree up as the command line asks (opts may be NULL): a root
 * per thread with --threads, the bias off with --subtract-bias, only
 * --time-range's window.  Before the first event: the writers call it
 * there, as their options may be filled in after they are made. */
void ct_stacktree_set_opts(struct ct_stacktree *t,
                           const struct ct_view_opts *opts);
/* Closes the frames still open (at each thread's last event). */
void ct_stacktree_finish(struct ct_stacktree *t);
void ct_stacktree_free(struct ct_stacktree *t);

enum { CT_ST_SELF, CT_ST_CALLS, CT_ST_SAMPLES };

/* Per node, the sum of `which` over its subtree (malloc'ed, nnodes). */
uint64_t *ct_stacktree_totals(const struct ct_stacktree *t, int which);

/* Visits the nodes depth first, parents before children, siblings in the
 * order they were first seen; stops when fn returns non-zero.  No
 * recursion: deep stacks are fine. */
int ct_stacktree_walk(const struct ct_stacktree *t,
                      int (*fn)(void *ctx, uint32_t node, uint32_t depth),
                      void *ctx);

/* The name to show for node n: the function's, or "thread TID (NAME)". */
const char *ct_stacktree_name(const struct ct_stacktree *t, uint32_t n,
                              char *buf, size_t len);

static inline uint64_t ct_st_value(const struct ct_st_node *n, int which)
{
    return which == CT_ST_SELF ? n->self
           : which == CT_ST_CALLS ? n->calls : n->samples;
}

/*
 * What a stack view shows: self time (CT_ST_SELF) for traced data, sample
 * counts for sampled data, calls (or samples) when want_calls.  Returns -1
 * after one error line naming format when the input has no stacks at all
 * but per-function counts (SamplingProf's aggregated samples).
 */
int ct_stacktree_measure(const struct ct_stacktree *t, bool want_calls,
                         const char *format);

/* Ticks as whole nanoseconds such that the values written add up to the
 * rounded total: each is the rounded running sum minus the previous one. */
struct ct_ns_rounder {
    double ns_per_tick;
    uint64_t ticks;
    uint64_t ns;
};
uint64_t ct_ns_round(struct ct_ns_rounder *r, uint64_t ticks);

/*
 * What the stack writers (folded, flamegraph, pprof) share: an exporter
 * that hands every event to a call-path tree, sets the tree up with the
 * command line's options at the first event (tests fill them in after
 * making the writer), and closes it at the end.  A writer's own struct
 * begins with it.
 */
struct ct_stack_writer {
    struct ct_exporter ex;
    FILE *out;
    struct ct_trace_info *info;
    struct ct_stacktree tree;
    bool started;
};

void ct_stack_writer_init(struct ct_stack_writer *w, FILE *out,
                          struct ct_trace_info *info,
                          const struct ct_view_opts *opts,
                          int (*finish)(struct ct_exporter *,
                                        struct ct_profile *),
                          void (*free_fn)(struct ct_exporter *));
/* Closes the frames still open and says what to show: CT_ST_* as
 * ct_stacktree_measure, or -1 after one error line naming format. */
int ct_stack_writer_close(struct ct_stack_writer *w, bool want_calls,
                          const char *format);

#endif /* CT_STACKTREE_H */
