/*
 * The block supplier (supply.h).  A new block costs the kernel a page-cache
 * folio per page (allocation, zeroing, the filesystem's buffer heads) and a
 * full one the tear-down of its mapping: about a sixth of a traced run's
 * time on fib, all of it on the program's thread.  The supplier does it
 * instead, in a process cloned with CLONE_VM (as the stream's sender): it
 * shares the address space, so a block it maps is the thread's to write,
 * records still go straight into the file's shared mapping, and SIGKILL
 * keeps what it kept before.
 *
 * Each thread that switches blocks gets a slot.  Its state word holds a
 * generation and one of: WANT (the thread wants its next block), RESERVED
 * (the supplier reserved it at off and is mapping it), READY (mapped and
 * faulted in at ptr).  The supplier moves WANT -> RESERVED -> READY within
 * one generation; the thread takes READY (or RESERVED, mapping it itself)
 * and leaves WANT of the next generation.  A thread that reserves its own
 * block (nothing was ready) bumps the generation after its reservation, so
 * a block the supplier reserved before it is never its next one: a
 * thread's blocks stay in file order, as readers following a live trace
 * expect.  A block reserved and never taken stays zero: readers take it
 * for what it is, a reserved block never started.
 *
 * The supplier shares memory with the program: it makes raw system calls
 * only and touches no thread-local state (errno), blocks every signal, has
 * its own descriptor table with nothing of the program's in it, signals
 * no one at its exit, and ends when the program closes its trace, execs or
 * is gone.  It is started only once a process has switched blocks a few
 * times, so short processes never pay for it.
 */
#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload/base/helper.h"
#include "preload/file/keeper.h"
#include "preload/base/rawsys.h"
#include "preload/stream/supply.h"
#include "preload/tracer.h"

#define SLOTS 256u
/* Switches to a full-size block, past threads' first blocks, before the
 * supplier starts: by then the process has written over 1 MiB of trace
 * (at the default block size) and runs long enough that a process start
 * is lost in it. */
#define START_AFTER 2u
#define STACK_SIZE (64u << 10)
#define NAP_NS 100000000l   /* at most this long between looks at the program */

enum { K_OFF, K_WANT, K_RESERVED, K_READY };
#define KIND(s) ((unsigned)((s) & 3u))
#define GEN(s) ((s) >> 2)
#define STATE(g, k) ((g) << 2 | (uint64_t)(k))

struct slot {
    uint64_t state;
    uint32_t owner;      /* 1 while a thread holds the slot               */
    uint32_t size;       /* of the block at off                            */
    uint64_t off;        /* RESERVED, READY: the block's file offset      */
    uint8_t *ptr;        /* READY: where it is mapped                      */
    uint8_t *old;        /* a full block handed over to be unmapped       */
} __attribute__((aligned(64)));

/* Shared by the program and its supplier (one address space). */
static struct {
    struct slot slot[SLOTS];
    uint32_t nslots;     /* slots ever claimed: the supplier looks at these */
    uint32_t switches;   /* full-size block switches before the start     */
    int state;           /* 0 not started, 1 running, 2 none (stopped)    */
    int stop;            /* the program closed its trace                  */
    int sleeping;        /* the supplier waits on wake                    */
    uint32_t wake;       /* futex word                                    */
    struct ct_helper helper;  /* the supplier: the program's pid, its pidfd */
    void *stack;
} S;

/* ------------------------------------------------------------ supplier */

static int munmap_raw(void *p, size_t len)
{
    return (int)ct_rsys(SYS_munmap, (long)p, (long)len, 0, 0, 0, 0);
}

/* Grown and mapped by the file keeper (keeper.c), which holds the file's
 * one descriptor: a file removed or replaced is noticed there (by the
 * thread, which then finds nothing ready and asks the keeper itself). */
