/*
 * Stack walks of perf_event samples: the registers and the copy of the
 * user stack that the kernel wrote into a thread's ring (sample_perf.c),
 * unwound later by the sampler's own thread, never inside the program's.
 *
 * libunwind's remote interface (libunwind-x86_64.so.8, loaded by dlopen
 * like the local one) walks an address space given by accessors:
 *   - registers come from the sample;
 *   - memory inside the copied stack comes from the copy;
 *   - other memory is read in place only inside a loaded object's
 *     readable segments (the unwind tables), listed with dl_iterate_phdr
 *     while no dlclose can run (sample.c's loader guard); anything else
 *     (the live stack beyond the copy, a wild pointer) is refused, so a
 *     bad frame ends the walk instead of faulting;
 *   - finding the unwind table of a pc is libunwind's own local lookup
 *     (the objects are this process's), which reads the tables through
 *     the accessors above.
 * Most samples never get here: sample_cfi.c walks the frames whose rules
 * are the common ones, and this walk takes the samples it cannot.
 */
#include <dlfcn.h>
#include <libunwind.h>
#include <link.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "preload/control/tracer_config.h"
#include "preload/file/tracer_file.h"
#include "preload/libcalls/plt.h"
#include "preload/sampling/sample.h"
#include "preload/sampling/sample_cfi.h"

#ifndef CT_LIBUNWIND_REMOTE_SONAME
#define CT_LIBUNWIND_REMOTE_SONAME "libunwind-x86_64.so.8"
#endif

#define SYMBOL(name) SYMBOL_(name)
#define SYMBOL_(name) #name

static struct {
    __typeof__(unw_create_addr_space) *create_addr_space;
    __typeof__(unw_get_accessors) *get_accessors;
    __typeof__(unw_init_remote) *init_remote;
    __typeof__(unw_step) *step;
    __typeof__(unw_get_reg) *get_reg;
    __typeof__(unw_set_reg) *set_reg;
    __typeof__(unw_set_caching_policy) *set_caching_policy;
    __typeof__(unw_flush_cache) *flush_cache;
    unw_addr_space_t *local_as;
} ru;
static unw_addr_space_t g_as;
/* libunwind's stack copy (below, libunwind_walk), mapped by prepare. */
static uint8_t *g_scratch;

/* Readable segments of the loaded objects: where memory outside the stack
 * copy may be read.  Mapped when first filled, not in .bss: 64 KiB of
 * every traced process's address space for the sampling mode alone. */
#define MAX_SEGS 4096
static struct seg {
    uintptr_t lo, hi;
} *g_segs;
static unsigned g_nsegs;

struct walk {
    const struct ct_perf_regs *regs;
    uint8_t *stack;       /* g_scratch: libunwind may write a return
                           * address into it (set_reg of a frame's pc) */
    uintptr_t stack_lo;
    size_t stack_len;
    size_t used;          /* the copy's bytes read up to                */
    int beyond;           /* a read past the copy's end was refused     */
};

