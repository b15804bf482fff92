/*
 * The analyzer's common model of a trace.
 *
 * Every reader (calltrace's binary traces and the neighbouring tools' logs)
 * turns its input into a ct_trace_info plus a stream of ct_events pushed into
 * a ct_sink.  Every consumer (the profile model, the exporters, --dump) is a
 * sink.  Nothing downstream knows which format the data came from, except
 * through info->format.
 *
 * Ordering contract: the events of one thread arrive in non-decreasing time
 * order; events of different threads may interleave in any order.
 */
#ifndef CT_TRACE_H
#define CT_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analyzer/model/functab.h"
#include "analyzer/util.h"

#define CT_FUNC_NONE UINT32_MAX

enum ct_ev_kind {
    CT_EV_CALL = 1,       /* func entered (site = call site, 0 if unknown)  */
    CT_EV_RETURN,         /* func returned; func may be CT_FUNC_NONE when the
                             format pairs returns by nesting                  */
    CT_EV_OVERHEAD_START, /* S: the tracer's own work begins                */
    CT_EV_OVERHEAD_END,   /* E: it ends                                     */
    CT_EV_USER,           /* V: a user event, text = message                */
    CT_EV_LOST,           /* count events were lost on this thread here      */
    CT_EV_SAMPLE,         /* a stack sample: stack[0..depth) leaf first,
                             count = weight (1 unless aggregated)           */
    CT_EV_STACK,          /* frames already open at this point, outermost
                             first (block start, fork child, trimmed log)   */
    CT_EV_THREAD_END,     /* the thread exited: frames still open end here  */
    CT_EV_OFFCPU_START,   /* the thread left the CPU (count 1: preempted,
                             0: blocked or asleep)                          */
    CT_EV_OFFCPU_END,     /* it runs again                                  */
    CT_EV_CPUTIME,        /* count = the thread's CPU time (ns) so far      */
    CT_EV_ARGS,           /* the arguments of the thread's latest CALL:
                             text = an ARGS payload (values.h), not text  */
    CT_EV_RETVAL,         /* the return value of its next RETURN: text = a
                             RETVAL payload                               */
    CT_EV_PATH,           /* a call path of a profile (CALLTRACE_MODE=
                             profile): stack[0..depth) outermost first,
                             count = its calls, path_self = its self ticks,
                             path_kids = the calls it made; nothing else of
                             the thread's time is told (profile_paths.c)  */
};

/* The one definition of an event, as the report's "Events:" line and
 * calltrace record's closing line count them (docs/analysis.md): every
 * record of the program and of the tracer's work on its behalf (calls,
 * returns, user events, samples, losses, stacks, overhead, thread ends),
 * not the scheduler's and the clock's (off-CPU intervals, CPU time
 * readings). */
static inline bool ct_event_counted(enum ct_ev_kind kind)
{
    return kind < CT_EV_OFFCPU_START;
}

struct ct_event {
    enum ct_ev_kind kind;
    uint32_t thread;      /* index into ct_trace_info.threads              */
    uint64_t time;        /* ticks; see ct_trace_info.ns_per_tick          */
    uint32_t func;        /* functab id, or CT_FUNC_NONE                   */
    uint64_t site;        /* CALL: call-site address, 0 if unknown          */
    const char *text;     /* USER: message (not NUL-terminated); ARGS,
                             RETVAL: the record's payload                 */
    size_t text_len;
    uint64_t count;       /* LOST: events lost; SAMPLE: weight              */
    const uint32_t *stack;/* SAMPLE, STACK: functab ids                     */
    uint32_t depth;
    const uint64_t *pcs;  /* SAMPLE: the sampled pcs (leaf first, depth of
                             them) when stack[] holds the functions that
                             contain them, for --by-line; NULL if none     */
    uint64_t path_self;   /* PATH: ticks with exactly this path open       */
    uint64_t path_kids;   /* PATH: calls made from this path               */
    uint64_t path_lib_kids; /* PATH: of path_kids, library calls         */
    uint64_t path_off;    /* PATH: of path_self, ticks off the CPU         */
};

/* The events an event stands for in the `Events:` counts of every view
 * (the report's summary, --info, record's closing line): 1 for those
 * ct_event_counted takes, a profile's call path the call and the return
 * of each of its calls (what the trace mode would have recorded), else 0. */
static inline uint64_t ct_event_weight(const struct ct_event *ev)
{
    if (ev->kind == CT_EV_PATH)
        return 2 * ev->count;
    return ct_event_counted(ev->kind);
}

struct ct_sink {
    /* Returns 0 to go on, non-zero to stop reading. */
    int (*event)(struct ct_sink *self, const struct ct_event *ev);
};

