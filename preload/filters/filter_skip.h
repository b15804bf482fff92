/*
 * The skip table: a call that record-time rules leave out, settled in the
 * hooks' own branch for it (hot.c) with one look at a table, without the
 * hops to the slow path.  filter_fast.c builds the table; hot.c and
 * filter_fast.c read it.
 *
 * It is in force only under rules that do nothing but exclude functions
 * (no include, trigger, depth or duration: ct_fskips is NULL otherwise).
 * There an excluded function's call is left out whatever the thread's
 * scope, and its frame matters to no decision, as none looks at levels.
 * So the call is only counted, per thread and slot, and the counts go
 * into the trace beside the slow path's; nothing goes on the shadow
 * stack, so its exit has nothing to undo.  While every excluded function
 * has its slot, a function without one is kept, and the hook writes its
 * call as its fast path does.
 *
 * The hooks read the table their thread took (t->skip_tab, set by the
 * slow path's ct_filter_enter) and trust it while the thread's `expect`
 * is the global word: a table ends only with a new generation of the
 * word (filter.c's fast_update, and each install), which sends every
 * thread to its slow path, where ct_filter_sync_skips lets it go.  So
 * the hooks look neither at ct_fskips nor at whether the two agree.
 *
 * One slot per function, found from its address; a function whose slot
 * another took goes the class table's way (filter_fast.c), which gives the
 * same answer, and from then on so does every kept call.  A slot's fn is
 * stored last (release), after what it says, and never changes after:
 * counts made under a slot always name its function.
 */
#ifndef CT_FILTER_SKIP_H
#define CT_FILTER_SKIP_H
#include <stdint.h>
#include "preload/tracer.h"

#pragma GCC visibility push(hidden)

#define CT_FSKIP_SLOTS 4096u
/* The functions apart from their reasons, so that the hooks' one look is
 * at a word a scaled index reaches. */
struct ct_fskips {
    uintptr_t fn[CT_FSKIP_SLOTS];     /* 0: empty                         */
    uint32_t reason[CT_FSKIP_SLOTS];  /* CT_DROP_EXCLUDED | rule << 3     */
    uint32_t filled;        /* slots taken                                */
    uint32_t complete;      /* every excluded function has its slot       */
};
/* The table of the rules in force, or NULL.  A table is never freed: a
 * thread may be reading it. */
extern struct ct_fskips *ct_fskips;

/* Fibonacci hashing, the product's top 12 bits: three instructions in
 * the hook where two shifts and an xor took six, and every bit of the
 * address has a say (functions of two objects at the same offset get
 * slots apart). */
static inline size_t ct_fskip_index(uintptr_t fn)
{
    return (size_t)(((uint64_t)fn * 0x9e3779b97f4a7c15ull) >> 52);
}
_Static_assert(CT_FSKIP_SLOTS == 1u << 12, "the hash gives 12 bits");

/* Whether table k holds fn (its slot names it). */
static inline int ct_fskip_holds(const struct ct_fskips *k, uintptr_t fn)
{
    return __atomic_load_n(&k->fn[ct_fskip_index(fn)], __ATOMIC_ACQUIRE) ==
           fn;
}

/* Stop bits under which a call may be skipped: rules in force, hidden
 * frames (which a skipped call leaves as they are), and the
 * CLOCK_MONOTONIC clock (which it does not read). */
#define CT_FSKIP_STOP                                                    \
    ((uint64_t)(CT_STOP_FILTER | CT_STOP_HIDDEN | CT_STOP_CLOCK))

/* What the hooks do with an event under the skip table. */
#define CT_FSKIP_ASK  0     /* go on to the slow path                    */
#define CT_FSKIP_DONE 1     /* left out and counted: nothing more        */
#define CT_FSKIP_KEEP (-1)  /* kept: the hook writes it itself, keeping
                               CT_STOP_FILTER in the thread's stop word  */

/* filter_state.h's FS_FAST: a frame that changed no scope. */
#define CT_FS_FAST 3u

/*
 * One more call left out, in one instruction: a signal handler runs
 * before it or after it, never between a read and a write of the count,
 * so a flush of the counts by a handler's slow path (which writes them
 * into the trace and zeroes them) can neither lose this call nor see it
 * twice.  The exiting thread's reader (ct_filter_drops_into) may read the
 * word from another thread: an aligned 8-byte store, never torn.
 */
static inline __attribute__((always_inline)) void ct_fskip_count(uint64_t *c)
{
#if defined(__x86_64__)
    __asm__ volatile("addq $1, %0" : "+m"(*c));
#else
    __atomic_fetch_add(c, 1, __ATOMIC_RELAXED);
#endif
}

