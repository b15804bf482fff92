/*
 * Which objects have patchable entries, and their tables: the program and
 * every shared library built with `calltrace cflags --patchable`, found at
 * start and after each dlopen, forgotten after the dlclose that unloads
 * them.  For each: the addresses of its entries (its
 * __patchable_function_entries section, read from its file), a table of
 * them sorted by function, with each function's CALLTRACE_ARGS rule, and a
 * page of stubs within reach of its text, one per entry, which hand the
 * trampolines (patch_tramp.S) the entry's table slot in %r11.
 *
 * How an entry is written, and which are chosen: patch_sleds.c.
 */
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "preload/base/budget.h"
#include "preload/filters/filter.h"
#include "preload/args/args.h"
#include "preload/patch/patch_objects.h"
#include "preload/tracer.h"

struct ct_pobj ct_pobjs[CT_PATCH_OBJS];
size_t ct_npobjs;
pthread_mutex_t ct_patch_lock = PTHREAD_MUTEX_INITIALIZER;
int ct_patch_active;

#define SLED CT_PATCH_SLED
#define STUB CT_PATCH_STUB

/* ------------------------------------------------------ finding them */

/* An object's __patchable_function_entries, from its file: where the
 * section is loaded (relocated) and its count; -1 when it has none. */
static int find_sleds(const char *path, uintptr_t base, const uintptr_t **at,
                      size_t *n)
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
                     strs->sh_size - sh[i].sh_name) && sh[i].sh_addr &&
            sh[i].sh_size) {
            *at = (const uintptr_t *)(base + sh[i].sh_addr);
            *n = sh[i].sh_size / sizeof(uintptr_t);
            rc = 0;
        }
    }
done:
    munmap(img, len);
    return rc;
}

/* A mapping of len bytes within reach of a rel32 jump from [lo, hi):
 * below the object first (above the program the heap grows). */
static int reaches(uintptr_t a, size_t len, uintptr_t lo, uintptr_t hi)
{
    const int64_t reach = 0x7f000000;
    int64_t d1 = (int64_t)(a - lo), d2 = (int64_t)(a + len - hi);
    return d1 < reach && d1 > -reach && d2 < reach && d2 > -reach;
}

static uint8_t *near_stubs(uintptr_t lo, uintptr_t hi, size_t len)
{
    const uintptr_t step = 1u << 20;
    for (uintptr_t d = step + len; d < 0x7f000000u; d += step) {
        uintptr_t want[2] = {(lo - d) & ~(uintptr_t)4095,
                             (hi + d) & ~(uintptr_t)4095};
        for (int k = 0; k < 2; k++) {
            if ((k == 0 && lo <= d) || !reaches(want[k], len, lo, hi))
                continue;
            void *m = mmap((void *)want[k], len, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
                           -1, 0);
            if (m == (void *)want[k])
                return m;
            if (m != MAP_FAILED)
                munmap(m, len);
        }
    }
    return NULL;
}

/* A sled's stub: `movabs $sled, %r11`, then `jmp *ct_patch_entry` (or
 * `*ct_patch_entry_args` for a function with a rule) through the two
 * words at the start of the stubs. */