/*
 * A sink that also takes events in arrays, so that a reader which decodes
 * many events at once pays one call for them and the consumer can keep its
 * state in registers across them.  Its sink.event must be
 * ct_batch_sink_event, which hands single events on as arrays of one: a
 * batch sink works wherever a sink does, and readers recognise one by that
 * function (ct_sink_batch).  Pointers inside the events (text, stack, pcs)
 * stay valid until the call returns.
 */
struct ct_batch_sink {
    struct ct_sink sink;
    /* Returns 0 to go on, non-zero to stop reading. */
    int (*events)(struct ct_batch_sink *self, const struct ct_event *ev,
                  size_t n);
};

int ct_batch_sink_event(struct ct_sink *self, const struct ct_event *ev);

/* The batch interface of sink, or NULL if it takes events one by one. */
static inline struct ct_batch_sink *ct_sink_batch(struct ct_sink *sink)
{
    return sink->event == ct_batch_sink_event ? (struct ct_batch_sink *)sink
                                              : NULL;
}

struct ct_thread_info {
    uint64_t tid;         /* as the source names it (kernel tid, lms: 0)   */
    char name[32];        /* optional, "" if none                           */
    bool synthetic;       /* made up by the reader, not a thread of the
                             source (evlog states): tid is only a key, the
                             name says what it is                          */
    uint8_t oncpu;        /* CT_ONCPU_*: what tells its on-CPU time         */
    uint64_t context;     /* 0, or a coroutine (a context of thread tid
                             with a call stack of its own, CONTEXT records)
                             shown as a thread of its own                  */
    bool excluded;        /* left out by --tid: the summaries omit it      */
};

/* ct_thread_info.oncpu and ct_trace_info.oncpu (as in calltrace_format.h) */
#define CT_ONCPU_NONE   0u  /* nothing: on-CPU time unknown                 */
#define CT_ONCPU_SWITCH 1u  /* OFFCPU_START/END events: every interval      */
#define CT_ONCPU_CLOCK  2u  /* CPUTIME events: a per-thread total only      */

struct ct_meta {
    char *key;            /* e.g. "CPUFREQ 0"                               */
    char *value;          /* e.g. "2400 MHz"                                */
};

/* Aggregated sampled data from formats that carry no stacks (SamplingProf). */
struct ct_sample_count {
    uint32_t func;
    uint64_t self, total;
};
struct ct_sample_arc {
    uint32_t caller;      /* CT_FUNC_NONE for the root (-1)                 */
    uint32_t callee;
    uint64_t count;
};

struct ct_trace_info {
    const char *format;       /* "calltrace", "openlaszlo", "lms", "rtl",
                                 "samplingprof", "evlog"                      */
    const char *path;         /* input file name, for messages              */
    char program[1024];       /* executable or application, "" if unknown   */
    char command[1024];       /* command line, "" if unknown                */
    uint64_t pid, ppid;       /* 0 if unknown                               */
    double ns_per_tick;       /* tick length in nanoseconds                 */
    char clock[64];           /* human description, e.g. "tsc 2.90 GHz"     */
    int64_t start_epoch_ns;   /* wall-clock time of tick start_ticks, 0 if
                                 unknown                                    */
    uint64_t start_ticks;     /* tick value corresponding to start_epoch_ns */
    double bias_ns_per_call;  /* tracer cost of one call, 0 if unknown: of
                                 a split calibration, the part inside the
                                 called function's interval               */
    double bias_child_ns;     /* the part in the caller's self time, per
                                 call it makes; 0 if not split (older)    */
    double bias_spread_ns;    /* how much the calibration varied          */
    double bias_lib_ns;       /* a library call's whole cost through the
                                 tracer's stub (calibration at start), 0 if
                                 unknown (docs/analysis.md)               */
    double bias_lib_self_ns;  /* of it, the part inside the library
                                 function's interval                      */
    /* The same figures measured in the run itself (bias_run.h), when
     * --subtract-bias asked for them; each part found replaces the
     * calibration's in every view (ct_bias_self_ns, ct_bias_child_ns). */
    struct ct_run_bias {
        bool self_found, child_found;
        bool self_bounded, child_bounded;       /* by the other part    */
        double self_ns, child_ns;
        double self_spread_ns, child_spread_ns; /* half the quartiles' gap */
        uint64_t self_samples, child_samples;   /* of the function chosen  */
        char self_func[64], child_func[64];     /* whose calls gave them   */
    } run_bias;

    struct ct_thread_info *threads;
    uint32_t nthreads, threads_cap;

    struct ct_meta *meta;     /* free-form metadata shown in the summary    */
    size_t nmeta, meta_cap;

