/*
 * Record-time filters: the per-thread state filter.c keeps and the fast
 * decision filter_fast.c makes from it (docs/tracer.md, "Record-time
 * filters").  Private to filter.c and filter_fast.c.
 *
 * The fast decision: while the rules in force need nothing the slow path
 * alone can do for a function (no include or trigger names it, no
 * min=DURATION, no :caller or :backtrace rule), a call's fate follows
 * from one byte per function (its class, ct_ffast_class) and the thread's
 * scope, and filter_fast.c settles it without the slow path.  Its answer
 * is the slow path's (decide in filter.c) by construction, and a unit
 * test holds the two equal over many rule sets.
 */
#ifndef CT_FILTER_STATE_H
#define CT_FILTER_STATE_H

#include <stdint.h>

#include "preload/filters/filter.h"
#include "preload/filters/filter_skip.h"
#include "preload/tracer.h"

#pragma GCC visibility push(hidden)

/* A frame's state (fthread.state). */
#define FS_WRITTEN 0
#define FS_HIDDEN  1
#define FS_PENDING 2
/* Entered by the fast path: written or hidden as t->hidden says; it did
 * not change the scope, so its end restores none. */
#define FS_FAST    CT_FS_FAST  /* (filter_skip.h) */

#define DROP_CAP 256u

/* A count of calls of fn left out for reason. */
struct ct_fdrop {
    uintptr_t fn;
    uint32_t reason;
    uint64_t count;
};

/* What a frame's triggers change for its callees, restored when it
 * ends.  Zero is "nothing in force". */
struct fscope {
    uint32_t allow;        /* levels below this are inside an include     */
    uint32_t notrace;      /* 1 + the :notrace rule of an open frame      */
    uint32_t dbase, dmax;  /* :depth=N: N levels from level dbase         */
    uint32_t drule;        /* 1 + that :depth= rule                       */
    uint32_t trule;        /* 1 + the :time= rule in force, 0: min=       */
    uint64_t tmin;         /* its duration in ticks                       */
};

/* Records held for pending frames (struct fthread): how many, and their
 * bytes (a record with a string is at most about 4 KiB). */
#define CT_FHELD_MAX 64
#define CT_FHELD_BYTES (16u << 10)

struct fthread {
    uint64_t gen;
    struct fscope sc;
    uint32_t npending;
    uint32_t ndrops;
    struct ct_fdrop drops[DROP_CAP];
    uint64_t skipped[CT_FSKIP_SLOTS];  /* t->skip_counts: calls left out by
                                          the skip table t->skip_tab     */
    uint8_t state[CT_MAX_DEPTH];
    uint8_t fl[CT_MAX_DEPTH];
    uint32_t why[CT_MAX_DEPTH];     /* a pending frame's reason if dropped */
    struct fscope saved[CT_MAX_DEPTH];
    uint64_t ticks[CT_MAX_DEPTH];
    uint64_t fmin[CT_MAX_DEPTH];    /* a pending frame's least duration   */
    uintptr_t site[CT_MAX_DEPTH];
    /* ARGS and RETVAL records of pending frames, held until their entry
     * is written (filter_held.c): a stack, deeper frames last. */
    uint32_t nheld, held_used;
    struct fheld {
        uint32_t depth;
        uint32_t off;      /* in held_buf                               */
        uint64_t ticks;    /* the frame's entry time: which frame it is */
        uint16_t len;
        uint8_t sub;       /* CT_EXT_ARGS or CT_EXT_RETVAL; 0: written  */
    } held[CT_FHELD_MAX];
    uint8_t held_buf[CT_FHELD_BYTES];
};

/* filter_held.c: the bytes that the held records may take in a block,
 * and the writing of frame d's, right after its entry; records that find
 * no room are not shown. */
size_t ct_fheld_room(const struct fthread *f);
void ct_fheld_write(struct ct_thread *t, struct fthread *f, uint32_t d);

static inline size_t ct_fhash_addr(uintptr_t a)
{
    return (size_t)((a >> 4) * 0x9E3779B97F4A7C15ull >> 20);
}

/* ------------------------------------------------- the fast decision */

/* A function's class (one byte): what the rules say of it alone. */
#define FC_PLAIN 0x00u   /* no rule names it                           */
                         /* 1 + k: only exclude rule k names it        */
#define FC_INC   0xfeu   /* only an include names it: plain inside the
                            levels of an include, else the slow path's */
#define FC_ASK   0xffu   /* a trigger, or an include and an exclude     */

/* ct_filter_flags: process-wide state of the triggers. */
#define FFL_FINISHED 0x1u   /* a :finish function has returned           */
#define FFL_TRIG_OFF 0x2u   /* recording stopped by an :off trigger      */
extern uint32_t ct_filter_flags;

/* One object's text: a class byte per address, zero (FC_PLAIN) where no
 * rule names a function; mapped lazily, so only pages holding a named
 * function take memory. */
struct ct_ffobj {
    uintptr_t lo, hi;
    uint8_t *cls;
};

#define CT_FFAST_OBJS 128u

/* What the fast path needs of the rules in force; NULL (ct_ffast) when
 * they need the slow path for every call. */
struct ct_ffast {
    uint64_t gen;           /* the rules' generation (fthread.gen)        */
    uint32_t have_include;
    uint32_t depth;         /* depth=N, 0 = none                          */
    uint32_t nobj;          /* objects published (release)                */
    struct ct_ffobj obj[CT_FFAST_OBJS];
    struct ct_fskips *skips; /* its skip table, or NULL (filter_skip.h)   */
};

