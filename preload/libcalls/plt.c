/*
 * Library calls through the PLT (CALLTRACE_LIBCALLS): the run time.
 *
 * At start and after each dlopen, every JUMP_SLOT relocation of an object
 * that imports __cyg_profile_func_enter (every object, in nested mode)
 * gets its GOT slot pointed at a stub of its own (plt_tramp.S;
 * plt_patch.c does the patching, plt_slots.h holds the slots).  The stub
 * calls ct_plt_enter, which writes an ENTRY record whose function is the
 * address of the object's PLT entry for that symbol (so the analyzer names
 * it `name@plt` from the object's dynamic symbols) and whose site is the
 * return address, then swaps the return address for ct_plt_return and
 * jumps to the real target.  ct_plt_return writes the EXIT and goes back.
 *
 * Records go through the hooks themselves (ct_enter_at, the enter hook
 * with the PLT call's stack pointer, and __cyg_profile_func_exit; fast
 * path and slow path), so they nest with the instrumented
 * calls in the thread's stream and obey tracing off, hidden frames, lost
 * counts and re-entry.
 *
 * Each thread keeps its open library calls (real return address, where it
 * was stored, the shadow-stack depth) on a stack of its own.  A frame left
 * without returning (longjmp, an exception caught above it) is found
 * stale when a later library call stores its return address at or above
 * the old one, or when the trampoline returns to a frame further down.
 *
 * Lazy binding: the first call jumps to the PLT's resolver entry, which
 * writes the resolved address into the GOT slot; the trampoline puts the
 * stub back when that call returns.
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "preload/args/args.h"
#include "preload/args/plan.h"
#include "preload/base/budget.h"
#include "preload/base/self_read.h"
#include "preload/patch/patch.h"
#include "preload/libcalls/plt.h"
#include "preload/libcalls/plt_got.h"
#include "preload/libcalls/plt_slots.h"
#include "preload/base/scratch.h"
#include "preload/tracer.h"


#define MAX_PENDING 256

/* lazy is written under the pending lock and read by every call without
 * it: atomic, relaxed, for the quick look that decides to take the lock. */
static uint32_t lazy_of(uint32_t slot);

struct plt_frame {
    uintptr_t ret;        /* the real return address; 0 for a tail call    */
    uintptr_t *retp;      /* where it is on the stack                      */
    uint32_t slot;
    uint32_t depth;       /* shadow-stack depth before the call            */
    uint32_t armed;       /* *retp holds ct_plt_return                     */
};

/* Frames closed as gone, kept in case one was not: a coroutine switch
 * (swapcontext, a hand-made stack switch) looks like a longjmp, and its
 * library calls still return through the trampoline later. */
#define GRAVEYARD 64

/* Open frames in segments: the first within the thread's state, the
 * others mapped as the calls nest deeper and kept till the thread ends,
 * so a frame never moves (a signal handler may be reading it).  The
 * whole stack in one mapping took 36 KiB of address space per thread. */
#define FRAME_SEG 128u
#define FRAME_SEGS (CT_PLT_MAX_FRAMES / FRAME_SEG)

struct plt_thread {
    uint32_t n;
    uint32_t in_tracer;   /* our own code is running: calls pass through   */
    uint32_t buried;      /* next graveyard slot                          */
    struct plt_frame graveyard[GRAVEYARD];
    struct plt_frame *seg[FRAME_SEGS];   /* seg[0] is first               */
    struct plt_frame first[FRAME_SEG];
};

#define FRAME_SEG_BYTES (FRAME_SEG * sizeof(struct plt_frame))

/* Frame i of the thread's open library calls, i below the mapped ones. */
static inline struct plt_frame *frame_at(const struct plt_thread *pt,
                                         uint32_t i)
{
    return &pt->seg[i / FRAME_SEG][i % FRAME_SEG];
}

/* Room for frame i: 0, or -1 past the most or without memory. */
static int frame_room(struct plt_thread *pt, uint32_t i)
{
    if (i >= CT_PLT_MAX_FRAMES)
        return -1;
    if (pt->seg[i / FRAME_SEG])
        return 0;
    if (!ct_budget_fit(FRAME_SEG_BYTES, FRAME_SEG_BYTES))
        return -1;
    struct plt_frame *m = ct_scratch_alloc(FRAME_SEG_BYTES);
    if (!m)
        return -1;
    ct_budget_add(FRAME_SEG_BYTES);
    pt->seg[i / FRAME_SEG] = m;
    return 0;
}


/* The slot table (plt_slots.h). */
struct slot_chunk *plt_slot_chunks[CT_PLT_MAX_SLOTS / SLOT_CHUNK];
uintptr_t *ct_plt_direct;
uint32_t plt_nslots;

