/*
 * The patchable-entry mode: a program built with
 * -fpatchable-function-entry=5,0 (`calltrace cflags --patchable`) has five
 * NOP bytes at the entry of every function, and their addresses in its
 * __patchable_function_entries section.  At start each of the main
 * program's is patched into a call of a near stub that jumps to
 * ct_patch_entry (patch_tramp.S): the call is recorded with the hot path's
 * hook (ct_enter_at), and the function's return address is swapped for
 * ct_patch_return and kept on a per-thread stack of the tracer's, so the
 * return is recorded too (__cyg_profile_func_exit).  The trace is the
 * -finstrument-functions mode's, with CT_FILE_PATCHED in its header.
 *
 * Frames a longjmp skips are forgotten when a later call or return finds
 * them below it (their ends are the hooks' business, as in the other
 * mode: jump.c); an unwinder (a C++ exception, pthread_exit) first gets
 * the real return addresses back (ct_patch_disarm, from plt_unwind.c), so
 * it never meets the trampoline, and a catch (ct_patch_rearm, from
 * plt.c's ct_plt_rearm) swaps them again in the frames still running.
 *
 * This first version patches only at start, while one thread runs, and
 * only the main program; text pages are writable only while patched.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <unistd.h>

#include "preload/base/budget.h"
#include "preload/patch/patch.h"
#include "preload/tracer.h"

#define SLED 5u
#define PATCH_FRAMES 4096u

struct pframe {
    uintptr_t slot;   /* where the function's return address is         */
    uintptr_t ret;    /* the return address itself                      */
    uintptr_t fn;
};

struct pstack {
    uint32_t n;
    uint32_t busy;    /* an entry is being pushed: a signal handler's
                         calls push above it and forget nothing        */
    struct pframe f[PATCH_FRAMES];
};

static __thread struct pstack *pstk __attribute__((tls_model("initial-exec")));
int ct_patch_active;
static uintptr_t text_lo;  /* the main program's text: its first byte   */

void ct_patch_entry(void);
void ct_patch_return(void);

/* The calling thread's stack of patched frames, mapped at its first
 * patched call and counted in the tracer's address-space budget (96 KiB:
 * under a limit with no room the call is counted lost). */
