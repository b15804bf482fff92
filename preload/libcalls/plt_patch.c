/*
 * Patching for library calls (CALLTRACE_LIBCALLS; plt.c has the run
 * time): at start and after each dlopen, the JUMP_SLOT relocations of
 * every object that imports __cyg_profile_func_enter or has patched
 * entries (every object in nested mode) are read from its dynamic section, each GOT slot is
 * pointed at a stub of its own, and the slots the program's wrappers
 * serve (getcontext, swapcontext, the setjmp family) are noted instead.
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "preload/args/args.h"
#include "preload/base/budget.h"
#include "preload/filters/filter.h"
#include "preload/patch/patch.h"
#include "preload/libcalls/plt.h"
#include "preload/libcalls/plt_got.h"
#include "preload/libcalls/plt_slots.h"
#include "preload/base/scratch.h"
#include "preload/tracer.h"

/* ------------------------------------------------------- patching */

/* Functions whose calls are not recorded: they return twice (the saved
 * context would hold the trampoline), look at their own return address
 * (RTLD_NEXT, the caller's namespace), or are the tracer's own entry
 * points. */
int ct_plt_never_patched(const char *name)
{
    static const char *const names[] = {
        "setjmp", "_setjmp", "__sigsetjmp", "sigsetjmp", "savectx",
        "vfork", "__vfork", "getcontext", "swapcontext", "setcontext",
        "dlsym", "dlvsym", "dlopen", "dlmopen", "dl_iterate_phdr",
        "__cyg_profile_func_enter", "__cyg_profile_func_exit",
        "__tls_get_addr",
    };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strcmp(name, names[i]) == 0)
            return 1;
    return strncmp(name, "calltrace_", 10) == 0;
}

struct dyn_info {
    uintptr_t base;
    const ElfW(Sym) *symtab;
    const char *strtab;
    const ElfW(Rela) *jmprel;
    size_t njmprel;
    const ElfW(Rela) *rela;
    size_t nrela;
    const uintptr_t *pltgot;
};

static uintptr_t dyn_ptr(uintptr_t base, uintptr_t v)
{
    /* ld.so relocates most of these in place, but not in every object
     * (a read-only dynamic section keeps file addresses). */
    return v < base ? v + base : v;
}

static int read_dynamic(const struct dl_phdr_info *info, struct dyn_info *d)
{
    memset(d, 0, sizeof *d);
    d->base = info->dlpi_addr;
    const ElfW(Dyn) *dyn = NULL;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
            dyn = (const ElfW(Dyn) *)(d->base + info->dlpi_phdr[i].p_vaddr);
    if (!dyn)
        return -1;
    size_t pltrelsz = 0, relasz = 0;
    int pltrel_is_rela = 1;
    for (; dyn->d_tag != DT_NULL; dyn++) {
        uintptr_t v = dyn->d_un.d_ptr;
        switch (dyn->d_tag) {
        case DT_SYMTAB: d->symtab = (const void *)dyn_ptr(d->base, v); break;
        case DT_STRTAB: d->strtab = (const void *)dyn_ptr(d->base, v); break;
        case DT_JMPREL: d->jmprel = (const void *)dyn_ptr(d->base, v); break;
        case DT_RELA: d->rela = (const void *)dyn_ptr(d->base, v); break;
        case DT_PLTGOT: d->pltgot = (const void *)dyn_ptr(d->base, v); break;
        case DT_PLTRELSZ: pltrelsz = dyn->d_un.d_val; break;
        case DT_RELASZ: relasz = dyn->d_un.d_val; break;
        case DT_PLTREL: pltrel_is_rela = dyn->d_un.d_val == DT_RELA; break;
        default: break;
        }
    }
    if (!d->symtab || !d->strtab || !pltrel_is_rela)
        return -1;
    d->njmprel = d->jmprel ? pltrelsz / sizeof(ElfW(Rela)) : 0;
    d->nrela = d->rela ? relasz / sizeof(ElfW(Rela)) : 0;
    return 0;
}

static const char *rel_name(const struct dyn_info *d, const ElfW(Rela) *r)
{
    uint32_t sym = ELF64_R_SYM(r->r_info);
    return sym ? d->strtab + d->symtab[sym].st_name : NULL;
}