/* Maps the chunk of slot i if it is not yet: 0, or -1 without memory. */
int plt_slot_chunk_get(uint32_t i)
{
    struct slot_chunk **c = &plt_slot_chunks[i / SLOT_CHUNK];
    if (!ct_plt_direct)
        __atomic_store_n(&ct_plt_direct,
                         ct_scratch_alloc(CT_PLT_MAX_SLOTS * sizeof(uintptr_t)),
                         __ATOMIC_RELEASE);
    if (!ct_plt_direct)
        return -1;
    if (!*c)
        __atomic_store_n(c, ct_scratch_alloc(sizeof **c), __ATOMIC_RELEASE);
    return *c ? 0 : -1;
}
int plt_mode;
int plt_slots_full_reported;
pthread_mutex_t plt_patch_lock = PTHREAD_MUTEX_INITIALIZER;

/* Slots whose first call went to the lazy resolver, which writes the
 * resolved address over our stub.  Checked at every library call (any
 * thread) until the stub is back: the call itself may never return
 * through the trampoline (an exception, a longjmp). */
static uint32_t pending[MAX_PENDING];
static uint32_t npending;
static int pending_lock;

static __thread struct plt_thread *plt_self
    __attribute__((tls_model("initial-exec")));
pthread_key_t plt_key;
int plt_key_ok;

/* ------------------------------------------------------- per thread */

void plt_thread_free(void *arg)
{
    struct plt_thread *pt = arg;
    if (!pt || pt != plt_self || pt->in_tracer)
        return;
    plt_self = NULL;
    for (uint32_t k = 1; k < FRAME_SEGS && pt->seg[k]; k++) {
        ct_scratch_free(pt->seg[k], FRAME_SEG_BYTES);
        ct_budget_add(-(int64_t)FRAME_SEG_BYTES);
    }
    munmap(pt, sizeof *pt);
    ct_budget_add(-(int64_t)sizeof *pt);
}

/* A library call made while its thread has no plt state (the address
 * space limit left no room for one): its call and return are counted
 * lost where tracing is on. */
static void count_unrecorded_call(void)
{
    struct ct_thread *t = ct_self;
    if (ct_proc.started == 2 &&
        !(__atomic_load_n(&ct_global_word, __ATOMIC_RELAXED) & 1) &&
        (!t || (!(t->flags & CT_T_DEAD) && !t->region && !t->hidden_count)))
        ct_count_lost_global(2);
}