extern struct ct_ffast *ct_ffast;

/* The class of a function the rules' hash maps to v (0: none). */
static inline uint8_t ct_ffast_class(uint32_t v)
{
    if (CT_FMATCH_TRIGGER(v) || (CT_FMATCH_INCLUDE(v) && CT_FMATCH_EXCLUDE(v)))
        return FC_ASK;
    if (CT_FMATCH_INCLUDE(v))
        return FC_INC;
    return (uint8_t)CT_FMATCH_EXCLUDE(v);  /* 0, or 1 + the rule */
}

/* The class of the function at fn: FC_ASK outside the objects known. */
static inline uint8_t ct_ffast_lookup(const struct ct_ffast *ff, uintptr_t fn)
{
    uint32_t n = __atomic_load_n(&ff->nobj, __ATOMIC_ACQUIRE);
    for (uint32_t i = 0; i < n; i++)
        if (fn - ff->obj[i].lo < ff->obj[i].hi - ff->obj[i].lo)
            return ff->obj[i].cls[fn - ff->obj[i].lo];
    return FC_ASK;
}

#define FAST_ASK   (-1)
#define FAST_WRITE 0
#define FAST_DROP  1

/*
 * The fast decision for a function of class c entered at level d under
 * scope sc: FAST_WRITE, FAST_DROP with *reason (CT_DROP_*), or FAST_ASK.
 * It follows decide() in filter.c step by step for a function no include
 * or trigger names (which changes no scope there), under rules with no
 * min=, :caller or :backtrace.  A written frame under a :time= rule, or
 * with pending frames below, waits on its duration: the slow path's.
 */
static inline int ct_ffast_decide(const struct ct_ffast *ff, uint8_t c,
                                  uint32_t d, const struct fscope *sc,
                                  uint32_t npending, uint32_t flags,
                                  uint32_t *reason)
{
    /* An include opens its levels where none are open: a new scope. */
    if (c == FC_ASK || (c == FC_INC && sc->allow == 0))
        return FAST_ASK;
    if (c == FC_INC)
        c = FC_PLAIN;
    if (flags & FFL_FINISHED)
        *reason = CT_DROP_FINISHED;
    else if (sc->notrace)
        *reason = CT_DROP_NOTRACE | (sc->notrace - 1) << 3;
    else if (flags & FFL_TRIG_OFF)
        *reason = CT_DROP_TRIGGER;
    else if (c != FC_PLAIN)
        *reason = CT_DROP_EXCLUDED | (uint32_t)(c - 1) << 3;
    else if (ff->have_include && d >= sc->allow)
        *reason = CT_DROP_OUTSIDE;
    else if (ff->depth && d >= ff->depth)
        *reason = CT_DROP_DEPTH;
    else if (sc->dmax && d - sc->dbase >= sc->dmax)
        *reason = CT_DROP_DEPTH | sc->drule << 3;
    else
        return (sc->trule | npending) ? FAST_ASK : FAST_WRITE;
    return FAST_DROP;
}

/* The count of fn's drops for reason when it is where the first probe
 * of filter.c's count_drop looks, else NULL (the first drop of a kind
 * goes to the slow path). */
static inline uint64_t *ct_fdrop_slot(struct fthread *f, uintptr_t fn,
                                      uint32_t reason)
{
    struct ct_fdrop *e = &f->drops[(ct_fhash_addr(fn) ^ reason) & (DROP_CAP - 1)];
    return e->fn == fn && e->reason == reason && e->count ? &e->count : NULL;
}

/* filter_fast.c: the tables for the rules s (spec, hash of function
 * addresses to ct_fspec_match values) after they were installed or new
 * objects were scanned; NULL when the rules need the slow path always.
 * Called with filter.c's install lock held. */
struct ct_ffast *ct_ffast_update(struct ct_ffast *ff, const struct ct_fspec *sp,
                                 uint64_t gen,
                                 void (*each)(void *arg,
                                              void (*fn)(void *, uintptr_t,
                                                         uint32_t),
                                              void *fnarg),
                                 void *arg);

/* The fast hooks (filter_fast.c), which thread.c's slow paths call
 * first while ct_ffast is set, and those slow paths proper, which the
 * fast hooks fall back to. */
void ct_enter_slow_full(uintptr_t fn, uintptr_t site, uintptr_t sp) CT_COLD;
void ct_exit_slow_full(uintptr_t fn, uintptr_t site) CT_COLD;

/* For the tests (filter.c): the slow decision for fn at level d under
 * scope sc with the rules in force, the triggers' state being trig_on and
 * fin: FAST_WRITE, FAST_DROP with *reason, or FAST_ASK for anything else
 * (a frame waiting on its duration).  *flags is ct_filter_flags for that
 * state.  Nothing of the process's state changes. */
int ct_filter_slow_decision(uintptr_t fn, uint32_t d, const struct fscope *sc,
                            int trig_on, int fin, uint32_t *flags,
                            uint32_t *reason);

/* For the tests (filter.c): functions named as if an object built for
 * tracing had them, for the rules in force. */
void ct_filter_add_names(const char *const *names, const uintptr_t *addrs,
                         size_t n);

#pragma GCC visibility pop

#endif