static void write_stub(const struct ct_pobj *o, size_t i)
{
    const struct ct_sled *s = &o->sleds[i];
    uint8_t *stub = o->stubs + STUB * (i + 1);
    uintptr_t r11 = (uintptr_t)s;
    int32_t rel = (int32_t)((intptr_t)o->stubs + (s->args ? 8 : 0) -
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
    static const uint8_t nop5[4] = {0x0f, 0x1f, 0x44, 0x00};
    return !memcmp(s, nops, SLED) || !memcmp(s, nop5, 4);
}

/* The function whose sled is at `at`: the endbr64 before it where there
 * is one (the symbol's address), else the sled itself. */
static uintptr_t function_at(const struct ct_pobj *o, uintptr_t at)
{
    uint32_t before;
    if (at < o->lo + 4)
        return at;
    memcpy(&before, (const void *)(at - 4), 4);
    return before == 0xfa1e0ff3u ? at - 4 : at;
}

static int by_fn(const void *a, const void *b)
{
    const struct ct_sled *x = a, *y = b;
    return x->fn < y->fn ? -1 : x->fn > y->fn;
}

/* ------------------------------------------------------------ lookups */

struct ct_sled *ct_pobj_sled_of(struct ct_pobj *o, uintptr_t fn)
{
    size_t lo = 0, hi = o->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (o->sleds[mid].fn < fn)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < o->n && o->sleds[lo].fn == fn ? &o->sleds[lo] : NULL;
}

struct ct_pobj *ct_pobj_of_sled(const struct ct_sled *s)
{
    for (size_t i = 0; i < ct_npobjs; i++) {
        struct ct_pobj *o = &ct_pobjs[i];
        if (o->live && s >= o->sleds && s < o->sleds + o->n)
            return o;
    }
    return NULL;
}

uint32_t ct_patch_rule_of(uintptr_t fn)
{
    for (size_t i = 0; i < ct_npobjs; i++) {
        struct ct_pobj *o = &ct_pobjs[i];
        if (o->live && fn - o->lo < o->hi - o->lo) {
            const struct ct_sled *s = ct_pobj_sled_of(o, fn);
            return s ? s->args : 0;
        }
    }
    return 0;
}

int ct_patch_has_object(uintptr_t base)
{
    for (size_t i = 0; i < ct_npobjs; i++)
        if (ct_pobjs[i].live && ct_pobjs[i].base == base)
            return 1;
    return 0;
}

/* CALLTRACE_ARGS's rule of each function, by its symbol name or, for
 * C++, its demangled name with or without its parameters (as patch
 * specs match). */
static void rule_one(void *arg, struct ct_sled *s, const char *const names[3])
{
    (void)arg;
    for (int k = 0; k < 3 && !s->args; k++)
        if (names[k])
            s->args = ct_args_rule_for(names[k], 0);
    uint32_t keeps = ct_args_keeps(s->args);
    s->args_fast = !s->args                          ? CT_SLED_FAST_NONE
                   : !(keeps & CT_ARGS_KEEPS_ARGS)   ? CT_SLED_FAST_ENTRY
                   : (keeps & CT_ARGS_FAST_ARGS)     ? CT_SLED_FAST_ARGS
                   : (keeps & CT_ARGS_FAST_VEC_ARGS) ? CT_SLED_FAST_VEC
                                                     : CT_SLED_FAST_NONE;
}

static void args_rules(struct ct_pobj *o)
{
    if (ct_args_any())
        ct_patch_each_named(o, rule_one, NULL);
}

/* ------------------------------------------------------- adding them */

static void *map_counted(size_t len)
{
    if (!ct_budget_fit(len, len))
        return NULL;
    void *m = mmap(NULL, len, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return NULL;
    ct_budget_add((int64_t)len);
    return m;
}

static void drop(struct ct_pobj *o)
{
    if (o->sleds) {
        munmap(o->sleds, o->sleds_len);
        ct_budget_add(-(int64_t)o->sleds_len);
    }
    if (o->stubs) {
        munmap(o->stubs, o->stubs_len);
        ct_budget_add(-(int64_t)o->stubs_len);
    }
    memset(o, 0, sizeof *o);
}

/* Object o (path, base, lo, hi set) with the `count` entries at `at`:
 * its table, its stubs and its entries written as CALLTRACE_PATCH
 * chooses.  Adds the entries it could not write to *bad; 1 when any
 * entry is patched. */
static int add_object(struct ct_pobj *o, const uintptr_t *at, size_t count,
                      size_t *bad)
{
    o->sleds_len = (count * sizeof *o->sleds + 4095) & ~(size_t)4095;
    o->sleds = map_counted(o->sleds_len);
    o->stubs_len = (STUB * (count + 1) + 4095) & ~(size_t)4095;
    if (o->sleds && ct_budget_fit(o->stubs_len, o->stubs_len))
        o->stubs = near_stubs(o->lo, o->hi, o->stubs_len);
    if (!o->stubs) {
        ct_message("calltrace: patchable entries: no room for stubs near "
                   "%s; its calls are not recorded", o->path);
        drop(o);
        *bad += count;
        return 0;
    }
    ct_budget_add((int64_t)o->stubs_len);
    for (size_t i = 0; i < count; i++) {
        uintptr_t a = at[i];
        if (a < o->lo || a + SLED > o->hi || !is_sled((const uint8_t *)a))
            continue;
        o->sleds[o->n++] = (struct ct_sled){a, function_at(o, a), 0, 0, 1,
                                            CT_SLED_FAST_NONE};
    }
    *bad += count - o->n;
    qsort(o->sleds, o->n, sizeof *o->sleds, by_fn);
    args_rules(o);
    uintptr_t to[2] = {(uintptr_t)ct_patch_entry,
                       (uintptr_t)ct_patch_entry_args};
    memcpy(o->stubs, to, sizeof to);
    for (size_t i = 0; i < o->n; i++)
        write_stub(o, i);
    if (mprotect(o->stubs, o->stubs_len, PROT_READ | PROT_EXEC) != 0) {
        ct_message("calltrace: patchable entries: stubs cannot be made "
                   "executable; the calls of %s are not recorded", o->path);
        *bad += o->n;
        drop(o);
        return 0;
    }
    o->live = 1;
    ct_patch_choose_at_start(o);
    if (ct_patch_open_all(o, 1) != 0) {
        *bad += o->n;  /* the sleds stay NOPs, their on 0 */
        return 0;
    }
    int any = 0;
    for (size_t i = 0; i < o->n; i++) {
        ct_patch_write_sled(o, &o->sleds[i], 0);
        any |= o->sleds[i].on;
    }
    ct_patch_open_all(o, 0);
    return any;
}

/* A loaded object, as dl_iterate_phdr shows it. */
struct found {
    char path[256];
    uintptr_t base, lo, hi;
};

struct scan {
    struct found *f;
    size_t n, cap;
};

/* The objects seen by one scan: 36 KiB, so not on the stack of the
 * thread that called dlopen (docs/reliability.md); used under
 * ct_patch_lock. */
#define FOUND (CT_PATCH_OBJS * 2)
static struct found g_found[FOUND];

static int note_object(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct scan *sc = arg;
    if (sc->n == sc->cap)
        return 1;
    struct found *f = &sc->f[sc->n];
    const char *name = info->dlpi_name;
    if (!name || !*name)
        name = sc->n == 0 ? "/proc/self/exe" : NULL;  /* the program */
    if (!name || strlen(name) >= sizeof f->path || strstr(name, "linux-vdso"))
        return 0;
    int exec = 0;
    for (uint16_t i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && ph->p_memsz) {
            f->lo = info->dlpi_addr + ph->p_vaddr;
            f->hi = f->lo + ph->p_memsz;
            exec = 1;
        }
    }
    if (!exec)
        return 0;
    strcpy(f->path, name);
    f->base = info->dlpi_addr;
    sc->n++;
    return 0;
}

static struct ct_pobj *known(const struct found *f)
{
    for (size_t i = 0; i < ct_npobjs; i++) {
        struct ct_pobj *o = &ct_pobjs[i];
        if (o->live && o->base == f->base && o->lo == f->lo && o->hi == f->hi)
            return o;
    }
    return NULL;
}

static struct ct_pobj *free_slot(void)
{
    for (size_t i = 0; i < ct_npobjs; i++)
        if (!ct_pobjs[i].live)
            return &ct_pobjs[i];
    return ct_npobjs < CT_PATCH_OBJS ? &ct_pobjs[ct_npobjs++] : NULL;
}

/* Every loaded object not known yet whose file has patchable entries
 * gets its table and its entries; tells once how many could not be.
 * Called with ct_patch_lock held. */
static void add_new(void)
{
    struct found *f = g_found;
    struct scan sc = {f, 0, FOUND};
    dl_iterate_phdr(note_object, &sc);
    size_t bad = 0, total = 0;
    int any = 0;
    for (size_t i = 0; i < sc.n; i++) {
        const uintptr_t *at = NULL;
        size_t count = 0;
        if (known(&f[i]) || find_sleds(f[i].path, f[i].base, &at, &count) != 0)
            continue;
        total += count;
        struct ct_pobj *o = free_slot();
        if (!o) {
            bad += count;
            continue;
        }
        memcpy(o->path, f[i].path, sizeof o->path);
        o->base = f[i].base, o->lo = f[i].lo, o->hi = f[i].hi;
        any |= add_object(o, at, count, &bad);
    }
    if (bad)
        ct_message("calltrace: patchable entries: %zu of %zu functions "
                   "could not be patched and are not recorded", bad, total);
    if (any) {
        ct_patch_active = 1;
        if (ct_proc.hdr)
            __atomic_fetch_or(&ct_proc.hdr->flags, CT_FILE_PATCHED,
                              __ATOMIC_RELAXED);
    }
}

void ct_patch_start(void)
{
    pthread_mutex_lock(&ct_patch_lock);
    add_new();
    pthread_mutex_unlock(&ct_patch_lock);
}

void ct_patch_after_load(void)
{
    pthread_mutex_lock(&ct_patch_lock);
    add_new();
    pthread_mutex_unlock(&ct_patch_lock);
}

/* An object dlclose unloaded: its table and stubs go, so that nothing is
 * ever written where its text was (another object may be loaded there). */
void ct_patch_after_unload(void)
{
    if (!ct_npobjs)
        return;
    pthread_mutex_lock(&ct_patch_lock);
    struct found *f = g_found;
    struct scan sc = {f, 0, FOUND};
    dl_iterate_phdr(note_object, &sc);
    for (size_t i = 0; i < ct_npobjs; i++) {
        struct ct_pobj *o = &ct_pobjs[i];
        int there = 0;
        for (size_t k = 0; k < sc.n && !there; k++)
            there = o->base == f[k].base && o->lo == f[k].lo && o->hi == f[k].hi;
        if (o->live && !there && sc.n < sc.cap)
            drop(o);
    }
    pthread_mutex_unlock(&ct_patch_lock);
}