static int imports(const struct dyn_info *d, const char *want)
{
    for (size_t i = 0; i < d->njmprel; i++) {
        const char *n = rel_name(d, &d->jmprel[i]);
        if (n && strcmp(n, want) == 0)
            return 1;
    }
    for (size_t i = 0; i < d->nrela; i++) {
        const char *n = rel_name(d, &d->rela[i]);
        if (n && strcmp(n, want) == 0)
            return 1;
    }
    return 0;
}

/*
 * getcontext, swapcontext and the setjmp family return twice, so no
 * trampoline may stand for their return address; the wrappers of
 * context.c and jump.c write their calls instead, as calls that return at
 * once.  Their PLT entries in
 * the objects whose library calls are recorded are noted here, so a
 * wrapper knows the call it serves is one to record, and its function.
 */
#define MAX_WRAPPED 64
static uintptr_t wrapped[MAX_WRAPPED];
static uint32_t nwrapped;

static int told_by_wrapper(const char *name)
{
    return strcmp(name, "getcontext") == 0 ||
           strcmp(name, "swapcontext") == 0 || strcmp(name, "setjmp") == 0 ||
           strcmp(name, "_setjmp") == 0 || strcmp(name, "__sigsetjmp") == 0;
}

/* Under plt_patch_lock. */
static void note_wrapped(uintptr_t plt)
{
    uint32_t n = __atomic_load_n(&nwrapped, __ATOMIC_RELAXED);
    if (!plt || n == MAX_WRAPPED)
        return;
    for (uint32_t i = 0; i < n; i++)
        if (__atomic_load_n(&wrapped[i], __ATOMIC_RELAXED) == plt)
            return;
    __atomic_store_n(&wrapped[n], plt, __ATOMIC_RELAXED);
    __atomic_store_n(&nwrapped, n + 1, __ATOMIC_RELEASE);
}

uintptr_t ct_plt_wrapped_call(uintptr_t site)
{
    const uint8_t *call = (const uint8_t *)site - 5;
    uint32_t n = __atomic_load_n(&nwrapped, __ATOMIC_ACQUIRE);
    if (n == 0 || plt_mode == CT_LIBCALLS_NONE || *call != 0xe8)
        return 0;  /* only a direct call (e8 rel32) names its entry */
    int32_t rel;
    memcpy(&rel, call + 1, sizeof rel);
    uintptr_t entry = site + (uintptr_t)(intptr_t)rel;
    for (uint32_t i = 0; i < n; i++)
        if (__atomic_load_n(&wrapped[i], __ATOMIC_RELAXED) == entry)
            return entry;
    return 0;
}

struct got_ref {
    uintptr_t got;
    uintptr_t plt;
    uintptr_t hook;       /* dlsym, dlvsym: where the slot goes instead */
    const char *name;
    uint32_t reloc;       /* index in DT_JMPREL */
};

static int cmp_got(const void *a, const void *b)
{
    const struct got_ref *x = a, *y = b;
    return x->got < y->got ? -1 : x->got > y->got;
}

static struct got_ref *find_got(struct got_ref *refs, size_t n, uintptr_t got)
{
    struct got_ref key = {got, 0, 0, NULL, 0};
    return bsearch(&key, refs, n, sizeof *refs, cmp_got);
}

/* The GOT slot an 8-byte aligned PLT entry at p jumps through, or 0:
 * [endbr64] [bnd] jmp *disp32(%rip), the forms ld writes for x86-64. */
static uintptr_t plt_entry_got(const uint8_t *p, const uint8_t *end)
{
    const uint8_t *q = p;
    if (end - q >= 4 && q[0] == 0xf3 && q[1] == 0x0f && q[2] == 0x1e &&
        q[3] == 0xfa)
        q += 4;
    if (end - q >= 1 && q[0] == 0xf2)
        q++;
    if (end - q < 6 || q[0] != 0xff || q[1] != 0x25)
        return 0;
    int32_t disp;
    memcpy(&disp, q + 2, 4);
    return (uintptr_t)(q + 6) + (intptr_t)disp;
}

/* Finds each JUMP_SLOT's PLT entry by scanning the executable segments
 * for the jumps through it; the first one found is the PLT's (the PLT
 * comes before .text). */