static struct plt_thread *plt_thread_get(void)
{
    struct plt_thread *pt = plt_self;
    if (ct_likely(pt != NULL))
        return pt;
    if (!ct_budget_retry_ok() || !ct_budget_fit(sizeof *pt, sizeof *pt)) {
        ct_budget_retry_later();
        ct_budget_refused();
        return NULL;
    }
    int saved = errno;
    void *m = mmap(NULL, sizeof *pt, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    errno = saved;
    if (m == MAP_FAILED)
        return NULL;
    ct_budget_add(sizeof *pt);
    pt = m;
    pt->seg[0] = pt->first;
    plt_self = pt;
    if (plt_key_ok)
        pthread_setspecific(plt_key, pt);
    return pt;
}


/*
 * Writes exits until the shadow stack is back at depth, if the frame
 * pushed there is still fn (an instrumented exit further down may have
 * closed it already, after a longjmp or an exception).
 */
static void pop_shadow_to(uint32_t depth, uintptr_t fn)
{
    struct ct_thread *t = ct_self;
    if (!t || t->depth <= depth)
        return;
    if (depth < ct_frames_kept(t) && ct_frame_fn(t, depth) != fn)
        return;
    while (t->depth > depth) {
        uint32_t d = t->depth;
        uintptr_t top = d <= ct_frames_kept(t) ? ct_frame_fn(t, d - 1) : 0;
        __cyg_profile_func_exit((void *)top, NULL);
        if (t->depth >= d)
            break;  /* re-entry: counted as lost by the slow path */
    }
}

/* Closes a frame that is not expected to see its trampoline. */
static void close_frame(struct plt_thread *pt, const struct plt_frame *f)
{
    pop_shadow_to(f->depth, SLOT(f->slot).fn);
    if (f->armed)
        pt->graveyard[pt->buried++ % GRAVEYARD] = *f;
}

/* The real return address of a closed frame the trampoline came back to
 * after all, or 0. */
static uintptr_t exhume(struct plt_thread *pt, uintptr_t *retp)
{
    for (uint32_t k = 0; k < GRAVEYARD; k++) {
        struct plt_frame *g = &pt->graveyard[(pt->buried - 1 - k) % GRAVEYARD];
        if (g->retp == retp && g->ret) {
            g->retp = NULL;
            return g->ret;
        }
    }
    return 0;
}

/*
 * Is a frame whose return address slot is at or below sp (so, by the
 * stack's order, gone) really gone?  Only if both are on the same stack: a
 * signal handler on an alternate stack placed above the thread's stack
 * must not close the frames it interrupted.  Asked only when a frame looks
 * gone, which is rare (after a longjmp or an exception).
 */
static int same_stack(uintptr_t frame_slot, uintptr_t sp)
{
    stack_t ss;
    int saved = errno;
    int rc = sigaltstack(NULL, &ss);
    errno = saved;
    if (rc != 0 || !(ss.ss_flags & SS_ONSTACK))
        return 1;
    uintptr_t lo = (uintptr_t)ss.ss_sp, hi = lo + ss.ss_size;
    return (sp >= lo && sp < hi) == (frame_slot >= lo && frame_slot < hi);
}

/* Closes the frames whose return address slot is at or below sp. */
static void close_stale(struct plt_thread *pt, uintptr_t sp)
{
    while (pt->n > 0) {
        struct plt_frame *f = frame_at(pt, pt->n - 1);
        if ((uintptr_t)f->retp > sp || !same_stack((uintptr_t)f->retp, sp))
            return;
        close_frame(pt, f);
        pt->n--;
    }
}

/* ------------------------------------------------------- the stubs' C */

static void lock_pending(void)
{
    while (__atomic_exchange_n(&pending_lock, 1, __ATOMIC_ACQUIRE))
        __builtin_ia32_pause();
}

static void unlock_pending(void)
{
    __atomic_store_n(&pending_lock, 0, __ATOMIC_RELEASE);
}

static void repatch(uint32_t slot);


static uint32_t lazy_of(uint32_t slot)
{
    return __atomic_load_n(&SLOT(slot).lazy, __ATOMIC_RELAXED);
}

void plt_set_lazy(uint32_t slot, uint32_t v)
{
    __atomic_store_n(&SLOT(slot).lazy, v, __ATOMIC_RELAXED);
}

void plt_publish(uint32_t slot)
{
    const struct plt_slot *s = &SLOT(slot);
    uintptr_t direct = lazy_of(slot) == LAZY_NO ? __atomic_load_n(&s->target, __ATOMIC_RELAXED) : 0;
    __atomic_store_n(&ct_plt_direct[slot], direct, __ATOMIC_RELEASE);
}


/* A call through a slot the lazy resolver may rewrite. */
static void add_pending(uint32_t slot)
{
    lock_pending();
    if (lazy_of(slot) == LAZY_MAYBE && npending < MAX_PENDING) {
        plt_set_lazy(slot, LAZY_PENDING);
        pending[npending] = slot;
        __atomic_store_n(&npending, npending + 1, __ATOMIC_RELEASE);
    }
    unlock_pending();
}

/* Puts our stub back where the resolver wrote; finished is the slot whose
 * call just returned, whose resolution is over either way. */
static void sweep_pending(uint32_t finished)
{
    lock_pending();
    for (uint32_t i = 0; i < npending;) {
        uint32_t slot = pending[i];
        uintptr_t now = __atomic_load_n(SLOT(slot).got, __ATOMIC_RELAXED);
        if (now != plt_stub_addr(slot) || slot == finished) {
            repatch(slot);
            plt_set_lazy(slot, LAZY_NO);
            plt_publish(slot);
            pending[i] = pending[npending - 1];
            __atomic_store_n(&npending, npending - 1, __ATOMIC_RELEASE);
        } else {
            i++;
        }
    }
    unlock_pending();
}

/* Takes slot off the pending list (under the pending lock). */
static void drop_pending(uint32_t slot)
{
    for (uint32_t i = 0; i < npending; i++) {
        if (pending[i] != slot)
            continue;
        pending[i] = pending[npending - 1];
        __atomic_store_n(&npending, npending - 1, __ATOMIC_RELEASE);
        return;
    }
}

/*
 * Lazy binding without a gap.  Left to the loader, the first call through
 * a lazy slot goes to its resolver, which writes the function's address
 * over our stub and runs the function: until that call returns, every
 * call through the slot (a comparator calling qsort inside qsort's first
 * call, any thread's call meanwhile) went past the tracer, neither
 * recorded nor counted.  So the tracer binds the slot itself before the
 * call: the loader's own look-up (_dl_fixup, which its resolver calls:
 * same scope, versions, IFUNCs, audit-free) writes the slot, the stub goes
 * back at once and the call goes to the function found.  Only the few
 * instructions between the loader's write and ours remain, in which
 * another thread's first call through the same slot could pass.
 */
typedef uintptr_t (*fixup_fn)(void *map, uint32_t reloc);
static fixup_fn loader_fixup;

/* glibc's x86-64 resolvers (_dl_runtime_resolve_fxsave, _xsave, _xsavec)
 * load the two words the PLT pushed and call _dl_fixup:
 *     mov 0x10(%rbx),%rsi; mov 0x8(%rbx),%rdi; call rel32
 * Found by that sequence in the resolver's first bytes; any other
 * resolver (LD_AUDIT's _dl_runtime_profile, another libc) leaves the
 * slot to the loader as before (the pending list). */
static fixup_fn find_fixup(uintptr_t resolver)
{
    static const uint8_t seq[] = {0x48, 0x8b, 0x73, 0x10, 0x48,
                                  0x8b, 0x7b, 0x08, 0xe8};
    const uint8_t *p = (const uint8_t *)resolver;
    for (size_t i = 0; i < 160; i++) {
        if (memcmp(p + i, seq, sizeof seq) != 0)
            continue;
        int32_t rel;
        memcpy(&rel, p + i + sizeof seq, sizeof rel);
        return (fixup_fn)(uintptr_t)(p + i + sizeof seq + 4 + (intptr_t)rel);
    }
    return NULL;
}

/* The link map for slots of an object whose GOT is pltgot, when the
 * tracer can bind them itself; else NULL. */
void *plt_binding_map(const uintptr_t *pltgot)
{
    static uintptr_t resolver;
    static fixup_fn found;
    if (!pltgot || !pltgot[1] || !pltgot[2])
        return NULL;  /* not lazily bound (-z now, LD_BIND_NOW) */
    if (pltgot[2] != resolver) {
        resolver = pltgot[2];
        found = find_fixup(resolver);
    }
    if (!found || (loader_fixup && found != loader_fixup))
        return NULL;
    __atomic_store_n(&loader_fixup, found, __ATOMIC_RELEASE);
    return (void *)pltgot[1];
}

static void drop_pending(uint32_t slot);

/* Binds a lazy slot before its call (above) and returns the function.
 * The pending lock is only tried: its holder may be the code a signal
 * handler interrupted, or the parent of a CLONE_VM child sharing its TLS;
 * then a later call settles the slot's state (and binds it again). */
static uintptr_t bind_lazy(uint32_t slot)
{
    struct plt_slot *s = &SLOT(slot);
    int saved = errno;
    uintptr_t fn = loader_fixup(s->map, s->reloc);
    errno = saved;
    /* Every writer of target and of the slot writes fn or the stub. */
    __atomic_store_n(&s->target, fn, __ATOMIC_RELEASE);
    __atomic_store_n(s->got, plt_stub_addr(slot), __ATOMIC_RELEASE);
    if (__atomic_exchange_n(&pending_lock, 1, __ATOMIC_ACQUIRE))
        return fn;
    drop_pending(slot);
    __atomic_store_n(&s->lazy, LAZY_NO, __ATOMIC_RELEASE);
    plt_publish(slot);
    unlock_pending();
    return fn;
}

/* Where a call through slot goes, the slot bound first if it is lazy. */
static inline uintptr_t slot_target(uint32_t slot)
{
    struct plt_slot *s = &SLOT(slot);
    if (ct_unlikely(__atomic_load_n(&s->lazy, __ATOMIC_ACQUIRE) != LAZY_NO) &&
        s->map)
        return bind_lazy(slot);
    return __atomic_load_n(&s->target, __ATOMIC_ACQUIRE);
}

uintptr_t ct_plt_enter(uint32_t slot, uintptr_t *retp)
{
    uintptr_t target = slot_target(slot);
    struct ct_thread *self = ct_self;
    if (ct_unlikely(self && ct_thread_foreign(self))) {
        /* a CLONE_VM child: this TLS, the frames too, are its parent's;
         * lost: the call and its return, which no hook will see */
        ct_count_lost_global(2);
        return target;
    }
    struct plt_thread *pt = plt_thread_get();
    if (!pt) {
        count_unrecorded_call();
        return target;
    }
    if (pt->in_tracer) {
        /* A signal handler that interrupted us, or (nested) libc's own
         * PLT under the tracer's calls.  The handler's call and its
         * return are lost: neither is seen. */
        if (plt_mode != CT_LIBCALLS_NESTED)
            count_unrecorded_call();
        return target;
    }
    struct ct_thread *t = ct_self;
    if (t && t->busy && plt_mode == CT_LIBCALLS_NESTED)
        return target;
    pt->in_tracer = 1;
    ct_signal_fence();
    if (ct_unlikely(lazy_of(slot) == LAZY_MAYBE))
        add_pending(slot);
    if (ct_unlikely(__atomic_load_n(&npending, __ATOMIC_RELAXED)))
        sweep_pending(CT_PLT_MAX_SLOTS);
    /* A tail call (jmp through the PLT) from a recorded library call
     * reuses that call's return address, trampoline and all: it ends when
     * the caller does. */
    int tail = *retp == (uintptr_t)ct_plt_return;
    if (ct_unlikely(!tail && pt->n > 0 &&
                    (uintptr_t)frame_at(pt, pt->n - 1)->retp <= (uintptr_t)retp))
        close_stale(pt, (uintptr_t)retp);
    if (ct_unlikely(frame_room(pt, pt->n) < 0)) {
        /* No memory for the frame, or CT_PLT_MAX_FRAMES open: the call
         * and its return are lost. */
        count_unrecorded_call();
        goto out;
    }
    uint32_t before = t ? t->depth : 0;
    /* The library function's frame starts at the return address; a rule
     * of CALLTRACE_ARGS adds its values to the call. */
    if (ct_unlikely(SLOT(slot).args_keeps & CT_ARGS_KEEPS_ARGS))
        ct_args_plt_call(SLOT(slot).args, (void *)SLOT(slot).fn, retp);
    else
        ct_enter_at((void *)SLOT(slot).fn, (void *)*retp, (uintptr_t)retp);
    t = ct_self;
    if (!t || (t->flags & CT_T_DEAD) || t->depth != before + 1) {
        /* Not taken (paused, not started, stopped, re-entry): no exit
         * either.  But a lazy slot's first call must still come back here
         * (a frame with nothing on the shadow stack): the resolver writes
         * the slot on the way, and unless its return puts the stub back,
         * every later call through it goes past the tracer. */
        ct_count_unseen_exit();
        if (lazy_of(slot) != LAZY_PENDING || tail)
            goto out;
    }
    struct plt_frame *f = frame_at(pt, pt->n);
    f->ret = tail ? 0 : *retp;
    f->retp = retp;
    f->slot = slot;
    f->depth = before;
    f->armed = !tail;
    if (!tail)
        *retp = (uintptr_t)ct_plt_return;
    ct_signal_fence();
    pt->n++;
out:
    ct_signal_fence();
    pt->in_tracer = 0;
    return target;
}

/* The lazy resolver wrote the real address over our stub: keep it as the
 * target and put the stub back. */
static void repatch(uint32_t slot)
{
    struct plt_slot *s = &SLOT(slot);
    uintptr_t now = __atomic_load_n(s->got, __ATOMIC_RELAXED);
    if (now == plt_stub_addr(slot) || plt_is_stub(now))
        return;
    __atomic_store_n(&s->target, now, __ATOMIC_RELAXED);
    __atomic_store_n(s->got, plt_stub_addr(slot), __ATOMIC_RELAXED);
}

static void __attribute__((noreturn)) lost_return(uintptr_t sp)
{
    ct_message("calltrace: a library call returned to %#lx with no record "
               "of where it came from; aborting", (unsigned long)sp);
    abort();
}

uintptr_t ct_plt_exit(uintptr_t sp)
{
    /* errno: nothing here sets it (the hooks and sigaltstack keep it). */
    struct plt_thread *pt = plt_self;
    uintptr_t *retp = (uintptr_t *)(sp - sizeof(uintptr_t));
    if (!pt)
        lost_return(sp);
    uint32_t outer = pt->in_tracer;
    pt->in_tracer = 1;
    ct_signal_fence();
    uint32_t i = pt->n;
    while (i > 0 && frame_at(pt, i - 1)->retp != retp)
        i--;
    if (i == 0) {
        /* Closed early (its exit is written already): just go back. */
        uintptr_t ret = exhume(pt, retp);
        if (!ret)
            lost_return(sp);
        pt->in_tracer = outer;
        return ret;
    }
    /* Tail calls share the slot: the lowest frame there owns it. */
    while (i > 1 && frame_at(pt, i - 2)->retp == retp)
        i--;
    struct plt_frame *f = frame_at(pt, i - 1);
    /* Frames above ours ended without their trampoline. */
    for (uint32_t k = pt->n; k > i; k--)
        close_frame(pt, frame_at(pt, k - 1));
    uintptr_t ret = f->ret;
    uint32_t slot = f->slot, depth = f->depth;
    pt->n = i - 1;
    if (ct_unlikely(__atomic_load_n(&npending, __ATOMIC_RELAXED)))
        sweep_pending(slot);
    if (ct_unlikely(lazy_of(slot) == LAZY_MAYBE)) {
        /* The pending list was full when this call began. */
        lock_pending();
        if (lazy_of(slot) == LAZY_MAYBE) {
            repatch(slot);
            plt_set_lazy(slot, LAZY_NO);
            plt_publish(slot);
        }
        unlock_pending();
    }
    if (ct_unlikely(SLOT(slot).args_keeps & CT_ARGS_KEEPS_RETURN))
        ct_args_plt_exit(SLOT(slot).args, sp, depth, SLOT(slot).fn);
    pop_shadow_to(depth, SLOT(slot).fn);
    ct_signal_fence();
    pt->in_tracer = outer;
    return ret;
}

/*
 * The stub's and the return trampoline's fast ways (plt_tramp.S), tried
 * before ct_plt_enter and ct_plt_exit with only the general registers
 * saved: this file is built with -mgeneral-regs-only, and the hooks' fast
 * paths they call (ct_enter_try, ct_exit_try) are too, so the vector
 * registers, a call's floating-point and vector arguments and its return
 * values, are never touched on the way and need no saving (saving them,
 * with their upper halves, was about a third of a library call's cost).
 * The plain case only: a bound slot with no CALLTRACE_ARGS rule for this
 * end, or one whose plan (args/plan.c, built the same way) writes it, no
 * resolution pending anywhere, the thread's state there, no frame left
 * below by a jump, not a tail call, room for the frame in the segments
 * mapped, and the hooks' fast path open.  Anything else returns
 * 0 with nothing changed, and the full way does it all.
 *
 * A rule whose plan reads floating-point values (CT_ARGS_FAST_VEC_*) has
 * the fast way say 1: the trampoline then stores the low halves of the
 * vector registers (nothing here touches them, so their upper halves
 * need no saving) and calls the _vec twin, which reads them there.
 *
 * Under the sanitizers, whose calls would clobber vector registers the
 * trampolines do not save here, they always say 0.
 */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
__attribute__((no_sanitize("address", "thread"))) uintptr_t
ct_plt_enter_fast(uint32_t slot, uintptr_t *retp)
{
    (void)slot, (void)retp;
    return 0;
}

__attribute__((no_sanitize("address", "thread"))) uintptr_t
ct_plt_exit_fast(uintptr_t sp)
{
    (void)sp;
    return 0;
}

__attribute__((no_sanitize("address", "thread"))) uintptr_t
ct_plt_enter_fast_vec(uint32_t slot, uintptr_t *retp)
{
    (void)slot, (void)retp;
    return 0;
}

__attribute__((no_sanitize("address", "thread"))) uintptr_t
ct_plt_exit_fast_vec(uintptr_t sp)
{
    (void)sp;
    return 0;
}
#else
/* Where plt_tramp.S stores %xmm0-7 below a call's return address, and
 * %xmm0 below the stack pointer a return arrives with (as args.c reads
 * them). */
#define PLT_SAVED_XMM 184
#define PLT_RET_XMM0 48
/* The fast way's work, once the first tests let it in: apart, so that a
 * call they send to the full way (a rule of a floating-point value or a
 * string) pays no saved registers for it. */
static __attribute__((noinline)) uintptr_t
enter_fast(uint32_t slot, uintptr_t *retp, struct plt_thread *pt,
           const struct ct_thread *t, const struct plt_slot *s, uint32_t keeps,
           const uint8_t *xmm)
{
    uint32_t n = pt->n;
    uintptr_t ret = *retp;
    if (ct_unlikely(__atomic_load_n(&s->lazy, __ATOMIC_ACQUIRE) != LAZY_NO ||
                    __atomic_load_n(&npending, __ATOMIC_RELAXED) ||
                    ret == (uintptr_t)ct_plt_return ||
                    n >= CT_PLT_MAX_FRAMES || !pt->seg[n / FRAME_SEG] ||
                    (n && (uintptr_t)frame_at(pt, n - 1)->retp <=
                              (uintptr_t)retp)))
        return 0;
    pt->in_tracer = 1;
    ct_signal_fence();
    /* A rule's integers go with the ENTRY, read where plt_tramp.S pushed
     * the general registers (as args.c reads them). */
    int taken = ct_likely(!(keeps & CT_ARGS_KEEPS_ARGS))
                    ? ct_enter_try((void *)s->fn, (void *)ret, (uintptr_t)retp)
                    : ct_args_plan_write_saved(s->args, (void *)s->fn,
                                               (void *)ret, (uintptr_t)retp,
                                               retp - 2, -1, xmm);
    if (ct_unlikely(taken != 0)) {
        ct_signal_fence();
        pt->in_tracer = 0;
        return 0;
    }
    struct plt_frame *f = frame_at(pt, n);
    f->ret = ret;
    f->retp = retp;
    f->slot = slot;
    f->depth = t->depth - 1;
    f->armed = 1;
    *retp = (uintptr_t)ct_plt_return;
    ct_signal_fence();
    pt->n = n + 1;
    ct_signal_fence();
    pt->in_tracer = 0;
    return __atomic_load_n(&s->target, __ATOMIC_ACQUIRE);
}

/* The first tests of both ways in: 0 when the call must take the full
 * way, 1 when its rule's plan needs the vector registers stored first,
 * else 2.  A thread whose state another may share (a CLONE_VM child's)
 * is left to the full way before its state is touched, as there. */
static inline __attribute__((always_inline)) int
enter_test(const struct plt_thread *pt, const struct ct_thread *t,
           uint32_t keeps)
{
    if (ct_unlikely(!pt || !t || pt->in_tracer ||
                    (__atomic_load_n(&t->stop, __ATOMIC_RELAXED) &
                     CT_STOP_SHARED)))
        return 0;
    if (ct_likely(!(keeps & CT_ARGS_KEEPS_ARGS) || (keeps & CT_ARGS_FAST_ARGS)))
        return 2;
    return keeps & CT_ARGS_FAST_VEC_ARGS ? 1 : 0;
}

uintptr_t ct_plt_enter_fast(uint32_t slot, uintptr_t *retp)
{
    struct plt_thread *pt = plt_self;
    const struct ct_thread *t = ct_self;
    const struct plt_slot *s = &SLOT(slot);
    uint32_t keeps = s->args_keeps;
    int how = enter_test(pt, t, keeps);
    if (ct_unlikely(how != 2))
        return (uintptr_t)how;  /* 0: the full way; 1: the vector way */
    return enter_fast(slot, retp, pt, t, s, keeps, NULL);
}

uintptr_t ct_plt_enter_fast_vec(uint32_t slot, uintptr_t *retp)
{
    struct plt_thread *pt = plt_self;
    const struct ct_thread *t = ct_self;
    const struct plt_slot *s = &SLOT(slot);
    uint32_t keeps = s->args_keeps;
    if (ct_unlikely(enter_test(pt, t, keeps) == 0))
        return 0;
    return enter_fast(slot, retp, pt, t, s, keeps,
                      (const uint8_t *)retp - PLT_SAVED_XMM);
}

/* The return's fast way, with the %xmm0 the trampoline stored (xmm0) or
 * none (NULL); as ct_plt_enter_fast, 1 (none given) when the rule's
 * plan needs it stored first. */
static inline __attribute__((always_inline)) uintptr_t
exit_fast(uintptr_t sp, const uint8_t *xmm0)
{
    struct plt_thread *pt = plt_self;
    uintptr_t *retp = (uintptr_t *)(sp - sizeof(uintptr_t));
    if (ct_unlikely(!pt || pt->in_tracer || pt->n == 0))
        return 0;
    uint32_t n = pt->n;
    const struct plt_frame *f = frame_at(pt, n - 1);
    /* (a tail call's frame shares its slot with the one below: full way) */
    const struct plt_slot *s = &SLOT(f->slot);
    uint32_t keeps = s->args_keeps;
    if (ct_unlikely(f->retp != retp ||
                    (n > 1 && frame_at(pt, n - 2)->retp == retp) ||
                    __atomic_load_n(&npending, __ATOMIC_RELAXED) ||
                    lazy_of(f->slot) != LAZY_NO))
        return 0;
    if (ct_unlikely((keeps & (CT_ARGS_KEEPS_RETURN | CT_ARGS_FAST_RETURN)) ==
                        CT_ARGS_KEEPS_RETURN && !xmm0))
        return keeps & CT_ARGS_FAST_VEC_RETURN ? 1 : 0;
    pt->in_tracer = 1;
    ct_signal_fence();
    /* A return value a rule keeps goes with the EXIT, from the %rax
     * plt_tramp.S saved just below sp (and the %xmm0 it stored). */
    int taken = ct_likely(!(keeps & CT_ARGS_KEEPS_RETURN))
                    ? ct_exit_try((void *)s->fn, f->depth)
                    : ct_args_plan_return(s->args, ((const uint64_t *)sp)[-1],
                                          xmm0, f->depth, (void *)s->fn);
    if (ct_unlikely(taken != 0)) {
        ct_signal_fence();
        pt->in_tracer = 0;
        return 0;
    }
    uintptr_t ret = f->ret;
    ct_signal_fence();
    pt->n = n - 1;
    ct_signal_fence();
    pt->in_tracer = 0;
    return ret;
}

uintptr_t ct_plt_exit_fast(uintptr_t sp)
{
    return exit_fast(sp, NULL);
}

uintptr_t ct_plt_exit_fast_vec(uintptr_t sp)
{
    return exit_fast(sp, (const uint8_t *)sp - PLT_RET_XMM0);
}
#endif

void ct_plt_settle(void)
{
    struct plt_thread *pt = plt_self;
    if (pt && !pt->in_tracer && __atomic_load_n(&npending, __ATOMIC_RELAXED))
        sweep_pending(CT_PLT_MAX_SLOTS);
}

size_t ct_plt_frame_bytes(void)
{
    return sizeof(struct plt_frame);
}

/* Each context has library calls of its own open: one that switched
 * away returns only when its context runs again, through its own
 * trampoline, and must find its frame then. */
uint32_t ct_plt_frames_out(void *buf, uint32_t cap)
{
    const struct plt_thread *pt = plt_self;
    if (!pt)
        return 0;
    struct plt_frame *out = buf;
    for (uint32_t i = 0; out && i < pt->n && i < cap; i++)
        out[i] = *frame_at(pt, i);
    return pt->n;
}

/* A frame the tracer can no longer keep: its trampoline is taken off the
 * stack (the call returns straight to its caller, as if never recorded)
 * and its return counted lost.  Left armed, the return would find no
 * frame and end in lost_return's abort. */
static void disarm(const struct plt_frame *f)
{
    if (f->armed && f->retp && *f->retp == (uintptr_t)ct_plt_return)
        *f->retp = f->ret;
    ct_count_unseen_exit();
}

void ct_plt_frames_drop(void)
{
    struct plt_thread *pt = plt_self;
    if (!pt)
        return;
    for (uint32_t i = pt->n; i > 0; i--)
        disarm(frame_at(pt, i - 1));
    pt->n = 0;
}

void ct_plt_frames_in(const void *buf, uint32_t n)
{
    struct plt_thread *pt = plt_self;
    const struct plt_frame *in = buf;
    uint32_t i = 0;
    /* Frames past the room the budget gives are dropped: the context
     * switched in runs on with the calls it has room for. */
    for (; pt && i < n && i < CT_PLT_MAX_FRAMES && frame_room(pt, i) == 0; i++)
        *frame_at(pt, i) = in[i];
    if (pt)
        pt->n = i;
    for (uint32_t j = n; j > i; j--)
        disarm(&in[j - 1]);
}

uintptr_t ct_plt_real_return(uintptr_t sp)
{
    const struct plt_thread *pt = plt_self;
    if (!pt)
        return 0;
    const uintptr_t *retp = (const uintptr_t *)(sp - sizeof(uintptr_t));
    for (uint32_t i = pt->n; i > 0; i--)
        if (frame_at(pt, i - 1)->retp == retp && frame_at(pt, i - 1)->ret)
            return frame_at(pt, i - 1)->ret;
    return 0;
}

/* Another thread's plt_self, read by the sampler's thread (sample_perf.c)
 * while that thread runs on: every read goes through process_vm_readv,
 * which fails instead of faulting when the thread has ended and its
 * frames are unmapped.  The answer may be stale, never unsafe. */
const void *ct_plt_thread_slot(void)
{
    return &plt_self;
}

static int read_own(void *dst, const void *src, size_t len)
{
    return ct_self_read(ct_proc.pid, dst, (uintptr_t)src, len) ==
                   (ssize_t)len
               ? 0
               : -1;
}

uintptr_t ct_plt_real_return_of(const void *slot, uintptr_t sp)
{
    const struct plt_thread *pt;
    uint32_t n;
    if (!slot || read_own(&pt, slot, sizeof pt) != 0 || !pt ||
        read_own(&n, &pt->n, sizeof n) != 0)
        return 0;
    /* The call sampled may have returned since: its frame, above the
     * live ones, keeps its values until the next call reuses it (most
     * often the same call again), so a few frames above n are tried too. */
    n += 8;
    if (n > CT_PLT_MAX_FRAMES)
        n = CT_PLT_MAX_FRAMES;
    const uintptr_t *retp = (const uintptr_t *)(sp - sizeof(uintptr_t));
    for (uint32_t i = n; i > 0; i--) {
        struct plt_frame f, *seg;
        if (read_own(&seg, &pt->seg[(i - 1) / FRAME_SEG], sizeof seg) != 0)
            return 0;
        if (!seg)
            continue;  /* frames that were never mapped */
        if (read_own(&f, &seg[(i - 1) % FRAME_SEG], sizeof f) != 0)
            return 0;
        if (f.retp == retp && f.ret)
            return f.ret;
    }
    return 0;
}

int ct_plt_quiet_begin(void)
{
    struct plt_thread *pt = plt_thread_get();
    if (!pt || pt->in_tracer)
        return 0;
    pt->in_tracer = 1;
    ct_signal_fence();
    return 1;
}

void ct_plt_quiet_end(int began)
{
    if (began) {
        ct_signal_fence();
        plt_self->in_tracer = 0;
    }
}

/* A function that never returns (_Unwind_Resume, say) called first
 * through a lazy slot: the resolver has written the slot by now, and no
 * exit will come to put the stub back, so the next call through it would
 * not be recorded. */
static void sweep_unreturned(const struct plt_thread *pt)
{
    if (!pt->in_tracer && __atomic_load_n(&npending, __ATOMIC_RELAXED))
        sweep_pending(CT_PLT_MAX_SLOTS);
}

void ct_plt_disarm(void)
{
    ct_patch_disarm();
    struct plt_thread *pt = plt_self;
    if (!pt)
        return;
    for (uint32_t i = 0; i < pt->n; i++) {
        struct plt_frame *f = frame_at(pt, i);
        if (f->armed && *f->retp == (uintptr_t)ct_plt_return)
            *f->retp = f->ret;
        f->armed = 0;
    }
    sweep_unreturned(pt);
}

void ct_plt_rearm(uintptr_t sp)
{
    ct_patch_rearm(sp);
    struct plt_thread *pt = plt_self;
    if (!pt || pt->in_tracer)
        return;
    pt->in_tracer = 1;
    ct_signal_fence();
    if (pt->n > 0 && (uintptr_t)frame_at(pt, pt->n - 1)->retp < sp)
        close_stale(pt, sp - 1);
    for (uint32_t i = 0; i < pt->n; i++) {
        struct plt_frame *f = frame_at(pt, i);
        if (!f->armed && *f->retp == f->ret) {
            *f->retp = (uintptr_t)ct_plt_return;
            f->armed = 1;
        }
    }
    ct_signal_fence();
    pt->in_tracer = 0;
}

void ct_plt_clone_fresh(void)
{
    if (plt_self)
        plt_self->n = 0;
}
