/*
 * The stubs' slots, one per GOT slot patched: where each call goes, its
 * PLT entry (the function in the records), its lazy-binding state and
 * its name.  Shared by the run time of library calls (plt.c: the stubs'
 * C, each thread's open calls) and the patching of loaded objects
 * (plt_patch.c).  Private to preload/libcalls/.
 */
#ifndef CT_PLT_SLOTS_H
#define CT_PLT_SLOTS_H

#include <pthread.h>
#include <stdint.h>

#include "preload/libcalls/plt.h"

#pragma GCC visibility push(hidden)

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
    uint32_t args_keeps;  /* what that rule keeps (CT_ARGS_KEEPS_*): a call
                           * or a return that keeps nothing does not call
                           * args.c at all                                 */
};

/* plt_slot.lazy: may the lazy resolver still write the GOT slot? */
#define LAZY_NO 0        /* bound when patched                            */
#define LAZY_MAYBE 1     /* points into its own object: maybe the resolver */
#define LAZY_PENDING 2   /* called: on the pending list until checked     */

/* Slots in chunks mapped as they are needed (under plt_patch_lock, before
 * the slot is counted in plt_nslots): whole tables in .bss took 384 KiB of
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
extern struct slot_chunk *plt_slot_chunks[CT_PLT_MAX_SLOTS / SLOT_CHUNK];
/* Each slot's target where a call may skip the recording altogether
 * (plt_tramp.S, while tracing is off), 0 where it may not: a slot the
 * lazy resolver may still write must go through ct_plt_enter, which
 * notices the write and puts the stub back.  Mapped with the first
 * slot: a program traced without library calls has no 64 KiB of it. */
extern uintptr_t *ct_plt_direct;
extern uint32_t plt_nslots;
#define SLOT(i) (plt_slot_chunks[(i) / SLOT_CHUNK]->slot[(i) % SLOT_CHUNK])
#define SLOT_NAME(i) (plt_slot_chunks[(i) / SLOT_CHUNK]->name[(i) % SLOT_CHUNK])
#define SLOT_MARK(i) (plt_slot_chunks[(i) / SLOT_CHUNK]->mark[(i) % SLOT_CHUNK])

/* Maps the chunk of slot i if it is not yet: 0, or -1 without memory. */
int plt_slot_chunk_get(uint32_t i);
/* A slot's lazy state (LAZY_*), and its direct target for calls that
 * skip the recording, published after a change (plt.c). */
void plt_set_lazy(uint32_t slot, uint32_t v);
void plt_publish(uint32_t slot);
/* The link map for slots of an object whose GOT is pltgot, when the
 * tracer can bind them itself; else NULL (plt.c). */
void *plt_binding_map(const uintptr_t *pltgot);
/* A thread's open library calls go with it (the key's destructor). */
void plt_thread_free(void *arg);

/* CALLTRACE_LIBCALLS's mode; the slots' lock and whether a full table
 * was told; the key whose destructor frees a thread's calls. */
extern int plt_mode;
extern int plt_slots_full_reported;
extern pthread_mutex_t plt_patch_lock;
extern pthread_key_t plt_key;
extern int plt_key_ok;

static inline uintptr_t plt_stub_addr(uint32_t slot)
{
    return (uintptr_t)ct_plt_stubs + (uintptr_t)slot * STUB_SIZE;
}

static inline int plt_is_stub(uintptr_t a)
{
    return a >= (uintptr_t)ct_plt_stubs &&
           a < (uintptr_t)ct_plt_stubs + (uintptr_t)CT_PLT_MAX_SLOTS * STUB_SIZE;
}

#pragma GCC visibility pop

#endif /* CT_PLT_SLOTS_H */
