/*
 * Record-time filters without the slow path (filter_state.h): while rules
 * are in force every hook comes to thread.c's slow path, which hands the
 * event here first.  A call whose fate one byte of its function's class
 * and the thread's scope decide is written, or left out and counted, here
 * at about the hot path's cost; anything else (an include or trigger
 * function, a frame waiting on its duration, a full block, re-entry, the
 * CLOCK_MONOTONIC clock) goes on to the slow path proper.
 *
 * Frames entered here are the slow path's frames too: on the shadow
 * stack, hidden ones with their bit in t->hidden, and marked FS_FAST so
 * that their end (here, or in the slow path after a longjmp) restores no
 * scope.  The same rules as hot.c's: busy set right after the one test
 * that lets the event through, no lock, no system call, errno untouched.
 *
 * The class tables are built when rules are installed and updated when
 * objects are scanned (dlopen, new library-call stubs), from the same
 * hash the slow path reads, so both say the same of every function.  A
 * set of tables is never freed: a thread may be reading it.
 */
#include <link.h>
#include <sys/mman.h>

#include "preload/filters/filter_state.h"

struct ct_ffast *ct_ffast;
struct ct_fskips *ct_fskips;
uint32_t ct_filter_flags;

/* ------------------------------------------------------------- tables */

static int capable(const struct ct_fspec *sp)
{
    return ct_fspec_active(sp) && !sp->min_ns &&
           !(sp->have_acts & (CT_FACT_CALLER | CT_FACT_BACKTRACE));
}

static void *map_zero(size_t len)
{
    void *m = mmap(NULL, len, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    return m == MAP_FAILED ? NULL : m;
}

struct adding {
    struct ct_ffast *ff;
    uint32_t n;            /* objects known, published or not            */
};

static int known(const struct ct_ffast *ff, uint32_t n, uintptr_t lo,
                 uintptr_t hi)
{
    for (uint32_t i = 0; i < n; i++)
        if (ff->obj[i].lo == lo && ff->obj[i].hi == hi)
            return 1;
    return 0;
}

/* Every executable segment of a loaded object gets a table of its own. */
static int add_object(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct adding *a = arg;
    for (uint16_t i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X) || !ph->p_memsz)
            continue;
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        uintptr_t hi = lo + ph->p_memsz;
        if (a->n >= CT_FFAST_OBJS || known(a->ff, a->n, lo, hi))
            continue;
        uint8_t *cls = map_zero(hi - lo);
        if (!cls)
            continue;
        a->ff->obj[a->n++] = (struct ct_ffobj){lo, hi, cls};
    }
    return 0;
}

/* Rules that only exclude: an excluded call's fate needs no scope and no
 * level, so the skip table may settle it. */
static int only_excludes(const struct ct_fspec *sp)
{
    if (sp->have_include || sp->have_on || sp->have_acts || sp->depth ||
        sp->min_ns)
        return 0;
    for (uint32_t i = 0; i < sp->nrules; i++)
        if (ct_frule_is_trigger(&sp->rules[i]))
            return 0;
    return 1;
}

/* fn's slot in the skip table for class c.  A slot taken by another
 * function leaves fn to the class table.  A function whose class changes
 * while it has a slot (a second name of it scanned later) ends the
 * table's use: threads may hold counts made under that slot. */
static void put_skip(struct ct_ffast *ff, uintptr_t fn, uint8_t c)
{
    struct ct_fskips *k = ff->skips;
    size_t i = ct_fskip_index(fn);
    int excluded = c != FC_PLAIN && c < FC_INC;
    uint32_t reason = CT_DROP_EXCLUDED | (uint32_t)(c - 1) << 3;
    if (k->fn[i] == fn) {
        if (!excluded || k->reason[i] != reason)
            ff->skips = NULL;
        return;
    }
    if (!excluded)
        return;
    if (k->fn[i]) {
        /* fn goes the class table's way: a miss no longer says "kept" */
        __atomic_store_n(&k->complete, 0, __ATOMIC_RELAXED);
        return;
    }
    k->reason[i] = reason;
    __atomic_store_n(&k->fn[i], fn, __ATOMIC_RELEASE);
    __atomic_store_n(&k->filled, k->filled + 1, __ATOMIC_RELAXED);
}

static void put_class(void *arg, uintptr_t fn, uint32_t v)
{
    const struct adding *a = arg;
    uint8_t c = ct_ffast_class(v);
    for (uint32_t i = 0; i < a->n; i++)
        if (fn - a->ff->obj[i].lo < a->ff->obj[i].hi - a->ff->obj[i].lo)
            __atomic_store_n(&a->ff->obj[i].cls[fn - a->ff->obj[i].lo], c,
                             __ATOMIC_RELAXED);
    if (a->ff->skips)
        put_skip(a->ff, fn, c);
}

