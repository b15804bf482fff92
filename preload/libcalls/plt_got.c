/*
 * Library calls compiled with -fno-plt: `call *foo@GOTPCREL(%rip)` goes
 * through the GLOB_DAT slot of foo in the caller's GOT, with no PLT entry.
 * The same slot also serves `&foo` (mov foo@GOTPCREL(%rip), %reg), and a
 * stub there would change the function's address as the program sees it
 * (comparisons, pointers handed to others).  So a slot is patched only if
 * every instruction of the object that refers to it is an indirect call
 * or jump through it: the executable segments are scanned for each
 * rip-relative displacement that lands on a candidate slot, and the
 * ModRM byte before it tells `call *` (ff 15) and `jmp *` (ff 25) from
 * every other use.  Reading bytes that are not instructions can only find
 * more uses, never fewer, so a doubtful slot is left alone.
 */
#include <link.h>
#include <stdlib.h>
#include <string.h>

#include "preload/libcalls/plt.h"
#include "preload/libcalls/plt_got.h"
#include "preload/base/scratch.h"

static int cmp_use(const void *a, const void *b)
{
    const struct got_use *x = a, *y = b;
    return x->got < y->got ? -1 : x->got > y->got;
}

static struct got_use *find_use(struct got_use *u, size_t n, uintptr_t got)
{
    struct got_use key = {.got = got};
    return bsearch(&key, u, n, sizeof *u, cmp_use);
}

/* A displacement ends the instruction, or is followed by an immediate of
 * 1, 2 or 4 bytes: the slot it names is then that much further. */
static const unsigned imm_sizes[] = {0, 1, 2, 4};

static void scan_segment(const uint8_t *lo, const uint8_t *hi,
                         struct got_use *u, size_t n)
{
    uintptr_t first = u[0].got, last = u[n - 1].got;
    for (const uint8_t *p = lo + 2; p + 4 <= hi; p++) {
        int32_t disp;
        memcpy(&disp, p, 4);
        uintptr_t t0 = (uintptr_t)p + 4 + (intptr_t)disp;
        if (t0 > last || t0 + 4 < first)
            continue;  /* the common case: nowhere near the GOT */
        for (size_t k = 0; k < sizeof imm_sizes / sizeof *imm_sizes; k++) {
            uintptr_t t = t0 + imm_sizes[k];
            if (t < first || t > last)
                continue;
            struct got_use *g = find_use(u, n, t);
            if (!g)
                continue;
            if (k == 0 && p[-2] == 0xff && (p[-1] == 0x15 || p[-1] == 0x25))
                g->called = 1;
            else
                g->other = 1;
        }
    }
}

void ct_got_classify(const struct dl_phdr_info *info, struct got_use *u,
                     size_t n)
{
    if (n == 0)
        return;
    ct_sort(u, n, sizeof *u, cmp_use);
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X) ||
            !(ph->p_flags & PF_R))
            continue;
        const uint8_t *lo = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
        scan_segment(lo, lo + ph->p_filesz, u, n);
    }
}

int ct_got_never_patched(const char *name)
{
    /* Running already and never returning, or only tested for. */
    static const char *const names[] = {
        "__libc_start_main", "__cxa_finalize", "__gmon_start__",
        "_ITM_registerTMCloneTable", "_ITM_deregisterTMCloneTable",
    };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strcmp(name, names[i]) == 0)
            return 1;
    return ct_plt_never_patched(name);
}