static uint8_t *map_block(uint64_t off, uint32_t size)
{
    void *m = NULL;
    if (ct_keeper_map(off, size, &m) != 0)
        return NULL;
    long p = (long)m;
    uint8_t *b = (uint8_t *)p;
    /* A fork while the block waits must not copy it; the thread that takes
     * it gives it back to fork (as every block of its own). */
    ct_rsys(SYS_madvise, p, size, MADV_DONTFORK, 0, 0, 0);
#ifdef MADV_POPULATE_WRITE
    if (ct_rsys(SYS_madvise, p, size, MADV_POPULATE_WRITE, 0, 0, 0) == 0)
        return b;
#endif
    for (uint32_t o = 0; o < size; o += CT_BLOCK_ALIGN)
        ((volatile uint8_t *)b)[o] = 0;
    return b;
}

/* A reservation that will never be used: given back when nothing was
 * reserved after it, else left as zero bytes (a block never started). */
static void give_back(uint64_t off, uint32_t size)
{
    uint64_t end = off + size;
    __atomic_compare_exchange_n(&ct_proc.next_off, &end, off, 0,
                                __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

/* Room for a block ahead: with CALLTRACE_LIMIT, none once the limit leaves
 * less than two blocks a thread, so the last blocks before it go to the
 * threads that fill them, as without the supplier. */
static int room_ahead(uint32_t size)
{
    uint64_t limit = ct_proc.cfg.limit;
    if (!limit)
        return 1;
    uint64_t cur = __atomic_load_n(&ct_proc.next_off, __ATOMIC_RELAXED);
    uint64_t n = __atomic_load_n(&S.nslots, __ATOMIC_RELAXED);
    return cur + (uint64_t)size * (2 * n + 2) <= limit;
}

/* Supplies the slot, in state s (WANT), one block.  -1: nothing done. */
static int supply(struct slot *sl, uint64_t s)
{
    uint32_t size = ct_proc.cfg.bufsize;
    uint64_t off;
    if (__atomic_load_n(&ct_proc.failed, __ATOMIC_RELAXED) ||
        !room_ahead(size) || ct_file_reserve(size, &off) < 0)
        return -1;
    sl->off = off;
    sl->size = size;
    uint64_t r = STATE(GEN(s), K_RESERVED);
    if (!__atomic_compare_exchange_n(&sl->state, &s, r, 0, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE)) {
        give_back(off, size);
        return -1;
    }
    uint8_t *p = map_block(off, size);
    if (!p) {
        /* The thread maps it itself and meets the failure, if it is one. */
        __atomic_store_n(&S.stop, 1, __ATOMIC_RELEASE);
        return -1;
    }
    sl->ptr = p;
    if (!__atomic_compare_exchange_n(&sl->state, &r, STATE(GEN(r), K_READY),
                                     0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        munmap_raw(p, size);  /* taken as RESERVED, or given up */
    return 0;
}

static int pass(void)
{
    int worked = 0;
    uint32_t n = __atomic_load_n(&S.nslots, __ATOMIC_ACQUIRE);
    for (uint32_t i = 0; i < n && !__atomic_load_n(&S.stop, __ATOMIC_ACQUIRE);
         i++) {
        struct slot *sl = &S.slot[i];
        uint8_t *old = __atomic_exchange_n(&sl->old, NULL, __ATOMIC_ACQ_REL);
        if (old) {
            munmap_raw(old, ((const struct ct_block_header *)old)->size);
            worked = 1;
        }
        uint64_t s = __atomic_load_n(&sl->state, __ATOMIC_ACQUIRE);
        if (KIND(s) == K_WANT && supply(sl, s) == 0)
            worked = 1;
    }
    return worked;
}

static int program_gone(void)
{
    return __atomic_load_n(&S.stop, __ATOMIC_ACQUIRE) ||
           ct_helper_program_gone(&S.helper);
}

static int supplier_main(void *arg)
{
    (void)arg;
    /* Nothing of the program's: a copy of its descriptors would keep its
     * pipes and files open. */
    ct_helper_close_others(&S.helper, -1);
    ct_rsys(SYS_prctl, PR_SET_NAME, (long)"calltrace-supply", 0, 0, 0, 0);
    while (!program_gone()) {
        if (pass())
            continue;
        uint32_t w = __atomic_load_n(&S.wake, __ATOMIC_SEQ_CST);
        __atomic_store_n(&S.sleeping, 1, __ATOMIC_SEQ_CST);
        if (!pass() && !program_gone()) {
            struct timespec ts = {0, NAP_NS};
            ct_rsys(SYS_futex, (long)&S.wake, FUTEX_WAIT_PRIVATE, w,
                    (long)&ts, 0, 0);
        }
        __atomic_store_n(&S.sleeping, 0, __ATOMIC_SEQ_CST);
    }
    ct_rsys(SYS_exit, 0, 0, 0, 0, 0, 0);
    return 0;
}

/* ------------------------------------------------------------- program */

static void start(void)
{
    /* A vfork child shares its parent's memory: the parent starts one. */
    if ((uint32_t)getpid() != ct_proc.pid)
        return;
    int expected = 0;
    if (!__atomic_compare_exchange_n(&S.state, &expected, 1, 0,
                                     __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
        return;
    void *stack = mmap(NULL, STACK_SIZE, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (stack == MAP_FAILED) {
        __atomic_store_n(&S.state, 2, __ATOMIC_RELEASE);
        return;
    }
    madvise(stack, STACK_SIZE, MADV_DONTFORK);
    S.stack = stack;
    /* Not the program's child, every signal blocked (helper.c). */
    S.helper.fn = supplier_main;
    S.helper.arg = NULL;
    S.helper.stack = stack;
    S.helper.stack_size = STACK_SIZE;
    if (ct_helper_start(&S.helper) != 0) {
        munmap(stack, STACK_SIZE);
        S.stack = NULL;
        __atomic_store_n(&S.state, 2, __ATOMIC_RELEASE);
    }
}

static struct slot *slot_of(struct ct_thread *t, int claim)
{
    if (t->supply_slot > 0)
        return &S.slot[t->supply_slot - 1];
    if (t->supply_slot < 0 || !claim)
        return NULL;
    for (uint32_t i = 0; i < SLOTS; i++) {
        struct slot *sl = &S.slot[i];
        uint32_t free_ = 0;
        if (!__atomic_compare_exchange_n(&sl->owner, &free_, 1, 0,
                                         __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
            continue;
        uint64_t s = __atomic_load_n(&sl->state, __ATOMIC_ACQUIRE);
        __atomic_store_n(&sl->state, STATE(GEN(s) + 1, K_WANT),
                         __ATOMIC_SEQ_CST);
        uint32_t n = __atomic_load_n(&S.nslots, __ATOMIC_RELAXED);
        while (n < i + 1 &&
               !__atomic_compare_exchange_n(&S.nslots, &n, i + 1, 1,
                                            __ATOMIC_RELEASE,
                                            __ATOMIC_RELAXED))
            ;
        t->supply_slot = (int32_t)i + 1;
        return sl;
    }
    t->supply_slot = -1;  /* more threads than slots: this one maps its own */
    return NULL;
}

static int active(void)
{
    return ct_proc.cfg.supplier && !ct_flight_slots && !ct_proc.streaming &&
           !__atomic_load_n(&S.stop, __ATOMIC_ACQUIRE);
}

/* Leaves the slot in WANT of the next generation; what it held (a block
 * mapped ahead, or one being mapped) is given up. */
static void give_up(struct slot *sl, unsigned kind)
{
    uint64_t s = __atomic_load_n(&sl->state, __ATOMIC_ACQUIRE);
    uint8_t *p;
    uint32_t size;
    do {
        p = sl->ptr;  /* before: the supplier may reuse them after */
        size = sl->size;
    } while (!__atomic_compare_exchange_n(&sl->state, &s,
                                          STATE(GEN(s) + 1, kind), 1,
                                          __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE));
    if (KIND(s) == K_READY)
        munmap(p, size);
}

void *ct_supply_take(struct ct_thread *t, uint32_t size, int *populated)
{
    *populated = 0;
    if (!active() || size != ct_proc.cfg.bufsize)
        return NULL;
    int st = __atomic_load_n(&S.state, __ATOMIC_ACQUIRE);
    if (st == 0) {
        /* A thread's first block does not count: a process of many
         * short threads is not one that writes much. */
        if (__atomic_load_n(&t->seq, __ATOMIC_RELAXED) > 0 &&
            __atomic_add_fetch(&S.switches, 1, __ATOMIC_RELAXED) >= START_AFTER)
            start();
        return NULL;
    }
    if (st != 1)
        return NULL;
    struct slot *sl = slot_of(t, 1);
    if (!sl)
        return NULL;
    uint64_t s = __atomic_load_n(&sl->state, __ATOMIC_ACQUIRE);
    uint8_t *p;
    uint64_t off;
    do {
        if (KIND(s) != K_READY && KIND(s) != K_RESERVED)
            return NULL;
        /* Read before the exchange: once the slot says WANT the supplier
         * may fill these in for the next block. */
        p = sl->ptr;
        off = sl->off;
    } while (!__atomic_compare_exchange_n(&sl->state, &s,
                                          STATE(GEN(s) + 1, K_WANT), 1,
                                          __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE));
    if (KIND(s) == K_RESERVED)
        return ct_file_map_at(off, size);  /* the supplier lags: map it here */
    madvise(p, size, MADV_DOFORK);
    *populated = 1;
    return p;
}

void ct_supply_own_block(struct ct_thread *t)
{
    struct slot *sl = slot_of(t, 0);
    if (sl)
        give_up(sl, K_WANT);
}

int ct_supply_retire(struct ct_thread *t, void *blk)
{
    struct slot *sl = slot_of(t, 0);
    if (!sl || __atomic_load_n(&S.state, __ATOMIC_ACQUIRE) != 1 ||
        __atomic_load_n(&S.stop, __ATOMIC_ACQUIRE))
        return -1;
    uint8_t *none = NULL;
    return __atomic_compare_exchange_n(&sl->old, &none, (uint8_t *)blk, 0,
                                       __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)
               ? 0 : -1;
}

void ct_supply_kick(void)
{
    if (__atomic_load_n(&S.state, __ATOMIC_ACQUIRE) != 1)
        return;
    __atomic_add_fetch(&S.wake, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&S.sleeping, __ATOMIC_SEQ_CST))
        ct_rsys(SYS_futex, (long)&S.wake, FUTEX_WAKE_PRIVATE, 1, 0, 0, 0);
}

void ct_supply_thread_end(struct ct_thread *t)
{
    struct slot *sl = slot_of(t, 0);
    if (!sl)
        return;
    give_up(sl, K_OFF);
    t->supply_slot = 0;
    __atomic_store_n(&sl->owner, 0, __ATOMIC_RELEASE);
}

void ct_supply_stop(void)
{
    if (__atomic_exchange_n(&S.stop, 1, __ATOMIC_ACQ_REL) ||
        __atomic_load_n(&S.state, __ATOMIC_ACQUIRE) != 1)
        return;
    ct_supply_kick();
    uint32_t n = __atomic_load_n(&S.nslots, __ATOMIC_ACQUIRE);
    for (uint32_t i = 0; i < n; i++)
        give_up(&S.slot[i], K_OFF);
}

void ct_supply_after_fork_child(void)
{
    /* The parent's blocks and the supplier's stack were not copied
     * (MADV_DONTFORK); the child starts its own supplier when it needs
     * one. */
    memset(&S, 0, sizeof S);
}