struct ct_ffast *ct_ffast_update(struct ct_ffast *ff, const struct ct_fspec *sp,
                                 uint64_t gen,
                                 void (*each)(void *arg,
                                              void (*fn)(void *, uintptr_t,
                                                         uint32_t),
                                              void *fnarg),
                                 void *arg)
{
    if (!capable(sp))
        return NULL;
    if (!ff || ff->gen != gen) {
        ff = map_zero(sizeof *ff);
        if (!ff)
            return NULL;
        ff->gen = gen;
        ff->have_include = (uint32_t)sp->have_include;
        ff->depth = sp->depth;
        if (only_excludes(sp) && (ff->skips = map_zero(sizeof *ff->skips)))
            ff->skips->complete = 1;
    }
    struct adding a = {ff, ff->nobj};
    dl_iterate_phdr(add_object, &a);
    /* Classes of the objects known before change in place (a function
     * named again by a second name); the new objects' are complete
     * before they are published. */
    each(arg, put_class, &a);
    __atomic_store_n(&ff->nobj, a.n, __ATOMIC_RELEASE);
    return ff;
}

/* ---------------------------------------------------------- the hooks */

/* Busy cleared and the stop bits kept, in one store (as hot.c's
 * hook_done), with CT_STOP_HIDDEN as the hidden frames now say. */
static inline __attribute__((always_inline)) void
fast_done(struct ct_thread *t)
{
    uint64_t stop = t->stop & ~(uint32_t)CT_STOP_HIDDEN;
    if (t->hidden_count)
        stop |= CT_STOP_HIDDEN;
    ct_signal_fence();
    t->gate = stop;
}

/* Stop bits under which the class table's way may run: rules in force,
 * and hidden frames (which it keeps itself). */
#define FAST_STOP ((uint64_t)(CT_STOP_FILTER | CT_STOP_HIDDEN))

/* Whether thread t may take the class table's way now: no stop bits but
 * those, not busy, and its `expect` is the global word.  The hooks ask
 * ct_ffast_hook_gate instead, with the word in hand. */
static inline __attribute__((always_inline)) int
fast_gate(const struct ct_thread *t)
{
    uint64_t w = __atomic_load_n(&ct_global_word, __ATOMIC_RELAXED);
    return ((t->gate & ~FAST_STOP) | (t->expect ^ w)) == 0;
}

/* A frame left out: hidden on the shadow stack, its call counted. */
static inline __attribute__((always_inline)) void
push_hidden(struct ct_thread *t, struct fthread *f, uintptr_t fn,
            uintptr_t sp, uint32_t d, uint64_t *count)
{
    t->stack[d] = fn;
    t->sp_not[d + 1] = ~sp;
    t->hidden[d / 64] |= 1ull << (d % 64);
    t->hidden_count++;
    f->state[d] = FS_FAST;
    t->depth = d + 1;
    (*count)++;
}

/* A call written, as hot.c writes it.  Out of line (a tail call), so
 * the encoding's registers cost the drop path nothing.  The depth and
 * the thread's filter state are read again after the encoding, as
 * hot.c's enter_record does, rather than kept in registers through it,
 * which would cost saved registers. */
static __attribute__((noinline)) void
write_entry(struct ct_thread *t, uintptr_t fn, uintptr_t site, uintptr_t sp)
{
    uint64_t now = ct_read_tsc();
    uint64_t prev = t->prev_ticks;
    if (ct_unlikely(now < prev))
        now = prev;
    uint8_t *p = ct_enc_entry(t->pos, now - prev, fn, t->prev_fn, site,
                              t->prev_site);
    uint32_t d = *(volatile uint32_t *)&t->depth;
    struct fthread *f = t->filter;
    t->stack[d] = fn;
    t->sp_not[d + 1] = ~sp;
    f->state[d] = FS_FAST;
    t->depth = d + 1;
    t->prev_ticks = now;
    t->prev_fn = fn;
    t->prev_site = site;
    t->pos = p;
    fast_done(t);
}

/* The exit of a skipped call above frames the hooks' shadow stack does
 * not hold (t->depth > CT_HOT_DEPTH), which ct_fskip_exit leaves here: the top frame is looked up
 * where the deeper levels are kept.  Past them no frame says which
 * function it is, and a skipped function has none (its calls there are
 * skipped too). */
static int skip_exit_deep(const struct ct_thread *t, uintptr_t fn)
{
    const struct ct_fskips *k = t->skip_tab;  /* as ct_fskip_exit */
    if (!k || !ct_fskip_holds(k, fn) || t->busy)
        return 0;
    uint32_t d = t->depth;
    return d > ct_frames_kept(t) || ct_frame_fn(t, d - 1) != fn;
}