static void find_plt_entries(const struct dl_phdr_info *info,
                             struct got_ref *refs, size_t n)
{
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X) ||
            !(ph->p_flags & PF_R))
            continue;
        uintptr_t lo = (info->dlpi_addr + ph->p_vaddr + 7) & ~(uintptr_t)7;
        const uint8_t *end = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr +
                                               ph->p_filesz);
        for (const uint8_t *p = (const uint8_t *)lo; p + 8 <= end; p += 8) {
            if (p[0] != 0xff && p[0] != 0xf3 && p[0] != 0xf2)
                continue;
            uintptr_t got = plt_entry_got(p, end);
            struct got_ref *r = got ? find_got(refs, n, got) : NULL;
            if (r && !r->plt)
                r->plt = (uintptr_t)p;
        }
    }
}

/* The writable window [lo, hi) RELRO made read-only, if any. */
static void relro_range(const struct dl_phdr_info *info, uintptr_t *lo,
                        uintptr_t *hi)
{
    *lo = *hi = 0;
    long page = sysconf(_SC_PAGESIZE);
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_GNU_RELRO)
            continue;
        uintptr_t s = info->dlpi_addr + ph->p_vaddr;
        *lo = s & ~(uintptr_t)(page - 1);
        *hi = ct_align_up(s + ph->p_memsz, (uintptr_t)page);
    }
}

static int in_exec_segment(const struct dl_phdr_info *info, uintptr_t a)
{
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t s = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && a >= s &&
            a < s + ph->p_memsz)
            return 1;
    }
    return 0;
}

static int is_own_object(const struct dl_phdr_info *info)
{
    uintptr_t me = (uintptr_t)ct_plt_stubs;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t s = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && me >= s && me < s + ph->p_memsz)
            return 1;
    }
    return 0;
}

/* Points a GOT slot at a new stub; plt is the function in the records, 0
 * for the stub itself (named in MAPS blocks).  Returns the stub, or 0. */
static uintptr_t patch_slot(uintptr_t *got, uintptr_t plt, int maybe_lazy,
                            const char *name, const char *mark, void *map,
                            uint32_t reloc)
{
    uintptr_t cur = *got;
    if (plt_is_stub(cur))
        return 0;  /* patched before */
    if (plt_nslots >= CT_PLT_MAX_SLOTS) {
        if (!plt_slots_full_reported++)
            ct_message("calltrace: more than %u library functions; calls "
                       "to the others are not recorded", CT_PLT_MAX_SLOTS);
        return 0;
    }
    uint32_t i = plt_nslots;
    if (plt_slot_chunk_get(i) < 0)
        return 0;
    SLOT(i).target = cur;
    SLOT(i).got = got;
    SLOT(i).fn = plt ? plt : plt_stub_addr(i);
    plt_set_lazy(i, maybe_lazy ? LAZY_MAYBE : LAZY_NO);
    SLOT(i).map = maybe_lazy ? map : NULL;
    SLOT(i).reloc = reloc;
    SLOT(i).args = ct_args_rule_for(name, 1);
    SLOT(i).args_keeps = ct_args_keeps(SLOT(i).args);
    SLOT_NAME(i) = ct_scratch_keep(name);
    SLOT_MARK(i) = mark;
    plt_publish(i);
    __atomic_store_n(&plt_nslots, i + 1, __ATOMIC_RELEASE);
    __atomic_store_n(got, plt_stub_addr(i), __ATOMIC_RELEASE);
    return plt_stub_addr(i);
}

/* Load biases (l_addr) of the objects there at start, for RTLD_DEFAULT. */
#define MAX_START_OBJECTS 256
static uintptr_t start_bases[MAX_START_OBJECTS];
static uint32_t nstart_bases;

int ct_plt_loaded_at_start(uintptr_t base)
{
    for (uint32_t i = 0; i < nstart_bases; i++)
        if (start_bases[i] == base)
            return 1;
    return 0;
}

static void note_start_object(const struct dl_phdr_info *info)
{
    if (nstart_bases < MAX_START_OBJECTS)
        start_bases[nstart_bases++] = info->dlpi_addr;
}

