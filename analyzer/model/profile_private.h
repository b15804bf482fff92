/*
 * The profile model's private state, shared by profile*.c and cycles.c.
 * See docs/analysis.md for what is charged where and why.
 */
#ifndef CT_PROFILE_PRIVATE_H
#define CT_PROFILE_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyzer/model/profile.h"
#include "analyzer/model/profile_dist.h"
#include "analyzer/model/profile_lines.h"

/* One open activation on a thread's stack. */
struct ct_frame {
    uint32_t func;
    uint32_t arc;           /* arc that entered this frame                 */
    uint64_t entry_clock;   /* thread's cpu clock when entered             */
    uint64_t entry_off;     /* thread's off-CPU clock when entered         */
    uint64_t self;          /* own self ticks                              */
    uint64_t inner_self;    /* outermost frame: self of the same function's
                               inner (recursive) frames                    */
    uint64_t off_self, inner_off_self; /* their off-CPU parts              */
    uint32_t outer_pos;     /* position of the outermost frame of func     */
    bool called;            /* entered by a CALL (not a STACK record)      */
    bool counted;           /* ... a call the profile counted (in range)   */
    bool inherited;         /* opened by a piece's first STACK record
                               (profile_parts.c, profile_dist.c)           */
    bool shared;            /* counted in the thread's table, not in the
                               per-function owner arrays                   */
};

/* Per-thread count of open frames of a function (open addressing). */
struct ct_active {
    uint32_t func;          /* CT_FUNC_NONE = empty slot                   */
    uint32_t count;
    uint32_t outer_pos;
};

/* Per func: the thread (index + 1) whose open frames of it are counted
 * here, how many, and where its outermost one is.  The usual case, a
 * function open on one thread at a time, needs no hashing; the per-thread
 * tables take the rest.  One struct, so a call touches one cache line. */
struct ct_owner {
    uint32_t thread;
    uint32_t count;
    uint32_t outer;
};

/* Per caller function: the arcs to its latest callees, direct-mapped by
 * the callee's low bits.  A caller calls few functions often, and most
 * frames are short (one or two calls), so a cache per function hits where
 * one per frame would miss at every frame's first call. */
#define CT_CALLEE_WAYS 4u
struct ct_callees {
    uint32_t callee[CT_CALLEE_WAYS]; /* CT_FUNC_NONE = empty            */
    uint32_t arc[CT_CALLEE_WAYS];
};

/* The arc table keeps the keys in its slots, so that a lookup touches one
 * cache line (and not the arcs array). */
struct ct_arc_slot {
    uint64_t key;                 /* caller << 32 | callee                */
    uint32_t arc;                 /* arc index + 1, 0 = empty slot        */
};

struct ct_pthread {
    struct ct_frame *stack;
    size_t depth, cap;
    struct ct_active *act;
    uint32_t act_cap, act_used;   /* act_cap is a power of two            */
    bool seen;
    uint64_t first, cur;          /* first and latest event time          */
    uint64_t clock;               /* cpu ticks charged on this thread     */
    uint64_t offclock;            /* of them, ticks off the CPU           */
    bool off;                     /* between OFFCPU_START and END         */
    bool off_preempted;
    struct ct_thread_time tt;     /* handed out by ct_profile_finish      */
    bool have_clock;              /* CPUTIME: a first reading             */
    uint64_t clock_t0, clock_t1, clock_c0, clock_c1;
    uint32_t in_overhead;         /* S nesting                            */
    uint64_t pending_unmetered;   /* unmetered ticks since the first event
                                     or the last return with no call      */
    /* profile_parts.c: a piece of a thread decoded apart */
    bool resumed;                 /* it began inside the thread           */
    bool inherit_pending;         /* its first STACK record is still due  */
    uint32_t pending_flushes;     /* returns with no call it saw          */
    uint64_t end_pending;         /* pending_unmetered at its end         */
};

struct ct_profile_state {
    struct ct_batch_sink sink;
    struct ct_profile *p;
    size_t funcs_cap;
    size_t arcs_cap;
    struct ct_arc_slot *arc_slots; /* (caller, callee) -> arc           */
    uint32_t arc_slot_cap;        /* power of two                         */
    struct ct_pthread *threads;
    size_t nthreads;
    /* range, in ticks, absolute; valid once origin_set */
    bool origin_set;
    uint64_t origin, rfrom, rto;
    struct ct_view_bias bias;     /* --subtract-bias; zeros if not asked  */
    /* stack samples: per-arc sample weights, kept beside the arcs */
    uint64_t *sarc_self, *sarc_child;
    uint64_t *sarc_count;         /* samples whose stack has the arc      */
    uint64_t *mark;               /* per func: sample generation seen     */
    struct ct_owner *owner;       /* per func                             */
    struct ct_callees *callees;   /* per func: its arcs' cache            */
    uint64_t mark_gen;
    uint64_t samples_total_weight;
    uint64_t ticks_per_sample;    /* set when samples are folded in       */
    struct ct_prof_lines *lines;  /* stacks with pcs, for the line view
                                     (profile_lines.c)                   */
    bool span_set;                /* wall span of sample events           */
    uint64_t span_first, span_last;
    bool finished;
    struct ct_prof_dist *dist;    /* per-call distributions, NULL = none  */
    /* profile_dist.c keeps these for ct_prof_run_leave's inline case: the
     * arcs' distributions, and whether a call that returned goes straight
     * to its arc's (no piece is closing, no --slowest) */
    struct ct_call_dist *dist_arcs;
    size_t dist_narcs;
    bool dist_simple;
    bool no_runs;                 /* every event the general way          */
};

