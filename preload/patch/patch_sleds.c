/*
 * The patchable entries themselves: finding the main program's
 * (__patchable_function_entries), choosing which are patched
 * (CALLTRACE_PATCH at start, `calltrace control PID patch SPEC` while the
 * program runs) and writing them.  patch.c records the calls.
 *
 * At start, while one thread runs, every sled becomes one instruction: a
 * jump to its stub where patched (patch_tramp.S says why a jump), a five-byte NOP where not (gcc's five
 * one-byte NOPs, inside which a thread may be stopped, become one).  From
 * then on a sled changes with one atomic store of the aligned 8 or 16
 * bytes that hold it, so a thread running the entry meanwhile executes
 * the old instruction or the new one, never a mix of the two (LLVM XRay
 * patches its sleds with one store too); a sled no such word holds stays
 * as it is, and is counted.  Before the command returns, the other threads
 * are made to serialize (membarrier's SYNC_CORE), so every call after it
 * meets the new instruction.  A function unpatched while a thread is
 * inside it still returns through the trampoline: its frame is kept.
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <link.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload/base/budget.h"
#include "preload/filters/filter.h"
#include "preload/libcalls/args.h"
#include "preload/patch/patch.h"
#include "preload/tracer.h"

#define SLED 5u
/* Items of a patch spec, and the longest glob. */
#define SPEC_ITEMS 64
#define GLOB_MAX 256

uintptr_t ct_patch_text_lo;

#define sled ct_sled
static struct sled *g_sleds;   /* sorted by fn                            */
static size_t g_nsleds;
static uint8_t *g_stubs;      /* ct_patch_entry's address, then a stub
                                  a sled                                 */
static size_t g_stubs_len;
static uintptr_t g_base;       /* the main program's load bias            */
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;

static const uint8_t nop5[SLED] = {0x0f, 0x1f, 0x44, 0x00, 0x00};

/* ------------------------------------------------------ finding them */