/* Opens the RELRO window once, if a slot in it is to be written. */
static int writable(uintptr_t got, uintptr_t rlo, uintptr_t rhi, int *opened)
{
    if (got < rlo || got >= rhi || *opened)
        return 1;
    if (mprotect((void *)rlo, rhi - rlo, PROT_READ | PROT_WRITE) != 0)
        return 0;
    *opened = 1;
    return 1;
}

/* -fno-plt calls: GLOB_DAT slots of functions of other objects that only
 * calls go through (plt_got.c). */
static void patch_got_calls(struct dl_phdr_info *info,
                            const struct dyn_info *d, uintptr_t rlo,
                            uintptr_t rhi, int *opened)
{
    size_t bytes = d->nrela * sizeof(struct got_use);
    struct got_use *u = ct_scratch_alloc(bytes);
    if (!u)
        return;
    size_t n = 0;
    for (size_t i = 0; i < d->nrela; i++) {
        const ElfW(Rela) *r = &d->rela[i];
        uint32_t sym = ELF64_R_SYM(r->r_info);
        if (ELF64_R_TYPE(r->r_info) != R_X86_64_GLOB_DAT || sym == 0)
            continue;
        const ElfW(Sym) *st = &d->symtab[sym];
        int type = ELF64_ST_TYPE(st->st_info);
        const char *name = d->strtab + st->st_name;
        uintptr_t got = d->base + r->r_offset, cur = *(uintptr_t *)got;
        uintptr_t hook = ct_plt_hook_for(name);
        if ((type != STT_FUNC && type != STT_GNU_IFUNC) ||
            st->st_shndx != SHN_UNDEF || cur == 0 || plt_is_stub(cur) ||
            cur == hook || in_exec_segment(info, cur) ||
            (!hook && ct_got_never_patched(name)))
            continue;
        u[n++] = (struct got_use){.got = got, .name = name};
    }
    ct_got_classify(info, u, n);
    for (size_t i = 0; i < n; i++) {
        if (!u[i].called || u[i].other ||
            !writable(u[i].got, rlo, rhi, opened))
            continue;
        uintptr_t *got = (uintptr_t *)u[i].got, hook = ct_plt_hook_for(u[i].name);
        if (hook) {
            __atomic_store_n(got, hook, __ATOMIC_RELEASE);
            continue;
        }
        uintptr_t target = *got,
                  stub = patch_slot(got, 0, 0, u[i].name, "@got", NULL, 0);
        if (stub)
            ct_plt_name_stub(stub, target, u[i].name, "@got");
    }
    ct_scratch_free(u, bytes);
}

/*
 * The unwinder of libgcc_s looks up each frame's unwind information
 * through _dl_find_object (dl_iterate_phdr before glibc 2.35), starting
 * with its own frames, before it reaches any of ours.  Calls that do not
 * come through the wrappers of plt_unwind.c (glibc's thread cancellation
 * and pthread_exit, its backtrace(), which call libgcc_s by pointers) are
 * caught there: the real return addresses are put back first.
 */
static void hook_unwinder(const struct dl_phdr_info *info,
                          const struct dyn_info *d)
{
    uintptr_t rlo, rhi;
    int opened = 0;
    relro_range(info, &rlo, &rhi);
    for (size_t i = 0; i < d->njmprel; i++) {
        const char *name = rel_name(d, &d->jmprel[i]);
        uintptr_t hook = ct_plt_unwinder_hook_for(name);
        uintptr_t *got = (uintptr_t *)(d->base + d->jmprel[i].r_offset);
        /* A stub there would be called by the hook as the real function,
         * and call the hook again. */
        if (!hook || *got == hook || plt_is_stub(*got) ||
            !writable((uintptr_t)got, rlo, rhi, &opened))
            continue;
        ct_plt_unwinder_next(name, *got);
        __atomic_store_n(got, hook, __ATOMIC_RELEASE);
    }
    if (opened)
        mprotect((void *)rlo, rhi - rlo, PROT_READ);
}

