/*
 * Library calls through the PLT (CALLTRACE_LIBCALLS).
 *
 * At start and after each dlopen, every JUMP_SLOT relocation of an object
 * that imports __cyg_profile_func_enter (every object, in nested mode)
 * gets its GOT slot pointed at a stub of its own (plt_tramp.S).  The stub
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
#include <sys/uio.h>
#include <unistd.h>

#include "preload/libcalls/args.h"
#include "preload/base/budget.h"
#include "preload/patch/patch.h"
#include "preload/libcalls/plt.h"
#include "preload/libcalls/plt_got.h"
#include "preload/base/scratch.h"
#include "preload/tracer.h"

#define STUB_SIZE 16u

struct plt_slot {
    uintptr_t target;     /* where the call goes; the lazy entry at first  */
    uintptr_t *got;
    uintptr_t fn;         /* the PLT entry: the function in the records    */
    uint32_t lazy;        /* LAZY_*                                        */
    uint32_t reloc;       /* its JUMP_SLOT's index, for the loader's look-up */
    void *map;            /* its object's link map (GOT[1]); 0: not bound
                           * by us (bind_lazy) */
    uint32_t args;        /* its CALLTRACE_ARGS rule + 1, 0 if none (args.c) */
};

/* plt_slot.lazy: may the lazy resolver still write the GOT slot? */
#define LAZY_NO 0        /* bound when patched                            */
#define LAZY_MAYBE 1     /* points into its own object: maybe the resolver */
#define LAZY_PENDING 2   /* called: on the pending list until checked     */
#define MAX_PENDING 256

/* lazy is written under the pending lock and read by every call without
 * it: atomic, relaxed, for the quick look that decides to take the lock. */
static uint32_t lazy_of(uint32_t slot);
static void set_lazy(uint32_t slot, uint32_t v);

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

/* Slots in chunks mapped as they are needed (under patch_lock, before
 * the slot is counted in nslots): whole tables in .bss took 384 KiB of
 * every traced process's address space, which RLIMIT_AS counts even for
 * pages never touched.  Each slot's name and mark ("@plt", "@dlsym",
 * "@got") are set before the slot is counted: the filter names the stubs'
 * functions from them (ct_plt_slot_names).  Names are copies
 * (ct_scratch_keep) that outlive a dlclose of their object. */
#define SLOT_CHUNK 512u
struct slot_chunk {
    struct plt_slot slot[SLOT_CHUNK];
    const char *name[SLOT_CHUNK];
    const char *mark[SLOT_CHUNK];
};
static struct slot_chunk *slot_chunks[CT_PLT_MAX_SLOTS / SLOT_CHUNK];
/* Each slot's target where a call may skip the recording altogether
 * (plt_tramp.S, while tracing is off), 0 where it may not: a slot the
 * lazy resolver may still write must go through ct_plt_enter, which
 * notices the write and puts the stub back.  Mapped with the first
 * slot: a program traced without library calls has no 64 KiB of it. */
uintptr_t *ct_plt_direct;
static uint32_t nslots;
#define SLOT(i) (slot_chunks[(i) / SLOT_CHUNK]->slot[(i) % SLOT_CHUNK])
#define SLOT_NAME(i) (slot_chunks[(i) / SLOT_CHUNK]->name[(i) % SLOT_CHUNK])
#define SLOT_MARK(i) (slot_chunks[(i) / SLOT_CHUNK]->mark[(i) % SLOT_CHUNK])