/* A call the class table leaves out for reason: hidden on the shadow
 * stack, its call counted.  Out of line (a tail call, the thread busy),
 * so that the path of a call kept holds few values at once and saves no
 * registers.  A drop whose count is not where the first probe looks is
 * the slow path's. */
static __attribute__((noinline)) void
drop_entry(struct ct_thread *t, uintptr_t fn, uintptr_t site, uintptr_t sp,
           uint32_t reason)
{
    struct fthread *f = t->filter;
    uint64_t *count = ct_fdrop_slot(f, fn, reason);
    if (ct_unlikely(!count)) {
        t->busy = 0;
        ct_enter_slow_full(fn, site, sp);
        return;
    }
    push_hidden(t, f, fn, sp, t->depth, count);
    fast_done(t);
}

/* The class table's way: a byte per function and the thread's scope
 * (the hooks looked at the skip table already, hot.c).  The slow path's
 * entry points come by ct_filter_fast_enter and _exit, which test the
 * gate; the hooks, which test it with the word in hand
 * (ct_ffast_hook_gate), straight here. */
void ct_filter_fast_enter_gated(struct ct_thread *t, uintptr_t fn,
                                uintptr_t site, uintptr_t sp)
{
    const struct ct_ffast *ff = __atomic_load_n(&ct_ffast, __ATOMIC_ACQUIRE);
    if (ct_unlikely(!ff))
        goto slow;
    t->busy = 1;
    ct_signal_fence();
    /* The function's class first, while few values are live. */
    uint8_t c = ct_ffast_lookup(ff, fn);
    struct fthread *f = t->filter;
    uint32_t d = t->depth;
    /* As hot.c: a caller's stack pointer above the top frame's means
     * frames have gone; the slow path ends them. */
    if (ct_unlikely(!f || f->gen != ff->gen || d >= CT_HOT_DEPTH ||
                    t->sp_not[d] > ~sp))
        goto unbusy;
    uint32_t reason;
    int how = ct_ffast_decide(ff, c, d, &f->sc, f->npending,
                              __atomic_load_n(&ct_filter_flags,
                                              __ATOMIC_RELAXED),
                              &reason);
    if (how == FAST_DROP) {
        drop_entry(t, fn, site, sp, reason);
        return;
    }
    if (how != FAST_WRITE || t->pos >= t->end)
        goto unbusy;
    write_entry(t, fn, site, sp);
    return;
unbusy:
    t->busy = 0;
slow:
    ct_enter_slow_full(fn, site, sp);
}

void ct_filter_fast_exit_gated(struct ct_thread *t, uintptr_t fn,
                               uintptr_t site)
{
    if (ct_unlikely(t->depth > CT_HOT_DEPTH) && skip_exit_deep(t, fn))
        return;
    t->busy = 1;
    ct_signal_fence();
    struct fthread *f = t->filter;
    uint32_t d = t->depth - 1;
    /* Only the top frame, entered here: anything else (a longjmp's
     * leftovers, a frame of the slow path with a scope to restore) is
     * the slow path's. */
    if (ct_unlikely(!f || d >= CT_HOT_DEPTH || t->stack[d] != fn ||
                    f->state[d] != FS_FAST))
        goto unbusy;
    uint64_t bit = 1ull << (d % 64);
    if (t->hidden[d / 64] & bit) {
        t->hidden[d / 64] &= ~bit;
        t->hidden_count--;
        t->depth = d;
        fast_done(t);
        return;
    }
    uint8_t *p = t->pos;
    if (ct_unlikely(p >= t->end))
        goto unbusy;
    uint64_t now = ct_read_tsc();
    uint64_t prev = t->prev_ticks;
    if (ct_unlikely(now < prev))
        now = prev;
    t->pos = ct_enc_exit(p, now - prev);
    t->depth = d;
    t->prev_ticks = now;
    fast_done(t);
    return;
unbusy:
    t->busy = 0;
    ct_exit_slow_full(fn, site);
}

void ct_filter_fast_enter(struct ct_thread *t, uintptr_t fn, uintptr_t site,
                          uintptr_t sp)
{
    if (ct_likely(t && fast_gate(t)))
        ct_filter_fast_enter_gated(t, fn, site, sp);
    else
        ct_enter_slow_full(fn, site, sp);
}

void ct_filter_fast_exit(struct ct_thread *t, uintptr_t fn, uintptr_t site)
{
    if (t && t->depth > CT_HOT_DEPTH && skip_exit_deep(t, fn))
        return;
    if (ct_likely(t && fast_gate(t)))
        ct_filter_fast_exit_gated(t, fn, site);
    else
        ct_exit_slow_full(fn, site);
}
