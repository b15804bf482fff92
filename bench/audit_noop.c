/*
 * The LD_AUDIT way of seeing library calls (bench/libcalls.sh): a lower
 * bound of what a tracer built on la_pltenter/la_pltexit would cost.
 * Every binding from every object is audited, and a non-negative frame
 * size asks ld.so for the exit callback too.  Built plain, the callbacks
 * do nothing; with -DRECORD each reads the TSC and stores it with the
 * symbol into a ring buffer, about what recording the event takes; with
 * -DCOUNT it counts the callbacks and prints the counts at exit (to see
 * which calls the audit interface misses: all of them under LD_BIND_NOW=1).
 */
#define _GNU_SOURCE
#include <link.h>
#include <stdint.h>
#include <x86intrin.h>

#if defined(COUNT)
#include <stdio.h>
static long seen;
static void record(uint64_t what)
{
    (void)what;
    __atomic_fetch_add(&seen, 1, __ATOMIC_RELAXED);
}
__attribute__((destructor)) static void print_count(void)
{
    fprintf(stderr, "audit callbacks: %ld\n", seen);
}
#elif defined(RECORD)
static uint64_t ring[8192];
static unsigned pos;
static void record(uint64_t what)
{
    ring[pos++ % 8192] = __rdtsc() ^ what;
}
#else
static void record(uint64_t what)
{
    (void)what;
}
#endif

unsigned int la_version(unsigned int v)
{
    (void)v;
    return LAV_CURRENT;
}

unsigned int la_objopen(struct link_map *map, Lmid_t lmid, uintptr_t *cookie)
{
    (void)map;
    (void)lmid;
    (void)cookie;
    return LA_FLG_BINDTO | LA_FLG_BINDFROM;
}

ElfW(Addr) la_x86_64_gnu_pltenter(ElfW(Sym) *sym, unsigned int ndx,
                                  uintptr_t *refcook, uintptr_t *defcook,
                                  La_x86_64_regs *regs, unsigned int *flags,
                                  const char *symname, long *framesizep)
{
    (void)ndx;
    (void)refcook;
    (void)defcook;
    (void)regs;
    (void)flags;
    (void)symname;
    *framesizep = 64;
    record(sym->st_value);
    return sym->st_value;
}

unsigned int la_x86_64_gnu_pltexit(ElfW(Sym) *sym, unsigned int ndx,
                                   uintptr_t *refcook, uintptr_t *defcook,
                                   const La_x86_64_regs *in,
                                   La_x86_64_retval *out, const char *name)
{
    (void)sym;
    (void)ndx;
    (void)refcook;
    (void)defcook;
    (void)in;
    (void)out;
    (void)name;
    record((uint64_t)(uintptr_t)sym);
    return 0;
}