    bool sampled;             /* figures are statistical                    */
    bool profile_mode;        /* a calltrace profile (CALLTRACE_MODE=profile):
                                 call paths' sums, no calls one by one       */
    uint64_t profile_over_calls; /* calls outside its tables' room           */
    uint64_t profile_over_ticks; /* ... and their time                       */
    uint64_t sample_interval_ns;
    struct ct_sample_count *sample_counts;  /* from aggregated formats      */
    size_t nsample_counts, sample_counts_cap;
    struct ct_sample_arc *sample_arcs;
    size_t nsample_arcs, sample_arcs_cap;
    double sample_runtime_ms; /* SamplingProf's runtime chunk, 0 if none    */

    uint64_t lost_events;     /* lost events the source declared            */
    uint32_t oncpu;           /* CT_ONCPU_*: what the tracer could record   */
    int oncpu_errno;          /* why context switches were refused, or 0    */
    uint64_t switches_lost;   /* context-switch records the kernel dropped  */
    uint64_t skipped_lines;   /* --lenient: malformed lines skipped         */
    char stopped[256];        /* "" or where reading stopped on damage, e.g.
                                 "truncated at byte 81234 (block 7)"        */
    bool have_first_time;     /* the reader knows the trace's first event
                                 even if it skips it (--time-range reads
                                 only the blocks near the window)           */
    uint64_t first_time;      /* its time in ticks: the origin of
                                 --time-range and of --dump timestamps      */

    struct ct_functab *funcs;
    struct ct_filtered *filtered; /* record-time filters, NULL if none
                                     (filtered.h)                            */

    /* Source line of a run-time pc, for line-level views of samples
     * (binary traces, through the symbolizer); NULL where the format has
     * no addresses.  *file is malloc'ed (NULL if unknown), *line 0 if
     * unknown.  Returns false when the pc is in no known object. */
    bool (*pc_line)(void *ctx, uint64_t pc, char **file, uint32_t *line);
    void *pc_line_ctx;
    /* The name of the function that starts at a run-time address, into
     * buf (cap bytes): a pointer among a call's values (ARGS, RETVAL)
     * that is one reads `&name`, as uftrace shows a callback.  NULL where
     * the format has no addresses; false when no function starts there. */
    bool (*addr_name)(void *ctx, uint64_t addr, char *buf, size_t cap);
    void *addr_name_ctx;
};

/* The tracer's cost per call inside the call, and in its caller per call
 * it makes, that the views take off: the run's own figure where one was
 * measured, else the calibration at start. */
static inline double ct_bias_self_ns(const struct ct_trace_info *info)
{
    return info->run_bias.self_found ? info->run_bias.self_ns
                                     : info->bias_ns_per_call;
}
static inline double ct_bias_child_ns(const struct ct_trace_info *info)
{
    return info->run_bias.child_found ? info->run_bias.child_ns
                                      : info->bias_child_ns;
}

/* What a library call's stub costs beyond a hooked call, by the
 * calibrations at start, inside the call's interval and in its caller's
 * (0 if unknown, or not more): taken off each library call on top of the
 * hooked call's figures, in every view that takes those off. */
static inline double ct_bias_lib_self_extra_ns(const struct ct_trace_info *info)
{
    double d = info->bias_lib_self_ns - info->bias_ns_per_call;
    return info->bias_lib_ns > 0 && d > 0 ? d : 0;
}
static inline double ct_bias_lib_child_extra_ns(const struct ct_trace_info *info)
{
    double d = info->bias_lib_ns - info->bias_lib_self_ns - info->bias_child_ns;
    return info->bias_lib_ns > 0 && d > 0 ? d : 0;
}
static inline double ct_bias_lib_extra_ns(const struct ct_trace_info *info)
{
    return ct_bias_lib_self_extra_ns(info) + ct_bias_lib_child_extra_ns(info);
}

/* A bias in ns as whole ticks of the trace's clock (0 if none). */
static inline uint64_t ct_bias_ticks(double ns, double ns_per_tick)
{
    return ns > 0 ? (uint64_t)(ns / (ns_per_tick > 0 ? ns_per_tick : 1) + 0.5)
                  : 0;
}

/* What a view takes off per call (--subtract-bias), in whole ticks of the
 * trace's clock: off a call's self time and off its caller's, and more of
 * each for a library call (ct_functab_is_libcall). */
struct ct_view_bias {
    uint64_t self, child;
    uint64_t lib_self, lib_child;
};
static inline struct ct_view_bias ct_view_bias(const struct ct_trace_info *info)
{
    double tick = info->ns_per_tick > 0 ? info->ns_per_tick : 1.0;
    return (struct ct_view_bias){
        ct_bias_ticks(ct_bias_self_ns(info), tick),
        ct_bias_ticks(ct_bias_child_ns(info), tick),
        ct_bias_ticks(ct_bias_lib_self_extra_ns(info), tick),
        ct_bias_ticks(ct_bias_lib_child_extra_ns(info), tick),
    };
}
/* What comes off one call of func: off its self time, and off its
 * caller's; a library call's stub excess included. */