struct sleds {
    const uintptr_t *at;   /* the section, as loaded (relocated)          */
    size_t n;
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

/* The stubs: one for each sled, 16 bytes, after the addresses of
 * ct_patch_entry and ct_patch_entry_args at the start of their pages.  A sled's jump needs its
 * stub within reach of a rel32 from the program's text: below the
 * program first (above it the heap grows). */
#define STUB 16u

static int reaches(uintptr_t a, size_t len, uintptr_t lo, uintptr_t hi)
{
    const int64_t reach = 0x7f000000;
    int64_t d1 = (int64_t)(a - lo), d2 = (int64_t)(a + len - hi);
    return d1 < reach && d1 > -reach && d2 < reach && d2 > -reach;
}

static uint8_t *near_stubs(uintptr_t lo, uintptr_t hi, size_t len)
{
    const uintptr_t step = 1u << 20;
    uint8_t *p = NULL;
    for (uintptr_t d = step + len; d < 0x7f000000u && !p; d += step) {
        uintptr_t want[2] = {(lo - d) & ~(uintptr_t)4095,
                             (hi + d) & ~(uintptr_t)4095};
        for (int k = 0; k < 2 && !p; k++) {
            if ((k == 0 && lo <= d) || !reaches(want[k], len, lo, hi))
                continue;
            void *m = mmap((void *)want[k], len, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
                           -1, 0);
            if (m == (void *)want[k])
                p = m;
            else if (m != MAP_FAILED)
                munmap(m, len);
        }
    }
    if (!p)
        return NULL;
    uintptr_t to[2] = {(uintptr_t)ct_patch_entry,
                       (uintptr_t)ct_patch_entry_args};
    memcpy(p, to, sizeof to);
    return p;
}

/* A sled's stub: `movabs $body, %r11` (the address after its five
 * bytes), then `jmp *ct_patch_entry` through the word at the start; for
 * a function whose arguments are kept, `movabs $sled, %r11` and `jmp
 * *ct_patch_entry_args`. */
static void write_stub(uint8_t *stub, const struct sled *s)
{
    uintptr_t r11 = s->args ? (uintptr_t)s : s->at + SLED;
    int32_t rel = (int32_t)((intptr_t)g_stubs + (s->args ? 8 : 0) -
                            (intptr_t)(stub + 16));
    stub[0] = 0x49, stub[1] = 0xbb;
    memcpy(stub + 2, &r11, 8);
    stub[10] = 0xff, stub[11] = 0x25;
    memcpy(stub + 12, &rel, 4);
}

/* gcc's five one-byte NOPs, or clang's one five-byte NOP (nopl
 * disp8(%rax,%rax,1), any displacement). */
static int is_sled(const uint8_t *s)
{
    static const uint8_t nops[SLED] = {0x90, 0x90, 0x90, 0x90, 0x90};
    return !memcmp(s, nops, SLED) || !memcmp(s, nop5, 4);
}

/* ------------------------------------------------------ writing them */

/* The sled's jump to its stub. */
static void jump_insn(const struct sled *s, uint8_t insn[SLED])
{
    const uint8_t *stub = g_stubs + STUB * (size_t)(s - g_sleds + 1);
    int32_t rel = (int32_t)((intptr_t)stub - (intptr_t)(s->at + SLED));
    insn[0] = 0xe9;
    memcpy(insn + 1, &rel, 4);
}

/* The page(s) of [at, at + SLED) writable (on) or back to read and
 * execute.  Writable and executable at once: where a policy refuses that
 * (SELinux's execmod), nothing is written, whereas a page written while
 * not executable might then be refused execution, with the program's
 * code on it. */
static int open_text(uintptr_t at, int on)
{
    uintptr_t page = at & ~(uintptr_t)4095;
    size_t len = ((at + SLED + 4095) & ~(uintptr_t)4095) - page;
    return mprotect((void *)page, len,
                    PROT_READ | PROT_EXEC | (on ? PROT_WRITE : 0));
}

/* 16 bytes at p (aligned) from old to new in one locked write. */
static int cas16(volatile void *p, const uint64_t old[2], const uint64_t new[2])
{
    uint64_t lo = old[0], hi = old[1];
    uint8_t ok;
    __asm__ volatile("lock cmpxchg16b %1\n\tsete %0"
                     : "=q"(ok), "+m"(*(volatile __int128 *)p), "+a"(lo),
                       "+d"(hi)
                     : "b"(new[0]), "c"(new[1])
                     : "memory", "cc");
    return ok;
}

/* The sled at `at` becomes insn in one atomic store of the aligned word
 * that holds it; -1 when none does (its bytes cross a 16-byte line). */
static int store_atomic(uintptr_t at, const uint8_t insn[SLED])
{
    uintptr_t w8 = at & ~(uintptr_t)7, w16 = at & ~(uintptr_t)15;
    if (at + SLED <= w8 + 8) {
        uint64_t v = __atomic_load_n((uint64_t *)w8, __ATOMIC_RELAXED);
        memcpy((uint8_t *)&v + (at - w8), insn, SLED);
        __atomic_store_n((uint64_t *)w8, v, __ATOMIC_RELEASE);
        return 0;
    }
    if (at + SLED > w16 + 16)
        return -1;
    uint64_t old[2], new[2];
    do {
        memcpy(old, (const void *)w16, 16);
        memcpy(new, old, 16);
        memcpy((uint8_t *)new + (at - w16), insn, SLED);
    } while (!cas16((volatile void *)w16, old, new));
    return 0;
}

/* Every other thread executes a serializing instruction before it runs
 * on: none runs an entry as it was before the store.  Without membarrier
 * (before Linux 4.16) the mprotect that closed the page did as much: its
 * TLB shootdown interrupts every CPU running the process. */
static void sync_cores(void)
{
    static int registered;  /* 1 done, -1 refused */
    if (!registered)
        registered = syscall(SYS_membarrier,
                             MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE,
                             0, 0) == 0 ? 1 : -1;
    if (registered > 0)
        (void)syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE,
                      0, 0);
}