static struct pstack *pstack_get(void)
{
    if (ct_likely(pstk != NULL))
        return pstk;
    if (!ct_budget_fit(sizeof(struct pstack), sizeof(struct pstack)))
        return NULL;
    void *m = mmap(NULL, sizeof(struct pstack), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return NULL;
    ct_budget_add((int64_t)sizeof(struct pstack));
    pstk = m;
    return m;
}

void ct_patch_thread_release(void)
{
    struct pstack *ps = pstk;
    if (!ps)
        return;
    pstk = NULL;
    ct_signal_fence();
    munmap(ps, sizeof *ps);
    ct_budget_add(-(int64_t)sizeof *ps);
}

/* The function's address: its entry, or the endbr64 before the NOPs. */
static uintptr_t function_of(uintptr_t body)
{
    uintptr_t sled = body - SLED;
    uint32_t before;
    if (sled < text_lo + 4)
        return sled;
    memcpy(&before, (const void *)(sled - 4), 4);
    return before == 0xfa1e0ff3u ? sled - 4 : sled;
}

void ct_patch_enter(uintptr_t body, uintptr_t *slot)
{
    int saved = errno;
    struct pstack *ps = pstack_get();
    uintptr_t fn = function_of(body);
    if (!ps) {
        ct_count_lost_global(1);
        goto out;
    }
    int nested = ps->busy;
    ps->busy = 1;
    ct_signal_fence();
    uint32_t n = ps->n;
    /* Frames at or below this one's slot on this stack are gone (a
     * longjmp left them): forgotten.  Not by a signal handler that
     * interrupted a push, which might take the entry being made. */
    while (!nested && n > 0 && ps->f[n - 1].slot <= (uintptr_t)slot &&
           ct_same_stack(ps->f[n - 1].slot, (uintptr_t)slot))
        n--;
    if (n >= PATCH_FRAMES) {
        ps->n = n;
        ps->busy = nested;
        ct_count_lost_global(1);
        goto out;
    }
    /* The slot is taken before it is filled: a signal handler that
     * interrupts here pushes above it. */
    ps->n = n + 1;
    ct_signal_fence();
    ps->f[n] = (struct pframe){(uintptr_t)slot, *slot, fn};
    ct_signal_fence();
    ps->busy = nested;
    *slot = (uintptr_t)ct_patch_return;
    ct_enter_at((void *)fn, (void *)ps->f[n].ret, (uintptr_t)slot);
out:
    errno = saved;
}

uintptr_t ct_patch_leave(uintptr_t sp)
{
    int saved = errno;
    struct pstack *ps = pstk;
    uintptr_t slot = sp - 8;
    uint32_t k = ps->n;
    /* The newest frame of this slot; those above it were left. */
    while (k > 0 && ps->f[k - 1].slot != slot)
        k--;
    if (ct_unlikely(k == 0)) {
        /* Cannot be: only a frame on this stack returns here. */
        ct_message("calltrace: patched return with no frame; aborting");
        abort();
    }
    struct pframe fr = ps->f[k - 1];
    ps->n = k - 1;
    __cyg_profile_func_exit((void *)fr.fn, (void *)fr.ret);
    errno = saved;
    return fr.ret;
}

void ct_patch_disarm(void)
{
    struct pstack *ps = pstk;
    if (!ct_patch_active || !ps)
        return;
    /* Newest first: a slot a later frame reused is put back once. */
    for (uint32_t i = ps->n; i-- > 0;) {
        uintptr_t *slot = (uintptr_t *)ps->f[i].slot;
        if (*slot == (uintptr_t)ct_patch_return)
            *slot = ps->f[i].ret;
    }
}

void ct_patch_rearm(uintptr_t sp)
{
    struct pstack *ps = pstk;
    if (!ct_patch_active || !ps)
        return;
    uint32_t n = ps->n;
    while (n > 0 && ps->f[n - 1].slot < sp)
        n--;  /* unwound */
    ps->n = n;
    for (uint32_t i = 0; i < n; i++) {
        uintptr_t *slot = (uintptr_t *)ps->f[i].slot;
        if (*slot == ps->f[i].ret)
            *slot = (uintptr_t)ct_patch_return;
    }
}

/* ------------------------------------------------------------ patching */

struct sleds {
    const uintptr_t *at;   /* the section, as loaded (relocated)          */
    size_t n;
    int hooks;             /* also built with -finstrument-functions      */
};

/* The main program's __patchable_function_entries, from its file. */
static int find_sleds(const char *path, uintptr_t base, struct sleds *out)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    struct stat st;
    void *img = MAP_FAILED;
    if (fstat(fd, &st) == 0 && (size_t)st.st_size > sizeof(Elf64_Ehdr))
        img = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (img == MAP_FAILED)
        return -1;
    const Elf64_Ehdr *eh = img;
    size_t len = (size_t)st.st_size;
    int rc = -1;
    if (memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_shentsize != sizeof(Elf64_Shdr) ||
        eh->e_shoff + (size_t)eh->e_shnum * sizeof(Elf64_Shdr) > len ||
        eh->e_shstrndx >= eh->e_shnum)
        goto done;
    const Elf64_Shdr *sh = (const Elf64_Shdr *)((const char *)img + eh->e_shoff);
    const Elf64_Shdr *strs = &sh[eh->e_shstrndx];
    if (strs->sh_offset + strs->sh_size > len)
        goto done;
    const char *names = (const char *)img + strs->sh_offset;
    for (uint16_t i = 0; i < eh->e_shnum; i++) {
        if (sh[i].sh_name >= strs->sh_size)
            continue;
        const char *name = names + sh[i].sh_name;
        if (!strncmp(name, "__patchable_function_entries",
                     strs->sh_size - sh[i].sh_name) && sh[i].sh_addr) {
            out->at = (const uintptr_t *)(base + sh[i].sh_addr);
            out->n = sh[i].sh_size / sizeof(uintptr_t);
            rc = 0;
        }
    }
done:
    munmap(img, len);
    return rc;
}

/* A page within reach of a rel32 call from [lo, hi), below the program
 * first (above it the heap grows), holding the jump to ct_patch_entry. */
static int reaches(uintptr_t a, uintptr_t lo, uintptr_t hi)
{
    const int64_t reach = 0x7f000000;
    int64_t d1 = (int64_t)(a - lo), d2 = (int64_t)(a + 4096 - hi);
    return d1 < reach && d1 > -reach && d2 < reach && d2 > -reach;
}