struct ct_call_bias {
    uint64_t self, child;
};
static inline struct ct_call_bias ct_call_bias(const struct ct_view_bias *b,
                                               const struct ct_functab *funcs,
                                               uint32_t func)
{
    if ((b->lib_self | b->lib_child) && ct_functab_is_libcall(funcs, func))
        return (struct ct_call_bias){b->self + b->lib_self,
                                     b->child + b->lib_child};
    return (struct ct_call_bias){b->self, b->child};
}
/* What comes off a profile's call path (CT_EV_PATH) in its self time: its
 * calls' part inside each call and the part its own calls leave in it, a
 * library call's stub excess included on either side, never more than it
 * has: the rule ct_call_bias gives the trace's views per call. */
static inline uint64_t ct_path_bias(const struct ct_view_bias *b,
                                    const struct ct_functab *funcs,
                                    const struct ct_event *ev)
{
    struct ct_call_bias own = ct_call_bias(
        b, funcs, ev->depth ? ev->stack[ev->depth - 1] : CT_FUNC_NONE);
    uint64_t t = ct_sat_add(ev->count * own.self, ev->path_kids * b->child);
    t = ct_sat_add(t, ev->path_lib_kids * b->lib_child);
    return t < ev->path_self ? t : ev->path_self;
}

void ct_trace_info_init(struct ct_trace_info *info, const char *path,
                        const char *format);
void ct_trace_info_free(struct ct_trace_info *info);

/* Index of the thread with this source id, added if new. */
uint32_t ct_trace_thread(struct ct_trace_info *info, uint64_t tid);
/* A thread of its own even if an earlier one had the same tid (the kernel
 * reuses the tid of a thread that ended). */
uint32_t ct_trace_thread_new(struct ct_trace_info *info, uint64_t tid);
/* How many threads before this one had its tid: 0 unless the tid was
 * reused.  Views that key threads by tid tell such threads apart by it. */
uint32_t ct_trace_thread_rank(const struct ct_trace_info *info,
                              uint32_t thread);
/* The thread's name, else "thread TID"; a reused tid's later threads get
 * " #N" (N = rank + 1). */
void ct_trace_thread_label(const struct ct_trace_info *info, uint32_t thread,
                           char *buf, size_t cap);
void ct_trace_add_meta(struct ct_trace_info *info, const char *key,
                       const char *value);
void ct_trace_add_sample_count(struct ct_trace_info *info, uint32_t func,
                               uint64_t self, uint64_t total);
void ct_trace_add_sample_arc(struct ct_trace_info *info, uint32_t caller,
                             uint32_t callee, uint64_t count);

/* Ticks to nanoseconds, as a double (sums stay in integer ticks). */
static inline double ct_ticks_to_ns(const struct ct_trace_info *info,
                                    uint64_t ticks)
{
    return (double)ticks * info->ns_per_tick;
}

/*
 * Passes on only the events inside a --time-range window, given in ns from
 * the trace's first event (info->first_time, or else the first event it
 * sees), for consumers that do not filter themselves (--dump, --export).
 * The frames open when the window begins are passed on as a CT_EV_STACK
 * at the window's start (before the thread's first event in it, or alone
 * when its next event comes after the window), so the consumer can name
 * the returns of calls made before the window and draw them from where
 * the profile charges them.
 */
struct ct_range_thread {
    uint32_t *f;              /* open frames, outermost first              */
    size_t n, cap;
    bool inside;              /* the window's first event was passed on    */
    bool past;                /* an event after the window was seen        */
};
struct ct_range_filter {
    struct ct_sink sink;
    struct ct_sink *next;
    const struct ct_trace_info *info;
    int64_t from_ns, to_ns;
    bool origin_set;
    uint64_t from, to;        /* ticks, absolute, once origin_set          */
    struct ct_range_thread *threads;
    size_t nthreads;
};
void ct_range_filter_init(struct ct_range_filter *f, struct ct_sink *next,
                          const struct ct_trace_info *info, int64_t from_ns,
                          int64_t to_ns);
void ct_range_filter_free(struct ct_range_filter *f);
/* Whether the thread's data went on after the window (f may be NULL). */
bool ct_range_past(const struct ct_range_filter *f, uint32_t thread);

/* A sink that passes events to two sinks (e.g. profile and exporter). */
struct ct_tee {
    struct ct_sink sink;
    struct ct_sink *a, *b;
};
void ct_tee_init(struct ct_tee *tee, struct ct_sink *a, struct ct_sink *b);

#endif /* CT_TRACE_H */