/* ------------------------------------------------------ choosing them */

struct item {
    int on;
    char glob[GLOB_MAX];
};

/* SPEC: items separated by ',', each GLOB or +GLOB (patch) or -GLOB
 * (unpatch), applied in order.  Returns the number of items, or -1 with
 * the reason in err. */
static int parse_spec(const char *spec, struct item *items, char *err,
                      size_t errlen)
{
    int n = 0;
    const char *p = spec;
    while (*p) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        int on = 1;
        const char *g = p;
        if (len && (*g == '+' || *g == '-')) {
            on = *g == '+';
            g++, len--;
        }
        if (!len || len >= GLOB_MAX || n == SPEC_ITEMS) {
            snprintf(err, errlen, "at offset %zu: expected [+|-]GLOB%s",
                     (size_t)(g - spec),
                     n == SPEC_ITEMS ? " (at most 64 items)" : "");
            return -1;
        }
        items[n].on = on;
        memcpy(items[n].glob, g, len);
        items[n].glob[len] = '\0';
        n++;
        if (!end)
            break;
        p = end + 1;
        if (!*p) {
            snprintf(err, errlen, "at offset %zu: expected [+|-]GLOB",
                     (size_t)(p - spec));
            return -1;
        }
    }
    if (!n)
        snprintf(err, errlen, "empty: expected [+|-]GLOB[,...]");
    return n ? n : -1;
}

static struct sled *sled_of(uintptr_t fn)
{
    size_t lo = 0, hi = g_nsleds;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (g_sleds[mid].fn < fn)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < g_nsleds && g_sleds[lo].fn == fn ? &g_sleds[lo] : NULL;
}

typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);

struct choose {
    const struct item *items;
    int n;
    size_t matched;
    demangle_fn demangle;  /* the program's __cxa_demangle, or NULL     */
    char *buf;             /* its buffer, grown by it                   */
    size_t cap;
};

/* A C++ name as the views show it, whole and without its parameters
 * (cut at the first '('), or NULL. */
static const char *demangled(struct choose *c, const char *name, size_t *cut)
{
    if (!c->demangle || name[0] != '_' || name[1] != 'Z')
        return NULL;
    int status = 0;
    char *out = c->demangle(name, c->buf, &c->cap, &status);
    if (status != 0 || !out)
        return NULL;
    c->buf = out;
    const char *paren = strchr(out, '(');
    *cut = paren ? (size_t)(paren - out) : strlen(out);
    return out;
}

static int name_matches(const char *glob, const char *name, const char *dem,
                        size_t cut)
{
    if (fnmatch(glob, name, 0) == 0)
        return 1;
    if (!dem)
        return 0;
    if (fnmatch(glob, dem, 0) == 0)
        return 1;
    char bare[GLOB_MAX];
    if (cut >= sizeof bare)
        return 0;
    memcpy(bare, dem, cut);
    bare[cut] = '\0';
    return fnmatch(glob, bare, 0) == 0;
}

/* Each function symbol of the main program: its sled's wanted state
 * after the items that match its name (the symbol's, or for C++ the
 * demangled one, with or without its parameters). */
static void choose_one(void *arg, const char *name, uintptr_t addr,
                       uint64_t size)
{
    (void)size;
    struct choose *c = arg;
    struct sled *s = sled_of(addr);
    if (!s)
        return;
    size_t cut = 0;
    const char *dem = demangled(c, name, &cut);
    for (int i = 0; i < c->n; i++)
        if (name_matches(c->items[i].glob, name, dem, cut)) {
            s->want = (uint8_t)c->items[i].on;
            c->matched++;
        }
}

/* Sets every sled's want from the items over `from` (its state now, or
 * all on/off): 0, or -1 when the program's symbols cannot be read. */
