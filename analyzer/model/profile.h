/*
 * The profile model: exact per-function and per-arc times rebuilt from the
 * event stream (see docs/analysis.md for the definitions).  A profile is a
 * sink; feed it events, call ct_profile_finish, then read the results.
 */
#ifndef CT_PROFILE_H
#define CT_PROFILE_H

#include <stdbool.h>
#include <stdint.h>

#include "analyzer/model/trace.h"

struct ct_profile_opts {
    bool per_thread;        /* keep one profile per thread as well       */
    bool subtract_bias;     /* take info->bias_ns_per_call off each call */
    bool have_range;        /* charge only time inside [from, to]        */
    int64_t range_from_ns, range_to_ns; /* relative to the first event   */
    bool stats;             /* per-call distributions (profile_dist.h)   */
    uint32_t slowest;       /* keep the N slowest calls of each function */
};

/* Per function.  All times in ticks of the trace's clock. */
struct ct_fstats {
    uint64_t calls;         /* calls from other functions (gprof's N)    */
    uint64_t self_calls;    /* direct self-recursive calls (gprof's M)   */
    uint64_t self_ticks;    /* time in the function itself               */
    uint64_t child_ticks;   /* time in its callees, recursion counted once */
    uint64_t off_self_ticks;  /* the part of self_ticks its thread was off
                                 the CPU (blocked, asleep, preempted)      */
    uint64_t off_child_ticks; /* the part of child_ticks off the CPU       */
    uint64_t samples_self;  /* sampled profiles: samples with it on top  */
    uint64_t samples_total; /* samples with it anywhere on the stack     */
    int32_t cycle;          /* cycle number, 0 = none                    */
};

/* Per arc caller -> callee (caller CT_FUNC_NONE = spontaneous). */
struct ct_arc {
    uint32_t caller, callee;
    uint64_t count;
    uint64_t self_ticks;    /* callee's self time during these calls     */
    uint64_t child_ticks;   /* its callees' time during these calls      */
    uint64_t off_self_ticks, off_child_ticks; /* their off-CPU parts     */
};

struct ct_user_event {
    uint64_t time;
    uint32_t thread;
    uint32_t func;          /* innermost open function, CT_FUNC_NONE     */
    char *text;
};

struct ct_totals {
    uint64_t cpu;           /* a traced function on the stack            */
    uint64_t overhead;      /* between S and E                           */
    uint64_t unmetered;     /* nothing traced on the stack               */
    uint64_t unknown;       /* unmatched records' time                   */
    uint64_t elapsed;       /* sum over threads of last - first event    */
    uint64_t first, last;   /* earliest and latest event, all threads    */
    uint64_t offcpu;        /* the part of cpu spent off the CPU         */
};

/* Per thread: its span and how much of it was off the CPU. */
struct ct_thread_time {
    uint8_t oncpu;          /* CT_ONCPU_*: what tells, for this thread   */
    uint64_t elapsed;       /* last - first event                        */
    uint64_t off;           /* SWITCH: off-CPU ticks within elapsed      */
    uint64_t off_cpu;       /* ... of which a traced function was open   */
    uint64_t preempted;     /* ... of off: runnable but not running      */
    uint64_t clock_ticks;   /* CPUTIME: ticks from first to last reading */
    uint64_t clock_cpu_ns;  /* CPUTIME: CPU time between them (ns)       */
};

struct ct_counts {
    uint64_t events, calls, returns, user_events, samples;
    uint64_t unmatched_returns; /* return with no call                   */
    uint64_t unmatched_calls;   /* call with no return (closed by a later
                                   return of an outer frame)             */
    uint64_t open_at_end;       /* frames still open at the end          */
    uint64_t lost;              /* lost-event records' counts            */
};

struct ct_profile {
    struct ct_trace_info *info;
    struct ct_profile_opts opts;
    struct ct_fstats *funcs;    /* indexed by functab id                 */
    uint32_t nfuncs;
    struct ct_arc *arcs;
    uint32_t narcs;
    struct ct_totals totals;
    struct ct_counts counts;
    struct ct_user_event *events;
    size_t nevents, events_cap;
    uint32_t ncycles;
    struct ct_thread_time *thread_time; /* per thread index, by finish  */
    uint32_t nthread_time;
    /* per_thread: one profile per thread index, NULL otherwise */
    struct ct_profile **threads;
    uint32_t nthreads;
    bool bias_subtracted;
    /* Calls were traced and stack samples taken too (CALLTRACE_MODE=both):
     * every time and count comes from the calls; the samples are kept
     * only in samples_self/samples_total, a view of their own. */
    bool samples_apart;
    uint64_t ticks_per_sample;  /* what one sample stands for, 0 = none  */
    struct ct_profile_state *state; /* private */
};

struct ct_profile *ct_profile_new(struct ct_trace_info *info,
                                  const struct ct_profile_opts *opts);
struct ct_sink *ct_profile_sink(struct ct_profile *p);
/* The profile whose sink this is, when it keeps no per-thread profiles
 * (a reader may then apply calls and returns to it directly, through
 * profile_run.h); NULL for any other sink. */
struct ct_profile *ct_profile_of_sink(struct ct_sink *sink);
/* Closes frames still open, folds in aggregated samples, finds cycles. */
void ct_profile_finish(struct ct_profile *p);
void ct_profile_free(struct ct_profile *p);

/*
 * Parts of one profile made on several threads (profile_parts.c).  A part
 * takes whole threads, or pieces of one thread that begin at a STACK
 * event; ct_profile_part_resume says, before its first event, that a
 * piece begins at time t inside the thread; the frames open at a piece's
 * end must be those the next piece's STACK event opens (the caller checks,
 * with ct_profile_part_open).  ct_profile_part_end closes
 * a part; threads_end false when its frames go on in a later piece.
 * ct_profile_merge adds a part into whole, a thread's pieces in time
 * order, with func_map taking the part's function ids to whole's and
 * less the events the part was given only to open a piece; then
 * ct_profile_finish(whole) as usual.
 */
struct ct_profile *ct_profile_part_new(const struct ct_profile *whole,
                                       struct ct_trace_info *part_info);
void ct_profile_part_resume(struct ct_profile *part, uint32_t thread,
                            uint64_t t);
/* The functions of the frames open on a thread of a part (at most cap of
 * them, outermost first), and whether it is inside the tracer's overhead;
 * returns how many are open. */
size_t ct_profile_part_open(const struct ct_profile *part, uint32_t thread,
                            uint32_t *funcs, size_t cap, bool *in_overhead);
void ct_profile_part_end(struct ct_profile *part, bool threads_end);
void ct_profile_merge(struct ct_profile *whole, struct ct_profile *part,
                      const uint32_t *func_map, uint64_t inherited_events);

#endif /* CT_PROFILE_H */
