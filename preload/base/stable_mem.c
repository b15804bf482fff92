/*
 * The segments of the objects loaded at start (stable_mem.h),
 * kept in a small table sorted by address, which is written once, at
 * start, and never changed: the table is filled and sorted before the
 * count that shows it is stored (release), so a reader needs no lock,
 * and a look-up (at every string a rule keeps, found there or not) is a
 * binary search.
 */
#include <link.h>

#include "preload/base/stable_mem.h"

/* Segments kept at most; past them a string is read by a system call, as
 * before.  A program with its libraries has four or so per object. */
#define MAX_SEGS 256

struct seg {
    uintptr_t lo, hi;
};
static struct seg segs[MAX_SEGS];
static uint32_t nsegs;

/* The table being filled, before it is shown. */
struct filling {
    struct seg *s;
    uint32_t n;
};

static int note_object(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct filling *f = arg;
    uint32_t n = f->n;
    for (uint16_t i = 0; i < info->dlpi_phnum && n < MAX_SEGS; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_R) || !ph->p_memsz)
            continue;
        /* A read-only segment: only the bytes the file maps (the pages
         * past them are as readable, but nothing is there to read).  A
         * writable one to its end: its .bss past the file's bytes is
         * mapped by the loader, zeroed. */
        f->s[n].lo = info->dlpi_addr + ph->p_vaddr;
        f->s[n].hi = info->dlpi_addr + ph->p_vaddr +
                     ((ph->p_flags & PF_W) ? ph->p_memsz : ph->p_filesz);
        f->n = ++n;
    }
    return 0;
}

void ct_stable_mem_note(void)
{
    if (__atomic_load_n(&nsegs, __ATOMIC_ACQUIRE))
        return;
    struct filling f = {segs, 0};
    dl_iterate_phdr(note_object, &f);
    for (uint32_t i = 1; i < f.n; i++)  /* a few dozen: insertion */
        for (uint32_t j = i; j > 0 && segs[j].lo < segs[j - 1].lo; j--) {
            struct seg x = segs[j];
            segs[j] = segs[j - 1];
            segs[j - 1] = x;
        }
    __atomic_store_n(&nsegs, f.n, __ATOMIC_RELEASE);
}

/* The segment of the latest text found, looked at first: a program's
 * strings mostly come from one or two segments.  Written only when it
 * changes, so threads that find their texts in one segment share the
 * line without writing it. */
static uint32_t hint;

size_t ct_stable_span(uintptr_t addr, size_t n)
{
    uint32_t count = __atomic_load_n(&nsegs, __ATOMIC_ACQUIRE);
    uint32_t h = __atomic_load_n(&hint, __ATOMIC_RELAXED);
    if (h < count && addr >= segs[h].lo && addr < segs[h].hi) {
        size_t left = segs[h].hi - addr;
        return left < n ? left : n;
    }
    /* the last segment that starts at or below addr: the only one that
     * may hold it (segments do not overlap) */
    uint32_t lo = 0, hi = count;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (segs[mid].lo <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (!lo || addr >= segs[lo - 1].hi)
        return 0;
    __atomic_store_n(&hint, lo - 1, __ATOMIC_RELAXED);
    size_t left = segs[lo - 1].hi - addr;
    return left < n ? left : n;
}