static int choose(const struct item *items, int n, int from,
                  size_t *matched)
{
    for (size_t i = 0; i < g_nsleds; i++)
        g_sleds[i].want = from < 0 ? g_sleds[i].on : (uint8_t)from;
    struct choose c = {items, n, 0, NULL, NULL, 0};
    c.demangle = (demangle_fn)dlsym(RTLD_DEFAULT, "__cxa_demangle");
    int rc = ct_elf_functions("/proc/self/exe", g_base, 0, choose_one, &c);
    free(c.buf);
    *matched = c.matched;
    return rc;
}

static int by_fn(const void *a, const void *b)
{
    const struct sled *x = a, *y = b;
    return x->fn < y->fn ? -1 : x->fn > y->fn;
}

/* ------------------------------------------------------------ start */

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

/* The table of the sleds that can be written, sorted by function. */
static size_t table(const struct sleds *s, const struct main_text *m)
{
    size_t bytes = s->n * sizeof *g_sleds;
    if (!ct_budget_fit(bytes, bytes))
        return 0;
    g_sleds = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (g_sleds == MAP_FAILED) {
        g_sleds = NULL;
        return 0;
    }
    ct_budget_add((int64_t)bytes);
    size_t n = 0;
    for (size_t i = 0; i < s->n; i++) {
        uintptr_t at = s->at[i];
        if (at < m->lo || at + SLED > m->hi || !is_sled((const uint8_t *)at))
            continue;
        g_sleds[n++] = (struct sled){at, ct_patch_function_at(at), 0, 0, 1};
    }
    qsort(g_sleds, n, sizeof *g_sleds, by_fn);
    return n;
}

/* CALLTRACE_PATCH at start: items over all patched when the first one
 * unpatches, over none when it patches.  A bad spec: one line, all. */
static void choose_at_start(void)
{
    const char *spec = ct_env_get("CALLTRACE_PATCH");
    if (!spec || !*spec)
        return;  /* all: want is 1 */
    struct item items[SPEC_ITEMS];
    char err[128];
    size_t matched;
    int n = parse_spec(spec, items, err, sizeof err);
    if (n < 0) {
        ct_message("calltrace: CALLTRACE_PATCH='%s': %s; patching every "
                   "function", spec, err);
        return;
    }
    if (choose(items, n, items[0].on ? 0 : 1, &matched) != 0) {
        ct_message("calltrace: CALLTRACE_PATCH: the program's symbols "
                   "cannot be read; patching every function");
        for (size_t i = 0; i < g_nsleds; i++)
            g_sleds[i].want = 1;
    }
}

/* CALLTRACE_ARGS's rule of each function, by its symbol name or, for
 * C++, its demangled name with or without its parameters (as patch
 * specs match). */
static void rule_one(void *arg, const char *name, uintptr_t addr,
                     uint64_t size)
{
    (void)size;
    struct choose *c = arg;
    struct sled *s = sled_of(addr);
    if (!s || s->args)
        return;
    size_t cut = 0;
    const char *dem = demangled(c, name, &cut);
    uint32_t rule = ct_args_rule_for(name);
    if (!rule && dem) {
        rule = ct_args_rule_for(dem);
        char bare[GLOB_MAX];
        if (!rule && cut < sizeof bare) {
            memcpy(bare, dem, cut);
            bare[cut] = '\0';
            rule = ct_args_rule_for(bare);
        }
    }
    s->args = rule;
}

static void args_rules(void)
{
    if (!ct_args_any())
        return;
    struct choose c = {NULL, 0, 0, NULL, NULL, 0};
    c.demangle = (demangle_fn)dlsym(RTLD_DEFAULT, "__cxa_demangle");
    ct_elf_functions("/proc/self/exe", g_base, 0, rule_one, &c);
    free(c.buf);
}

uint32_t ct_patch_rule_of(uintptr_t fn)
{
    const struct sled *s = sled_of(fn);
    return s ? s->args : 0;
}