static uint8_t *near_stub(uintptr_t lo, uintptr_t hi)
{
    const uintptr_t step = 1u << 20;
    uint8_t *p = NULL;
    for (uintptr_t d = step; d < 0x7f000000u && !p; d += step) {
        uintptr_t want[2] = {(lo - d) & ~(uintptr_t)4095,
                             (hi + d) & ~(uintptr_t)4095};
        for (int k = 0; k < 2 && !p; k++) {
            if ((k == 0 && lo <= d) || !reaches(want[k], lo, hi))
                continue;
            void *m = mmap((void *)want[k], 4096, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
                           -1, 0);
            if (m == (void *)want[k])
                p = m;
            else if (m != MAP_FAILED)
                munmap(m, 4096);
        }
    }
    if (!p)
        return NULL;
    static const uint8_t jmp[6] = {0xff, 0x25, 0, 0, 0, 0};  /* *0(%rip) */
    uintptr_t to = (uintptr_t)ct_patch_entry;
    memcpy(p, jmp, sizeof jmp);
    memcpy(p + sizeof jmp, &to, sizeof to);
    if (mprotect(p, 4096, PROT_READ | PROT_EXEC) != 0) {
        munmap(p, 4096);
        return NULL;
    }
    return p;
}

/* gcc's five one-byte NOPs, or clang's one five-byte NOP (nopl
 * disp8(%rax,%rax,1), any displacement). */
static int is_sled(const uint8_t *s)
{
    static const uint8_t nops[SLED] = {0x90, 0x90, 0x90, 0x90, 0x90};
    static const uint8_t nop5[4] = {0x0f, 0x1f, 0x44, 0x00};
    return !memcmp(s, nops, SLED) || !memcmp(s, nop5, sizeof nop5);
}

/* Writes the call into one entry; its page is writable only for the
 * write.  Writable and executable at once: where a policy refuses that
 * (SELinux's execmod), nothing is written, whereas a page written while
 * not executable might then be refused execution, with the program's
 * code on it. */
static int patch_one(uintptr_t sled, const uint8_t *stub)
{
    int64_t rel = (int64_t)((uintptr_t)stub - (sled + SLED));
    if (rel != (int32_t)rel || !is_sled((const uint8_t *)sled))
        return -1;
    uintptr_t page = sled & ~(uintptr_t)4095;
    size_t len = ((sled + SLED + 4095) & ~(uintptr_t)4095) - page;
    if (mprotect((void *)page, len, PROT_READ | PROT_WRITE | PROT_EXEC) != 0)
        return -1;
    uint8_t call[SLED] = {0xe8};
    int32_t r = (int32_t)rel;
    memcpy(call + 1, &r, 4);
    memcpy((void *)sled, call, SLED);
    return mprotect((void *)page, len, PROT_READ | PROT_EXEC);
}

struct main_text {
    uintptr_t base, lo, hi;
    int found;
};

static int main_object(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct main_text *m = arg;
    for (uint16_t i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
            m->base = info->dlpi_addr;
            m->lo = info->dlpi_addr + ph->p_vaddr;
            m->hi = m->lo + ph->p_memsz;
            m->found = 1;
        }
    }
    return 1;  /* the first object is the main program */
}

void ct_patch_start(void)
{
    struct main_text m = {0, 0, 0, 0};
    dl_iterate_phdr(main_object, &m);
    struct sleds s = {NULL, 0, 0};
    if (!m.found || find_sleds("/proc/self/exe", m.base, &s) != 0 || !s.n)
        return;
    text_lo = m.lo;
    uint8_t *stub = near_stub(m.lo, m.hi);
    if (!stub) {
        ct_message("calltrace: patchable entries: no room for a stub near "
                   "the program; its calls are not recorded");
        return;
    }
    size_t done = 0, bad = 0;
    for (size_t i = 0; i < s.n; i++) {
        uintptr_t at = s.at[i];
        if (at < m.lo || at + SLED > m.hi || patch_one(at, stub) != 0)
            bad++;
        else
            done++;
    }
    if (bad)
        ct_message("calltrace: patchable entries: %zu of %zu functions "
                   "could not be patched and are not recorded", bad, s.n);
    if (done) {
        ct_patch_active = 1;
        if (ct_proc.hdr)
            __atomic_fetch_or(&ct_proc.hdr->flags, CT_FILE_PATCHED,
                              __ATOMIC_RELAXED);
    }
}