/* Maps the chunk of slot i if it is not yet: 0, or -1 without memory. */
static int slot_chunk_get(uint32_t i)
{
    struct slot_chunk **c = &slot_chunks[i / SLOT_CHUNK];
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
static int plt_mode;
static int slots_full_reported;
static pthread_mutex_t patch_lock = PTHREAD_MUTEX_INITIALIZER;

/* Slots whose first call went to the lazy resolver, which writes the
 * resolved address over our stub.  Checked at every library call (any
 * thread) until the stub is back: the call itself may never return
 * through the trampoline (an exception, a longjmp). */
static uint32_t pending[MAX_PENDING];
static uint32_t npending;
static int pending_lock;

static __thread struct plt_thread *plt_self
    __attribute__((tls_model("initial-exec")));
static pthread_key_t plt_key;
static int plt_key_ok;

/* ------------------------------------------------------- per thread */

static void plt_thread_free(void *arg)
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

static inline uintptr_t stub_addr(uint32_t slot)
{
    return (uintptr_t)ct_plt_stubs + (uintptr_t)slot * STUB_SIZE;
}

static inline int is_stub(uintptr_t a)
{
    return a >= (uintptr_t)ct_plt_stubs &&
           a < (uintptr_t)ct_plt_stubs + (uintptr_t)CT_PLT_MAX_SLOTS * STUB_SIZE;
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
    if (depth < CT_MAX_DEPTH && t->stack[depth] != fn)
        return;
    while (t->depth > depth) {
        uint32_t d = t->depth;
        uintptr_t top = d <= CT_MAX_DEPTH ? t->stack[d - 1] : 0;
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

static void set_lazy(uint32_t slot, uint32_t v)
{
    __atomic_store_n(&SLOT(slot).lazy, v, __ATOMIC_RELAXED);
}

static void publish(uint32_t slot)
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
        set_lazy(slot, LAZY_PENDING);
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
        if (now != stub_addr(slot) || slot == finished) {
            repatch(slot);
            set_lazy(slot, LAZY_NO);
            publish(slot);
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
static void *binding_map(const uintptr_t *pltgot)
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
    __atomic_store_n(s->got, stub_addr(slot), __ATOMIC_RELEASE);
    if (__atomic_exchange_n(&pending_lock, 1, __ATOMIC_ACQUIRE))
        return fn;
    drop_pending(slot);
    __atomic_store_n(&s->lazy, LAZY_NO, __ATOMIC_RELEASE);
    publish(slot);
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
    /* The library function's frame starts at the return address. */
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
    if (ct_unlikely(SLOT(slot).args) && t && t->depth == before + 1)
        ct_args_plt_enter(SLOT(slot).args, retp, before);
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
    if (now == stub_addr(slot) || is_stub(now))
        return;
    __atomic_store_n(&s->target, now, __ATOMIC_RELAXED);
    __atomic_store_n(s->got, stub_addr(slot), __ATOMIC_RELAXED);
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
            set_lazy(slot, LAZY_NO);
            publish(slot);
        }
        unlock_pending();
    }
    if (ct_unlikely(SLOT(slot).args))
        ct_args_plt_exit(SLOT(slot).args, sp, depth, SLOT(slot).fn);
    pop_shadow_to(depth, SLOT(slot).fn);
    ct_signal_fence();
    pt->in_tracer = outer;
    return ret;
}

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
    struct iovec local = {dst, len}, remote = {(void *)src, len};
    return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) ==
                   (ssize_t)len ? 0 : -1;
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

/* ------------------------------------------------------- patching */

/* Functions whose calls are not recorded: they return twice (the saved
 * context would hold the trampoline), look at their own return address
 * (RTLD_NEXT, the caller's namespace), or are the tracer's own entry
 * points. */
int ct_plt_never_patched(const char *name)
{
    static const char *const names[] = {
        "setjmp", "_setjmp", "__sigsetjmp", "sigsetjmp", "savectx",
        "vfork", "__vfork", "getcontext", "swapcontext", "setcontext",
        "dlsym", "dlvsym", "dlopen", "dlmopen", "dl_iterate_phdr",
        "__cyg_profile_func_enter", "__cyg_profile_func_exit",
        "__tls_get_addr",
    };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strcmp(name, names[i]) == 0)
            return 1;
    return strncmp(name, "calltrace_", 10) == 0;
}

struct dyn_info {
    uintptr_t base;
    const ElfW(Sym) *symtab;
    const char *strtab;
    const ElfW(Rela) *jmprel;
    size_t njmprel;
    const ElfW(Rela) *rela;
    size_t nrela;
    const uintptr_t *pltgot;
};