/* profile_arcs.c */
void ct_prof_need_func(struct ct_profile *p, uint32_t func);
uint32_t ct_prof_arc(struct ct_profile *p, uint32_t caller, uint32_t callee);
/* A call path of a profile (CT_EV_PATH, profile_paths.c). */
void ct_prof_path(struct ct_profile *p, struct ct_pthread *th,
                  const struct ct_event *ev);
uint32_t ct_prof_new_arc(struct ct_profile *p, uint32_t caller,
                         uint32_t callee);
/* Removes the arcs with no call and no time (those only samples made,
 * when samples are kept apart from the calls). */
void ct_prof_drop_empty_arcs(struct ct_profile *p);

static inline uint64_t ct_prof_arc_key(uint32_t caller, uint32_t callee)
{
    return (uint64_t)caller << 32 | callee;
}

static inline uint32_t ct_prof_arc_hash(uint64_t key)
{
    return (uint32_t)((key * 0x9e3779b97f4a7c15ull) >> 32);
}

/* The arc caller -> callee, made if new.  Inline: calls look one up
 * whenever the caller's frame has not called this callee before. */
static inline uint32_t ct_prof_arc_inline(struct ct_profile_state *s,
                                          struct ct_profile *p,
                                          uint32_t caller, uint32_t callee)
{
    uint64_t key = ct_prof_arc_key(caller, callee);
    uint32_t mask = s->arc_slot_cap - 1;
    if (s->arc_slot_cap)
        for (uint32_t h = ct_prof_arc_hash(key);; h++) {
            const struct ct_arc_slot *slot = &s->arc_slots[h & mask];
            if (slot->key == key && slot->arc)
                return slot->arc - 1;
            if (!slot->arc)
                break;
        }
    return ct_prof_new_arc(p, caller, callee);
}

/* profile_active.c: th's own counts of open frames of a function, for a
 * function open on two threads at once.  Enter returns the position of
 * the outermost such frame on th. */
uint32_t ct_prof_act_enter(struct ct_pthread *th, uint32_t func,
                           size_t depth);
void ct_prof_act_leave(struct ct_pthread *th, uint32_t func);
bool ct_prof_act_open(struct ct_pthread *th, uint32_t func);

/* profile_dist.c: how a frame was closed, and the hooks that feed the
 * distributions (profile_dist.h) */
enum { CT_CLOSE_RETURN, CT_CLOSE_UNMATCHED, CT_CLOSE_END };
void ct_prof_dist_new(struct ct_profile *p);
void ct_prof_dist_free(struct ct_profile *p);
/* A call that returned, into its arc's distribution: once when its self
 * time is its total (ct_call_dist.same), else into both. */
static inline __attribute__((always_inline)) void
ct_prof_dist_add(struct ct_call_dist *a, uint64_t span, uint64_t self)
{
    if (self == span) {
        ct_hist_add(&a->same, span);
        return;
    }
    ct_hist_add(&a->total, span);
    ct_hist_add(&a->self, self);
}
void ct_prof_dist_leave(struct ct_profile *p, struct ct_pthread *th,
                        uint32_t thread, const struct ct_frame *fr,
                        uint64_t span, unsigned how);
/* The functions' distributions, from their arcs' (at the profile's end). */
void ct_prof_dist_finish(struct ct_profile *p);
/* --slowest: the top frame was just entered, at th->cur. */
void ct_prof_dist_entry(struct ct_profile *p, struct ct_pthread *th);
/* A piece ends; capture: its open frames go on in the next piece. */
void ct_prof_dist_piece_end(struct ct_profile *part, bool capture);
void ct_prof_dist_move_arc(struct ct_profile *p, uint32_t to, uint32_t from);
void ct_prof_dist_merge(struct ct_profile *whole, struct ct_profile *part,
                        const uint32_t *func_map);

/* profile_stack.c */
int ct_prof_event(struct ct_profile *p, const struct ct_event *ev);
void ct_prof_events(struct ct_profile *p, const struct ct_event *ev,
                    size_t n);
void ct_prof_close_thread(struct ct_profile *p, uint32_t thread);

/* profile_samples.c */
void ct_prof_sample(struct ct_profile *p, const struct ct_event *ev);
void ct_prof_fold_samples(struct ct_profile *p);

/* cycles.c: numbers cycles (fstats.cycle, p->ncycles) and moves the times
 * of arcs inside cycles to the arcs that enter them. */
void ct_prof_find_cycles(struct ct_profile *p);

/* Splits total into n integer shares proportional to weight[] (largest
 * remainder), so that the shares add up to total exactly.  All zero
 * weights give equal shares. */
void ct_apportion(uint64_t total, const uint64_t *weight, uint64_t *share,
                  size_t n);

/* Tarjan's strongly connected components over nodes 0..n-1 given as
 * adjacency lists (succ[off[i]..off[i+1])).  comp[i] receives a component
 * number (0-based, in the order components complete).  Returns the number
 * of components.  Iterative: deep graphs do not exhaust the C stack. */
uint32_t ct_scc(uint32_t n, const uint32_t *off, const uint32_t *succ,
                uint32_t *comp);

#endif /* CT_PROFILE_PRIVATE_H */
