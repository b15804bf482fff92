/*
 * The segments of the objects loaded at start (stable_mem.h),
 * kept in a small table that is written once, at start, and never
 * changed: each entry is in place before the count that shows it is
 * stored (release), so a reader needs no lock.
 */
#include <link.h>

#include "preload/base/stable_mem.h"

/* Segments kept at most; past them a string is read by a system call, as
 * before.  A program with its libraries has four or so per object. */
#define MAX_SEGS 256

static struct seg {
    uintptr_t lo, hi;
} segs[MAX_SEGS];
static uint32_t nsegs;

static int note_object(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size, (void)arg;
    uint32_t n = nsegs;
    for (uint16_t i = 0; i < info->dlpi_phnum && n < MAX_SEGS; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_R) || !ph->p_memsz)
            continue;
        /* A read-only segment: only the bytes the file maps (the pages
         * past them are as readable, but nothing is there to read).  A
         * writable one to its end: its .bss past the file's bytes is
         * mapped by the loader, zeroed. */
        segs[n].lo = info->dlpi_addr + ph->p_vaddr;
        segs[n].hi = info->dlpi_addr + ph->p_vaddr +
                     ((ph->p_flags & PF_W) ? ph->p_memsz : ph->p_filesz);
        __atomic_store_n(&nsegs, ++n, __ATOMIC_RELEASE);
    }
    return 0;
}

void ct_stable_mem_note(void)
{
    if (!nsegs)
        dl_iterate_phdr(note_object, NULL);
}

size_t ct_stable_span(uintptr_t addr, size_t n)
{
    uint32_t count = __atomic_load_n(&nsegs, __ATOMIC_ACQUIRE);
    for (uint32_t i = 0; i < count; i++)
        if (addr >= segs[i].lo && addr < segs[i].hi) {
            size_t left = segs[i].hi - addr;
            return left < n ? left : n;
        }
    return 0;
}