static int patch_object(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    if (arg)
        note_start_object(info);
    if (is_own_object(info) || ct_elf_is_loader(info->dlpi_name))
        return 0;
    struct dyn_info d;
    if (read_dynamic(info, &d) < 0 || (d.njmprel == 0 && d.nrela == 0))
        return 0;
    if (info->dlpi_name && strstr(info->dlpi_name, "/libgcc_s.so"))
        hook_unwinder(info, &d);
    if (plt_mode != CT_LIBCALLS_NESTED &&
        !imports(&d, "__cyg_profile_func_enter") &&
        !ct_patch_has_object(info->dlpi_addr))
        return 0;
    size_t bytes = (d.njmprel + 1) * sizeof(struct got_ref);
    struct got_ref *refs = ct_scratch_alloc(bytes);
    if (!refs)
        return 0;
    size_t n = 0;
    for (size_t i = 0; i < d.njmprel; i++) {
        const ElfW(Rela) *r = &d.jmprel[i];
        const char *name = rel_name(&d, r);
        if (ELF64_R_TYPE(r->r_info) != R_X86_64_JUMP_SLOT || !name)
            continue;
        uintptr_t hook = ct_plt_hook_for(name);
        if (!hook && ct_plt_never_patched(name) && !told_by_wrapper(name))
            continue;
        refs[n++] = (struct got_ref){d.base + r->r_offset, 0, hook, name,
                                     (uint32_t)i};
    }
    ct_sort(refs, n, sizeof *refs, cmp_got);
    find_plt_entries(info, refs, n);
    uintptr_t rlo, rhi;
    relro_range(info, &rlo, &rhi);
    int opened = 0;
    void *map = plt_binding_map(d.pltgot);
    for (size_t i = 0; i < n; i++) {
        uintptr_t now = *(uintptr_t *)refs[i].got;
        if (told_by_wrapper(refs[i].name)) {
            note_wrapped(refs[i].plt);  /* never patched */
            continue;
        }
        /* The unwinder's own look-ups (hook_unwinder) are not recorded:
         * they run while it walks the stack, hundreds per throw. */
        if ((!refs[i].plt && !refs[i].hook) || plt_is_stub(now) ||
            (refs[i].hook && now == refs[i].hook) ||
            now == ct_plt_unwinder_hook_for(refs[i].name))
            continue;
        int in_relro = refs[i].got >= rlo && refs[i].got < rhi;
        if (!writable(refs[i].got, rlo, rhi, &opened))
            continue;
        if (refs[i].hook) {
            /* Lazy or not, dlsym is reached through the hook from now on. */
            __atomic_store_n((uintptr_t *)refs[i].got, refs[i].hook,
                             __ATOMIC_RELEASE);
            continue;
        }
        uintptr_t cur = *(uintptr_t *)refs[i].got;
        /* Unresolved, a lazy slot points back into its object's PLT;
         * RELRO slots were bound at load. */
        patch_slot((uintptr_t *)refs[i].got, refs[i].plt,
                   !in_relro && in_exec_segment(info, cur), refs[i].name,
                   "@plt", map, refs[i].reloc);
    }
    patch_got_calls(info, &d, rlo, rhi, &opened);
    if (opened)
        mprotect((void *)rlo, rhi - rlo, PROT_READ);
    ct_scratch_free(refs, bytes);
    return 0;
}

int ct_plt_point_import(struct dl_phdr_info *info, const char *name,
                        uintptr_t to)
{
    struct dyn_info d;
    if (read_dynamic(info, &d) < 0)
        return 0;
    uintptr_t rlo, rhi;
    relro_range(info, &rlo, &rhi);
    int opened = 0, n = 0;
    for (int table = 0; table < 2; table++) {
        const ElfW(Rela) *r = table ? d.rela : d.jmprel;
        size_t count = table ? d.nrela : d.njmprel;
        uint32_t type = table ? R_X86_64_GLOB_DAT : R_X86_64_JUMP_SLOT;
        for (size_t i = 0; i < count; i++) {
            const char *rn = rel_name(&d, &r[i]);
            if (ELF64_R_TYPE(r[i].r_info) != type || !rn ||
                strcmp(rn, name) != 0)
                continue;
            uintptr_t got = d.base + r[i].r_offset;
            if (!writable(got, rlo, rhi, &opened))
                continue;
            __atomic_store_n((uintptr_t *)got, to, __ATOMIC_RELEASE);
            n++;
        }
    }
    if (opened)
        mprotect((void *)rlo, rhi - rlo, PROT_READ);
    return n;
}