static uintptr_t dyn_ptr(uintptr_t base, uintptr_t v)
{
    /* ld.so relocates most of these in place, but not in every object
     * (a read-only dynamic section keeps file addresses). */
    return v < base ? v + base : v;
}

static int read_dynamic(const struct dl_phdr_info *info, struct dyn_info *d)
{
    memset(d, 0, sizeof *d);
    d->base = info->dlpi_addr;
    const ElfW(Dyn) *dyn = NULL;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
            dyn = (const ElfW(Dyn) *)(d->base + info->dlpi_phdr[i].p_vaddr);
    if (!dyn)
        return -1;
    size_t pltrelsz = 0, relasz = 0;
    int pltrel_is_rela = 1;
    for (; dyn->d_tag != DT_NULL; dyn++) {
        uintptr_t v = dyn->d_un.d_ptr;
        switch (dyn->d_tag) {
        case DT_SYMTAB: d->symtab = (const void *)dyn_ptr(d->base, v); break;
        case DT_STRTAB: d->strtab = (const void *)dyn_ptr(d->base, v); break;
        case DT_JMPREL: d->jmprel = (const void *)dyn_ptr(d->base, v); break;
        case DT_RELA: d->rela = (const void *)dyn_ptr(d->base, v); break;
        case DT_PLTGOT: d->pltgot = (const void *)dyn_ptr(d->base, v); break;
        case DT_PLTRELSZ: pltrelsz = dyn->d_un.d_val; break;
        case DT_RELASZ: relasz = dyn->d_un.d_val; break;
        case DT_PLTREL: pltrel_is_rela = dyn->d_un.d_val == DT_RELA; break;
        default: break;
        }
    }
    if (!d->symtab || !d->strtab || !pltrel_is_rela)
        return -1;
    d->njmprel = d->jmprel ? pltrelsz / sizeof(ElfW(Rela)) : 0;
    d->nrela = d->rela ? relasz / sizeof(ElfW(Rela)) : 0;
    return 0;
}

static const char *rel_name(const struct dyn_info *d, const ElfW(Rela) *r)
{
    uint32_t sym = ELF64_R_SYM(r->r_info);
    return sym ? d->strtab + d->symtab[sym].st_name : NULL;
}

static int imports(const struct dyn_info *d, const char *want)
{
    for (size_t i = 0; i < d->njmprel; i++) {
        const char *n = rel_name(d, &d->jmprel[i]);
        if (n && strcmp(n, want) == 0)
            return 1;
    }
    for (size_t i = 0; i < d->nrela; i++) {
        const char *n = rel_name(d, &d->rela[i]);
        if (n && strcmp(n, want) == 0)
            return 1;
    }
    return 0;
}

/*
 * getcontext, swapcontext and the setjmp family return twice, so no
 * trampoline may stand for their return address; the wrappers of
 * context.c and jump.c write their calls instead, as calls that return at
 * once.  Their PLT entries in
 * the objects whose library calls are recorded are noted here, so a
 * wrapper knows the call it serves is one to record, and its function.
 */
#define MAX_WRAPPED 64
static uintptr_t wrapped[MAX_WRAPPED];
static uint32_t nwrapped;

static int told_by_wrapper(const char *name)
{
    return strcmp(name, "getcontext") == 0 ||
           strcmp(name, "swapcontext") == 0 || strcmp(name, "setjmp") == 0 ||
           strcmp(name, "_setjmp") == 0 || strcmp(name, "__sigsetjmp") == 0;
}

/* Under patch_lock. */
static void note_wrapped(uintptr_t plt)
{
    uint32_t n = __atomic_load_n(&nwrapped, __ATOMIC_RELAXED);
    if (!plt || n == MAX_WRAPPED)
        return;
    for (uint32_t i = 0; i < n; i++)
        if (__atomic_load_n(&wrapped[i], __ATOMIC_RELAXED) == plt)
            return;
    __atomic_store_n(&wrapped[n], plt, __ATOMIC_RELAXED);
    __atomic_store_n(&nwrapped, n + 1, __ATOMIC_RELEASE);
}