/*
 * The entry of fn on thread t (global word w; ign: stop bits the calling
 * hook lets through).  A function with a slot is left out: counted in
 * t->skip_counts, a count per slot of the table t->skip_tab (filter.c sets
 * both when the thread comes under that table's rules, and writes the
 * counts into the trace with the slow path's own), with one instruction
 * (ct_fskip_count), so no busy flag is needed around it.  That case comes
 * first, with as few loads as it can: it is the one a run makes at every
 * call of an excluded function.  Any other function is kept when the
 * table holds every excluded one: its frame marked as the fast path's
 * (t->skip_state), so that no path ends it as a frame with a scope to
 * restore.
 */
static inline __attribute__((always_inline)) int
ct_fskip_enter(struct ct_thread *t, uintptr_t fn, uint64_t w, uint32_t ign)
{
    const struct ct_fskips *k = t->skip_tab;
    uint64_t gate = t->gate;
    if (!k || t->expect != w)
        return CT_FSKIP_ASK;
    size_t i = ct_fskip_index(fn);
    if (ct_likely(ct_fskip_holds(k, fn))) {
        if ((gate & ~CT_FSKIP_STOP) != 0)
            return CT_FSKIP_ASK;
        ct_fskip_count(&t->skip_counts[i]);
        return CT_FSKIP_DONE;
    }
    uint32_t d = t->depth;
    if ((gate & ~(uint64_t)(CT_STOP_FILTER | ign)) != 0 ||
        !__atomic_load_n(&k->complete, __ATOMIC_RELAXED) ||
        d >= CT_HOT_DEPTH)
        return CT_FSKIP_ASK;
    t->skip_state[d] = CT_FS_FAST;
    return CT_FSKIP_KEEP;
}

/*
 * The exit of fn on thread t.  Of a function with a slot: nothing to
 * undo, unless the top frame is fn's own (left out the slow path's way;
 * no frame of fn entered before the rules is open while the thread has
 * the table, filter.c's holds_open_frame), which the slow path ends, or
 * a handler interrupted the tracer (busy), whose events the slow path
 * drops and counts, entries and exits alike.  Frames deeper than the
 * hooks' shadow stack are filter_fast.c's to look at.  Of any other function, when the
 * table holds every excluded one: kept, as ct_fskip_enter.
 */
static inline __attribute__((always_inline)) int
ct_fskip_exit(const struct ct_thread *t, uintptr_t fn, uint64_t w,
              uint32_t ign)
{
    const struct ct_fskips *k = t->skip_tab;
    if (!k)
        return CT_FSKIP_ASK;
    uint32_t d = t->depth;
    if (!ct_fskip_holds(k, fn)) {
        if (((t->gate & ~(uint64_t)(CT_STOP_FILTER | ign)) |
             (t->expect ^ w)) != 0 ||
            !__atomic_load_n(&k->complete, __ATOMIC_RELAXED))
            return CT_FSKIP_ASK;
        return CT_FSKIP_KEEP;
    }
    return !t->busy && d <= CT_HOT_DEPTH && !(d && t->stack[d - 1] == fn)
               ? CT_FSKIP_DONE
               : CT_FSKIP_ASK;
}

/* Whether the hooks' thread t goes the class table's way under global
 * word w: rules in force (CT_STOP_FILTER), hidden frames or not, no other
 * stop bit, not busy, and its `expect` is w; one test of the gate. */
static inline __attribute__((always_inline)) int
ct_ffast_hook_gate(const struct ct_thread *t, uint64_t w)
{
    return (((t->gate & ~(uint64_t)CT_STOP_HIDDEN) ^ CT_STOP_FILTER) |
            (t->expect ^ w)) == 0;
}

/* The filters' class table (filter_fast.c), which the hooks go to when
 * the skip table cannot settle a call under rules in force; it goes on to
 * the slow path itself.  The _gated ones for a thread t that passed
 * ct_ffast_hook_gate (the hooks, which have the word in hand); the others
 * test the gate themselves, for any t (NULL: none yet). */
void ct_filter_fast_enter_gated(struct ct_thread *t, uintptr_t fn,
                                uintptr_t site, uintptr_t sp);
void ct_filter_fast_exit_gated(struct ct_thread *t, uintptr_t fn,
                               uintptr_t site);
void ct_filter_fast_enter(struct ct_thread *t, uintptr_t fn, uintptr_t site,
                          uintptr_t sp);
void ct_filter_fast_exit(struct ct_thread *t, uintptr_t fn, uintptr_t site);

#pragma GCC visibility pop
#endif