/* Written while one thread runs: five bytes at once need no care. */
static int write_at_start(struct sled *s)
{
    uint8_t insn[SLED];
    if (s->want)
        jump_insn(s, insn);
    else
        memcpy(insn, nop5, SLED);
    if (open_text(s->at, 1) != 0)
        return -1;
    memcpy((void *)s->at, insn, SLED);
    s->on = s->want;
    return open_text(s->at, 0);
}

void ct_patch_start(void)
{
    struct main_text m = {0, 0, 0, 0};
    dl_iterate_phdr(main_object, &m);
    struct sleds s = {NULL, 0};
    if (!m.found || find_sleds("/proc/self/exe", m.base, &s) != 0 || !s.n)
        return;
    ct_patch_text_lo = m.lo;
    g_base = m.base;
    g_stubs_len = (STUB * (s.n + 1) + 4095) & ~(size_t)4095;
    if (ct_budget_fit(g_stubs_len, g_stubs_len))
        g_stubs = near_stubs(m.lo, m.hi, g_stubs_len);
    if (!g_stubs) {
        ct_message("calltrace: patchable entries: no room for stubs near "
                   "the program; its calls are not recorded");
        return;
    }
    ct_budget_add((int64_t)g_stubs_len);
    g_nsleds = table(&s, &m);
    args_rules();
    for (size_t i = 0; i < g_nsleds; i++)
        write_stub(g_stubs + STUB * (i + 1), &g_sleds[i]);
    if (mprotect(g_stubs, g_stubs_len, PROT_READ | PROT_EXEC) != 0) {
        ct_message("calltrace: patchable entries: stubs cannot be made "
                   "executable; the program's calls are not recorded");
        return;
    }
    choose_at_start();
    size_t bad = s.n - g_nsleds, done = 0;
    for (size_t i = 0; i < g_nsleds; i++) {
        if (write_at_start(&g_sleds[i]) != 0)
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

/* ----------------------------------------------------------- run time */

int ct_patch_apply(const char *spec, char *msg, size_t len)
{
    struct item items[SPEC_ITEMS];
    char err[128];
    int n = parse_spec(spec, items, err, sizeof err);
    if (n < 0) {
        snprintf(msg, len, "'%s': %s", spec, err);
        return -1;
    }
    if (!ct_patch_active) {
        snprintf(msg, len, "the program has no patched entries (built "
                 "without calltrace cflags --patchable, or none could be "
                 "written at start)");
        return -1;
    }
    pthread_mutex_lock(&g_lock);
    size_t matched, on = 0, off = 0, stuck = 0;
    if (choose(items, n, -1, &matched) != 0) {
        pthread_mutex_unlock(&g_lock);
        snprintf(msg, len, "the program's symbols cannot be read");
        return -1;
    }
    for (size_t i = 0; i < g_nsleds; i++) {
        struct sled *s = &g_sleds[i];
        if (s->want == s->on)
            continue;
        uint8_t insn[SLED];
        if (s->want)
            jump_insn(s, insn);
        else
            memcpy(insn, nop5, SLED);
        if (open_text(s->at, 1) != 0) {
            stuck++;
            continue;
        }
        if (store_atomic(s->at, insn) == 0) {
            s->on = s->want;
            s->want ? on++ : off++;
        } else {
            stuck++;
        }
        open_text(s->at, 0);
    }
    sync_cores();
    size_t patched = 0;
    for (size_t i = 0; i < g_nsleds; i++)
        patched += g_sleds[i].on;
    pthread_mutex_unlock(&g_lock);
    snprintf(msg, len, "%zu patched, %zu unpatched, %zu of %zu functions "
             "patched now%s", on, off, patched, g_nsleds,
             matched ? "" : "; no function matched");
    if (stuck)
        snprintf(msg + strlen(msg), len - strlen(msg), "; %zu could not be "
                 "changed while the program runs (an entry across a 16-byte "
                 "line, or a page that cannot be made writable)", stuck);
    return 0;
}