uintptr_t ct_plt_wrapped_call(uintptr_t site)
{
    const uint8_t *call = (const uint8_t *)site - 5;
    uint32_t n = __atomic_load_n(&nwrapped, __ATOMIC_ACQUIRE);
    if (n == 0 || plt_mode == CT_LIBCALLS_NONE || *call != 0xe8)
        return 0;  /* only a direct call (e8 rel32) names its entry */
    int32_t rel;
    memcpy(&rel, call + 1, sizeof rel);
    uintptr_t entry = site + (uintptr_t)(intptr_t)rel;
    for (uint32_t i = 0; i < n; i++)
        if (__atomic_load_n(&wrapped[i], __ATOMIC_RELAXED) == entry)
            return entry;
    return 0;
}

struct got_ref {
    uintptr_t got;
    uintptr_t plt;
    uintptr_t hook;       /* dlsym, dlvsym: where the slot goes instead */
    const char *name;
    uint32_t reloc;       /* index in DT_JMPREL */
};

static int cmp_got(const void *a, const void *b)
{
    const struct got_ref *x = a, *y = b;
    return x->got < y->got ? -1 : x->got > y->got;
}

static struct got_ref *find_got(struct got_ref *refs, size_t n, uintptr_t got)
{
    struct got_ref key = {got, 0, 0, NULL, 0};
    return bsearch(&key, refs, n, sizeof *refs, cmp_got);
}

/* The GOT slot an 8-byte aligned PLT entry at p jumps through, or 0:
 * [endbr64] [bnd] jmp *disp32(%rip), the forms ld writes for x86-64. */
static uintptr_t plt_entry_got(const uint8_t *p, const uint8_t *end)
{
    const uint8_t *q = p;
    if (end - q >= 4 && q[0] == 0xf3 && q[1] == 0x0f && q[2] == 0x1e &&
        q[3] == 0xfa)
        q += 4;
    if (end - q >= 1 && q[0] == 0xf2)
        q++;
    if (end - q < 6 || q[0] != 0xff || q[1] != 0x25)
        return 0;
    int32_t disp;
    memcpy(&disp, q + 2, 4);
    return (uintptr_t)(q + 6) + (intptr_t)disp;
}

/* Finds each JUMP_SLOT's PLT entry by scanning the executable segments
 * for the jumps through it; the first one found is the PLT's (the PLT
 * comes before .text). */
static void find_plt_entries(const struct dl_phdr_info *info,
                             struct got_ref *refs, size_t n)
{
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X) ||
            !(ph->p_flags & PF_R))
            continue;
        uintptr_t lo = (info->dlpi_addr + ph->p_vaddr + 7) & ~(uintptr_t)7;
        const uint8_t *end = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr +
                                               ph->p_filesz);
        for (const uint8_t *p = (const uint8_t *)lo; p + 8 <= end; p += 8) {
            if (p[0] != 0xff && p[0] != 0xf3 && p[0] != 0xf2)
                continue;
            uintptr_t got = plt_entry_got(p, end);
            struct got_ref *r = got ? find_got(refs, n, got) : NULL;
            if (r && !r->plt)
                r->plt = (uintptr_t)p;
        }
    }
}

/* The writable window [lo, hi) RELRO made read-only, if any. */
static void relro_range(const struct dl_phdr_info *info, uintptr_t *lo,
                        uintptr_t *hi)
{
    *lo = *hi = 0;
    long page = sysconf(_SC_PAGESIZE);
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_GNU_RELRO)
            continue;
        uintptr_t s = info->dlpi_addr + ph->p_vaddr;
        *lo = s & ~(uintptr_t)(page - 1);
        *hi = ct_align_up(s + ph->p_memsz, (uintptr_t)page);
    }
}

static int in_exec_segment(const struct dl_phdr_info *info, uintptr_t a)
{
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t s = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && a >= s &&
            a < s + ph->p_memsz)
            return 1;
    }
    return 0;
}

static int is_own_object(const struct dl_phdr_info *info)
{
    uintptr_t me = (uintptr_t)ct_plt_stubs;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t s = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && me >= s && me < s + ph->p_memsz)
            return 1;
    }
    return 0;
}