static void patch_all(int at_start)
{
    if (plt_mode == CT_LIBCALLS_NONE)
        return;
    int saved = errno;
    uint32_t slots = ct_plt_slot_count();
    pthread_mutex_lock(&plt_patch_lock);
    dl_iterate_phdr(patch_object, at_start ? &at_start : NULL);
    pthread_mutex_unlock(&plt_patch_lock);
    /* The new slots' functions and the new stubs' names (-fno-plt calls)
     * go in a MAPS block of their own: the one written after the dlopen
     * came first.  At start the first MAPS block follows (lifecycle.c). */
    if (!at_start && ct_plt_slot_count() != slots)
        ct_maps_write();
    errno = saved;
}

void ct_plt_start(int mode)
{
    plt_mode = mode;
    if (mode == CT_LIBCALLS_NONE)
        return;
    plt_key_ok = pthread_key_create(&plt_key, plt_thread_free) == 0;
    patch_all(1);
}

void ct_plt_after_load(void)
{
    patch_all(0);
}

int ct_plt_recording(void)
{
    return plt_mode != CT_LIBCALLS_NONE;
}

uintptr_t ct_plt_hook_for(const char *name)
{
    if (strcmp(name, "dlsym") == 0)
        return (uintptr_t)ct_dlsym_hook;
    if (strcmp(name, "dlvsym") == 0)
        return (uintptr_t)ct_dlvsym_hook;
    return 0;
}

uintptr_t ct_plt_pointer_slot(uintptr_t target, const char *name)
{
    pthread_mutex_lock(&plt_patch_lock);
    uintptr_t stub = 0;
    if (plt_nslots < CT_PLT_MAX_SLOTS && plt_slot_chunk_get(plt_nslots) == 0) {
        uint32_t i = plt_nslots;
        stub = plt_stub_addr(i);
        uint32_t rule = name ? ct_args_rule_for(name, 1) : 0;
        SLOT(i) = (struct plt_slot){target, NULL, stub, LAZY_NO, 0, NULL,
                                     rule, ct_args_keeps(rule)};
        SLOT_NAME(i) = name ? ct_scratch_keep(name) : NULL;
        SLOT_MARK(i) = name ? "@dlsym" : NULL;
        plt_publish(i);
        __atomic_store_n(&plt_nslots, i + 1, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&plt_patch_lock);
    return stub;
}

/* The list of a MAPS block's CT_MAP_LIBCALLS entry: each named slot's
 * function, as a delta from the one before.  A list cut short by the room
 * left counts what it holds. */
uint8_t *ct_plt_libcalls_put(uint8_t *p, const uint8_t *end)
{
    uint32_t n = __atomic_load_n(&plt_nslots, __ATOMIC_ACQUIRE);
    if (n == 0 || end - p < 9 + 10)
        return p;
    uint8_t *head = p;
    p += 9;
    uint32_t count = 0;
    uint64_t prev = 0;
    for (uint32_t i = 0; i < n && end - p >= 10; i++) {
        if (!SLOT_NAME(i))
            continue;  /* the calibration's slot: no call of the program */
        uint64_t fn = SLOT(i).fn;
        p = ct_put_varint(p, ct_zigzag((int64_t)(fn - prev)));
        prev = fn;
        count++;
    }
    if (count == 0)
        return head;
    uint32_t bytes = (uint32_t)(p - head - 9);
    head[0] = CT_MAP_LIBCALLS;
    memcpy(head + 1, &count, 4);
    memcpy(head + 5, &bytes, 4);
    return p;
}

uint32_t ct_plt_slot_count(void)
{
    return __atomic_load_n(&plt_nslots, __ATOMIC_ACQUIRE);
}

uint32_t ct_plt_slot_names(uint32_t from, ct_slot_name_fn fn, void *arg)
{
    uint32_t n = __atomic_load_n(&plt_nslots, __ATOMIC_ACQUIRE);
    for (uint32_t i = from; i < n; i++)
        if (SLOT_NAME(i))
            fn(arg, SLOT_NAME(i), SLOT_MARK(i), SLOT(i).fn);
    return n;
}