static int readable(uintptr_t addr, size_t len)
{
    unsigned lo = 0, hi = g_nsegs;
    while (lo < hi) {   /* the last segment starting at or below addr */
        unsigned mid = (lo + hi) / 2;
        if (g_segs[mid].lo <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo > 0 && addr + len <= g_segs[lo - 1].hi &&
           addr + len > addr;
}

static int access_mem(unw_addr_space_t as, unw_word_t addr, unw_word_t *val,
                      int write, void *arg)
{
    (void)as;
    struct walk *w = arg;
    if (addr >= w->stack_lo && addr - w->stack_lo + sizeof *val <= w->stack_len) {
        size_t end = addr - w->stack_lo + sizeof *val;
        w->used = end > w->used ? end : w->used;
        if (write)
            memcpy(w->stack + (addr - w->stack_lo), val, sizeof *val);
        else
            memcpy(val, w->stack + (addr - w->stack_lo), sizeof *val);
        return 0;
    }
    if (write || !readable((uintptr_t)addr, sizeof *val)) {
        if (ct_sample_past_copy((uintptr_t)addr, w->stack_lo, w->stack_len))
            w->beyond = 1;
        return -UNW_EINVAL;
    }
    memcpy(val, (const void *)(uintptr_t)addr, sizeof *val);
    return 0;
}

static int access_reg(unw_addr_space_t as, unw_regnum_t reg, unw_word_t *val,
                      int write, void *arg)
{
    (void)as;
    const struct walk *w = arg;
    if (write)
        return -UNW_EREADONLYREG;
    if (reg < 0 || reg > UNW_X86_64_RIP)
        return -UNW_EBADREG;
    *val = w->regs->r[reg];
    return 0;
}

static int access_fpreg(unw_addr_space_t as, unw_regnum_t reg,
                        unw_fpreg_t *val, int write, void *arg)
{
    (void)as, (void)reg, (void)val, (void)write, (void)arg;
    return -UNW_EBADREG;
}

static int resume(unw_addr_space_t as, unw_cursor_t *c, void *arg)
{
    (void)as, (void)c, (void)arg;
    return -UNW_EINVAL;
}

static int get_proc_name(unw_addr_space_t as, unw_word_t addr, char *buf,
                         size_t len, unw_word_t *off, void *arg)
{
    (void)as, (void)addr, (void)buf, (void)len, (void)off, (void)arg;
    return -UNW_ENOINFO;
}

int ct_sample_remote_load(void)
{
#if defined(__x86_64__)
    if (ru.local_as)
        return 0;
    void *(*real_dlopen)(const char *, int) =
        (void *(*)(const char *, int))dlsym(RTLD_NEXT, "dlopen");
    void *h = real_dlopen ? real_dlopen(CT_LIBUNWIND_REMOTE_SONAME,
                                        RTLD_NOW | RTLD_LOCAL) : NULL;
    if (!h || ct_unwind_fds_off(h) < 0)
        return -1;
    ru.create_addr_space = (__typeof__(ru.create_addr_space))
        dlsym(h, SYMBOL(unw_create_addr_space));
    ru.get_accessors = (__typeof__(ru.get_accessors))
        dlsym(h, SYMBOL(unw_get_accessors));
    ru.init_remote = (__typeof__(ru.init_remote))dlsym(h, SYMBOL(unw_init_remote));
    ru.step = (__typeof__(ru.step))dlsym(h, SYMBOL(unw_step));
    ru.get_reg = (__typeof__(ru.get_reg))dlsym(h, SYMBOL(unw_get_reg));
    ru.set_reg = (__typeof__(ru.set_reg))dlsym(h, SYMBOL(unw_set_reg));
    ru.set_caching_policy = (__typeof__(ru.set_caching_policy))
        dlsym(h, SYMBOL(unw_set_caching_policy));
    ru.flush_cache = (__typeof__(ru.flush_cache))dlsym(h, SYMBOL(unw_flush_cache));
    ru.local_as = (unw_addr_space_t *)dlsym(h, SYMBOL(unw_local_addr_space));
    if (!ru.create_addr_space || !ru.get_accessors || !ru.init_remote ||
        !ru.step || !ru.get_reg || !ru.set_reg || !ru.set_caching_policy ||
        !ru.flush_cache || !ru.local_as) {
        ru.local_as = NULL;
        return -1;
    }
    return 0;
#else
    return -1;
#endif
}

int ct_sample_remote_prepare(void)
{
#if defined(__x86_64__)
    if (g_as)
        return 0;
    if (ct_sample_remote_load() != 0)
        return -1;
    /* The local address space's lookup of unwind tables (this process's
     * objects through dl_iterate_phdr); memory and registers are ours. */
    unw_accessors_t acc = *ru.get_accessors(*ru.local_as);
    acc.access_mem = access_mem;
    acc.access_reg = access_reg;
    acc.access_fpreg = access_fpreg;
    acc.resume = resume;
    acc.get_proc_name = get_proc_name;
    void *m = mmap(NULL, CT_SAMPLE_STACK_MAX, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return -1;
    g_scratch = m;
    g_as = ru.create_addr_space(&acc, 0);
    if (!g_as)
        return -1;
    ru.set_caching_policy(g_as, UNW_CACHE_GLOBAL);
    return 0;
#else
    return -1;
#endif
}

static int add_segments(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size, (void)data;
    for (int i = 0; i < info->dlpi_phnum && g_nsegs < MAX_SEGS; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_R))
            continue;
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        g_segs[g_nsegs].lo = lo;
        g_segs[g_nsegs].hi = lo + ph->p_filesz; /* beyond it: maybe unmapped */
        g_nsegs++;
    }
    return 0;
}

static int seg_order(const void *a, const void *b)
{
    const struct seg *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

void ct_sample_remote_objects_changed(
    int (*iterate)(int (*)(struct dl_phdr_info *, size_t, void *), void *))
{
    if (!g_as)
        return;
    g_nsegs = 0;
    if (!g_segs) {
        void *m = mmap(NULL, MAX_SEGS * sizeof *g_segs, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED)
            return; /* none known: only the stack copy is read */
        g_segs = m;
    }
    iterate(add_segments, NULL);
    qsort(g_segs, g_nsegs, sizeof g_segs[0], seg_order);
    ru.flush_cache(g_as, 0, 0);
    ct_cfi_objects_changed(iterate, readable);
}

/* The thread's library-call frames are its live ones, read at the walk,
 * not at the sample: a call that has returned since is no longer there.
 * Within one sample both walks (check mode) get the same answers. */
static struct {
    uintptr_t sp, ret;
} g_seen[8];
static unsigned g_nseen;

static uintptr_t real_return_of(const void *plt_slot, uintptr_t sp)
{
    for (unsigned i = 0; i < g_nseen; i++)
        if (g_seen[i].sp == sp)
            return g_seen[i].ret;
    uintptr_t ret = ct_plt_real_return_of(plt_slot, sp);
    if (g_nseen < sizeof g_seen / sizeof g_seen[0])
        g_seen[g_nseen++] = (__typeof__(g_seen[0])){sp, ret};
    return ret;
}

/* A frame returning through the library-call trampoline: its caller's
 * real return address, from that thread's library-call frames (see
 * sample_unwind.c, real_return). */
static unw_word_t real_return(unw_cursor_t *cursor, const void *plt_slot)
{
    unw_word_t sp;
    uintptr_t ret;
    if (ru.get_reg(cursor, UNW_REG_SP, &sp) < 0 ||
        !(ret = real_return_of(plt_slot, (uintptr_t)sp)) ||
        ru.set_reg(cursor, UNW_REG_IP, (unw_word_t)ret) < 0)
        return (unw_word_t)(uintptr_t)ct_plt_return;
    return (unw_word_t)ret;
}

/* CALLTRACE_SAMPLE_UNWIND: fast (sample_cfi.c, libunwind where it cannot),
 * libunwind (every sample), check (both, libunwind's kept, the differences
 * counted). */
enum { UNWIND_FAST, UNWIND_LIBUNWIND, UNWIND_CHECK };
static int g_unwind;
static _Atomic uint64_t st_walks, st_checked, st_differ;

void ct_sample_remote_choose(void)
{
    const char *v = ct_env_get("CALLTRACE_SAMPLE_UNWIND");
    g_unwind = UNWIND_FAST;
    if (v && strcmp(v, "libunwind") == 0)
        g_unwind = UNWIND_LIBUNWIND;
    else if (v && strcmp(v, "check") == 0)
        g_unwind = UNWIND_CHECK;
    else if (v && *v && strcmp(v, "fast") != 0)
        ct_message("calltrace: CALLTRACE_SAMPLE_UNWIND=%s is not fast, "
                   "libunwind or check: using fast", v);
}

int ct_sample_remote_stats(uint64_t *walks, uint64_t *checked, uint64_t *differ)
{
    *walks = atomic_load(&st_walks);
    *checked = atomic_load(&st_checked);
    *differ = atomic_load(&st_differ);
    return g_unwind == UNWIND_CHECK;
}

static unsigned libunwind_walk(const struct ct_perf_regs *regs,
                               const uint8_t *stack, size_t stack_len,
                               const void *plt_slot,
                               uintptr_t *pcs, unsigned max, size_t *need);

unsigned ct_sample_remote_unwind(const struct ct_perf_regs *regs,
                                 const uint8_t *stack, size_t stack_len,
                                 const void *plt_slot,
                                 uintptr_t *pcs, unsigned max, size_t *need)
{
    atomic_fetch_add_explicit(&st_walks, 1, memory_order_relaxed);
    g_nseen = 0;
    if (max == 0 || !g_as)
        return libunwind_walk(regs, stack, stack_len, plt_slot, pcs, max, need);
    int mode = g_unwind;
    if (mode == UNWIND_LIBUNWIND)
        return libunwind_walk(regs, stack, stack_len, plt_slot, pcs, max, need);
    unsigned n = ct_cfi_walk(regs, stack, stack_len, (uintptr_t)ct_plt_return,
                             real_return_of, plt_slot, pcs, max, need);
    if (n == 0)
        return libunwind_walk(regs, stack, stack_len, plt_slot, pcs, max, need);
    if (mode != UNWIND_CHECK)
        return n;
    uintptr_t fast[CT_SAMPLE_MAX_DEPTH];
    unsigned nf = n < CT_SAMPLE_MAX_DEPTH ? n : CT_SAMPLE_MAX_DEPTH;
    memcpy(fast, pcs, nf * sizeof fast[0]);
    n = libunwind_walk(regs, stack, stack_len, plt_slot, pcs, max, need);
    atomic_fetch_add_explicit(&st_checked, 1, memory_order_relaxed);
    if (n != nf || memcmp(fast, pcs, n * sizeof pcs[0]) != 0)
        atomic_fetch_add_explicit(&st_differ, 1, memory_order_relaxed);
    return n;
}

static unsigned libunwind_walk(const struct ct_perf_regs *regs,
                               const uint8_t *stack, size_t stack_len,
                               const void *plt_slot,
                               uintptr_t *pcs, unsigned max, size_t *need)
{
    *need = 0;   /* not known */
    if (max == 0)
        return 0;
    pcs[0] = (uintptr_t)regs->r[UNW_X86_64_RIP];
    if (!g_as || !g_scratch)
        return 1;
    /* A copy of ours: the sample is read in place in the perf ring, whose
     * data pages a write would fault on (SIGBUS), and libunwind writes a
     * frame's pc into its stack slot when the library-call trampoline's
     * return address is replaced by the real one. */
    if (stack_len > CT_SAMPLE_STACK_MAX)
        stack_len = CT_SAMPLE_STACK_MAX;
    memcpy(g_scratch, stack, stack_len);
    struct walk w = {regs, g_scratch, (uintptr_t)regs->r[UNW_X86_64_RSP],
                     stack_len, 0, 0};
    unw_cursor_t cursor;
    if (ru.init_remote(&cursor, g_as, &w) < 0)
        return 1;
    unsigned n = 1;
    while (n < max && ru.step(&cursor) > 0) {
        unw_word_t ip;
        if (ru.get_reg(&cursor, UNW_REG_IP, &ip) < 0 || ip == 0)
            break;
        if (ip == (unw_word_t)(uintptr_t)ct_plt_return)
            ip = real_return(&cursor, plt_slot);
        pcs[n++] = (uintptr_t)ip;
    }
    *need = w.beyond ? SIZE_MAX : w.used;
    return n;
}