static int is_loader(const char *name)
{
    return name && (strstr(name, "/ld-linux") || strstr(name, "/ld64.so") ||
                    strstr(name, "linux-vdso"));
}

/* Points a GOT slot at a new stub; plt is the function in the records, 0
 * for the stub itself (named in MAPS blocks).  Returns the stub, or 0. */
static uintptr_t patch_slot(uintptr_t *got, uintptr_t plt, int maybe_lazy,
                            const char *name, const char *mark, void *map,
                            uint32_t reloc)
{
    uintptr_t cur = *got;
    if (is_stub(cur))
        return 0;  /* patched before */
    if (nslots >= CT_PLT_MAX_SLOTS) {
        if (!slots_full_reported++)
            ct_message("calltrace: more than %u library functions; calls "
                       "to the others are not recorded", CT_PLT_MAX_SLOTS);
        return 0;
    }
    uint32_t i = nslots;
    if (slot_chunk_get(i) < 0)
        return 0;
    SLOT(i).target = cur;
    SLOT(i).got = got;
    SLOT(i).fn = plt ? plt : stub_addr(i);
    set_lazy(i, maybe_lazy ? LAZY_MAYBE : LAZY_NO);
    SLOT(i).map = maybe_lazy ? map : NULL;
    SLOT(i).reloc = reloc;
    SLOT(i).args = ct_args_rule_for(name);
    SLOT_NAME(i) = ct_scratch_keep(name);
    SLOT_MARK(i) = mark;
    publish(i);
    __atomic_store_n(&nslots, i + 1, __ATOMIC_RELEASE);
    __atomic_store_n(got, stub_addr(i), __ATOMIC_RELEASE);
    return stub_addr(i);
}

/* Load biases (l_addr) of the objects there at start, for RTLD_DEFAULT. */
#define MAX_START_OBJECTS 256
static uintptr_t start_bases[MAX_START_OBJECTS];
static uint32_t nstart_bases;

int ct_plt_loaded_at_start(uintptr_t base)
{
    for (uint32_t i = 0; i < nstart_bases; i++)
        if (start_bases[i] == base)
            return 1;
    return 0;
}

static void note_start_object(const struct dl_phdr_info *info)
{
    if (nstart_bases < MAX_START_OBJECTS)
        start_bases[nstart_bases++] = info->dlpi_addr;
}

/* Opens the RELRO window once, if a slot in it is to be written. */
static int writable(uintptr_t got, uintptr_t rlo, uintptr_t rhi, int *opened)
{
    if (got < rlo || got >= rhi || *opened)
        return 1;
    if (mprotect((void *)rlo, rhi - rlo, PROT_READ | PROT_WRITE) != 0)
        return 0;
    *opened = 1;
    return 1;
}

/* -fno-plt calls: GLOB_DAT slots of functions of other objects that only
 * calls go through (plt_got.c). */
static void patch_got_calls(struct dl_phdr_info *info,
                            const struct dyn_info *d, uintptr_t rlo,
                            uintptr_t rhi, int *opened)
{
    size_t bytes = d->nrela * sizeof(struct got_use);
    struct got_use *u = ct_scratch_alloc(bytes);
    if (!u)
        return;
    size_t n = 0;
    for (size_t i = 0; i < d->nrela; i++) {
        const ElfW(Rela) *r = &d->rela[i];
        uint32_t sym = ELF64_R_SYM(r->r_info);
        if (ELF64_R_TYPE(r->r_info) != R_X86_64_GLOB_DAT || sym == 0)
            continue;
        const ElfW(Sym) *st = &d->symtab[sym];
        int type = ELF64_ST_TYPE(st->st_info);
        const char *name = d->strtab + st->st_name;
        uintptr_t got = d->base + r->r_offset, cur = *(uintptr_t *)got;
        uintptr_t hook = ct_plt_hook_for(name);
        if ((type != STT_FUNC && type != STT_GNU_IFUNC) ||
            st->st_shndx != SHN_UNDEF || cur == 0 || is_stub(cur) ||
            cur == hook || in_exec_segment(info, cur) ||
            (!hook && ct_got_never_patched(name)))
            continue;
        u[n++] = (struct got_use){.got = got, .name = name};
    }
    ct_got_classify(info, u, n);
    for (size_t i = 0; i < n; i++) {
        if (!u[i].called || u[i].other ||
            !writable(u[i].got, rlo, rhi, opened))
            continue;
        uintptr_t *got = (uintptr_t *)u[i].got, hook = ct_plt_hook_for(u[i].name);
        if (hook) {
            __atomic_store_n(got, hook, __ATOMIC_RELEASE);
            continue;
        }
        uintptr_t target = *got,
                  stub = patch_slot(got, 0, 0, u[i].name, "@got", NULL, 0);
        if (stub)
            ct_plt_name_stub(stub, target, u[i].name, "@got");
    }
    ct_scratch_free(u, bytes);
}

/*
 * The unwinder of libgcc_s looks up each frame's unwind information
 * through _dl_find_object (dl_iterate_phdr before glibc 2.35), starting
 * with its own frames, before it reaches any of ours.  Calls that do not
 * come through the wrappers of plt_unwind.c (glibc's thread cancellation
 * and pthread_exit, its backtrace(), which call libgcc_s by pointers) are
 * caught there: the real return addresses are put back first.
 */
static void hook_unwinder(const struct dl_phdr_info *info,
                          const struct dyn_info *d)
{
    uintptr_t rlo, rhi;
    int opened = 0;
    relro_range(info, &rlo, &rhi);
    for (size_t i = 0; i < d->njmprel; i++) {
        const char *name = rel_name(d, &d->jmprel[i]);
        uintptr_t hook = ct_plt_unwinder_hook_for(name);
        uintptr_t *got = (uintptr_t *)(d->base + d->jmprel[i].r_offset);
        /* A stub there would be called by the hook as the real function,
         * and call the hook again. */
        if (!hook || *got == hook || is_stub(*got) ||
            !writable((uintptr_t)got, rlo, rhi, &opened))
            continue;
        ct_plt_unwinder_next(name, *got);
        __atomic_store_n(got, hook, __ATOMIC_RELEASE);
    }
    if (opened)
        mprotect((void *)rlo, rhi - rlo, PROT_READ);
}

static int patch_object(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    if (arg)
        note_start_object(info);
    if (is_own_object(info) || is_loader(info->dlpi_name))
        return 0;
    struct dyn_info d;
    if (read_dynamic(info, &d) < 0 || (d.njmprel == 0 && d.nrela == 0))
        return 0;
    if (info->dlpi_name && strstr(info->dlpi_name, "/libgcc_s.so"))
        hook_unwinder(info, &d);
    if (plt_mode != CT_LIBCALLS_NESTED &&
        !imports(&d, "__cyg_profile_func_enter"))
        return 0;
    size_t bytes = (d.njmprel + 1) * sizeof(struct got_ref);
    struct got_ref *refs = ct_scratch_alloc(bytes);
    if (!refs)
        return 0;
    size_t n = 0;
    for (size_t i = 0; i < d.njmprel; i++) {
        const ElfW(Rela) *r = &d.jmprel[i];
        const char *name = rel_name(&d, r);
        if (ELF64_R_TYPE(r->r_info) != R_X86_64_JUMP_SLOT || !name)
            continue;
        uintptr_t hook = ct_plt_hook_for(name);
        if (!hook && ct_plt_never_patched(name) && !told_by_wrapper(name))
            continue;
        refs[n++] = (struct got_ref){d.base + r->r_offset, 0, hook, name,
                                     (uint32_t)i};
    }
    ct_sort(refs, n, sizeof *refs, cmp_got);
    find_plt_entries(info, refs, n);
    uintptr_t rlo, rhi;
    relro_range(info, &rlo, &rhi);
    int opened = 0;
    void *map = binding_map(d.pltgot);
    for (size_t i = 0; i < n; i++) {
        uintptr_t now = *(uintptr_t *)refs[i].got;
        if (told_by_wrapper(refs[i].name)) {
            note_wrapped(refs[i].plt);  /* never patched */
            continue;
        }
        /* The unwinder's own look-ups (hook_unwinder) are not recorded:
         * they run while it walks the stack, hundreds per throw. */
        if ((!refs[i].plt && !refs[i].hook) || is_stub(now) ||
            (refs[i].hook && now == refs[i].hook) ||
            now == ct_plt_unwinder_hook_for(refs[i].name))
            continue;
        int in_relro = refs[i].got >= rlo && refs[i].got < rhi;
        if (!writable(refs[i].got, rlo, rhi, &opened))
            continue;
        if (refs[i].hook) {
            /* Lazy or not, dlsym is reached through the hook from now on. */
            __atomic_store_n((uintptr_t *)refs[i].got, refs[i].hook,
                             __ATOMIC_RELEASE);
            continue;
        }
        uintptr_t cur = *(uintptr_t *)refs[i].got;
        /* Unresolved, a lazy slot points back into its object's PLT;
         * RELRO slots were bound at load. */
        patch_slot((uintptr_t *)refs[i].got, refs[i].plt,
                   !in_relro && in_exec_segment(info, cur), refs[i].name,
                   "@plt", map, refs[i].reloc);
    }
    patch_got_calls(info, &d, rlo, rhi, &opened);
    if (opened)
        mprotect((void *)rlo, rhi - rlo, PROT_READ);
    ct_scratch_free(refs, bytes);
    return 0;
}

static void patch_all(int at_start)
{
    if (plt_mode == CT_LIBCALLS_NONE)
        return;
    int saved = errno;
    uint32_t named = ct_plt_named_count();
    pthread_mutex_lock(&patch_lock);
    dl_iterate_phdr(patch_object, at_start ? &at_start : NULL);
    pthread_mutex_unlock(&patch_lock);
    /* The new stubs' names (-fno-plt calls) go in a MAPS block of their
     * own: the one written at start or after the dlopen came first. */
    if (ct_plt_named_count() != named)
        ct_maps_write();
    errno = saved;
}

void ct_plt_clone_fresh(void)
{
    if (plt_self)
        plt_self->n = 0;
}

void ct_plt_start(int mode)
{
    plt_mode = mode;
    if (mode == CT_LIBCALLS_NONE)
        return;
    plt_key_ok = pthread_key_create(&plt_key, plt_thread_free) == 0;
    patch_all(1);
}

void ct_plt_after_load(void)
{
    patch_all(0);
}

int ct_plt_recording(void)
{
    return plt_mode != CT_LIBCALLS_NONE;
}

uintptr_t ct_plt_hook_for(const char *name)
{
    if (strcmp(name, "dlsym") == 0)
        return (uintptr_t)ct_dlsym_hook;
    if (strcmp(name, "dlvsym") == 0)
        return (uintptr_t)ct_dlvsym_hook;
    return 0;
}

uintptr_t ct_plt_pointer_slot(uintptr_t target, const char *name)
{
    pthread_mutex_lock(&patch_lock);
    uintptr_t stub = 0;
    if (nslots < CT_PLT_MAX_SLOTS && slot_chunk_get(nslots) == 0) {
        uint32_t i = nslots;
        stub = stub_addr(i);
        SLOT(i) = (struct plt_slot){target, NULL, stub, LAZY_NO, 0, NULL,
                                     ct_args_rule_for(name)};
        SLOT_NAME(i) = ct_scratch_keep(name);
        SLOT_MARK(i) = "@dlsym";
        publish(i);
        __atomic_store_n(&nslots, i + 1, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&patch_lock);
    return stub;
}

uint32_t ct_plt_slot_names(uint32_t from, ct_slot_name_fn fn, void *arg)
{
    uint32_t n = __atomic_load_n(&nslots, __ATOMIC_ACQUIRE);
    for (uint32_t i = from; i < n; i++)
        if (SLOT_NAME(i))
            fn(arg, SLOT_NAME(i), SLOT_MARK(i), SLOT(i).fn);
    return n;
}
