/*
 * Library calls through pointers dlsym and dlvsym returned.
 *
 * There is no PLT entry to patch for them, so the dlsym/dlvsym GOT slots
 * of the objects whose library calls are recorded (plt.c) point at
 * ct_dlsym_hook/ct_dlvsym_hook (plt_tramp.S) instead.  When the result is
 * a function in another object, the caller gets a stub of the PLT stub
 * table in its place, so its calls are recorded like PLT calls; the
 * record's function is the stub itself, and every MAPS block names it
 * `name@dlsym` (CT_MAP_NAME entries, maps.c).  One stub per function: two
 * lookups of it return the same pointer.
 *
 * dlsym resolves RTLD_NEXT and RTLD_DEFAULT against its caller's object.
 * The hook calls dlsym from the tracer, so it takes over only where the
 * caller does not matter: an explicit handle, or RTLD_DEFAULT from an
 * object loaded at start (whose scope is the global one, like the
 * tracer's).  Otherwise it jumps to dlsym with the caller's return
 * address untouched and the pointer is not replaced.
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <string.h>

#include "preload/filters/filter.h"
#include "preload/libcalls/plt.h"
#include "preload/base/scratch.h"
#include "preload/sampling/sample.h"
#include "preload/tracer.h"

#define MAX_NAMED CT_PLT_MAX_SLOTS
/* Names in chunks mapped as they fill: a whole table (2.2 MB) in .bss
 * took the address space of every traced process, which counts against
 * RLIMIT_AS even where no page of it is touched. */
#define CHUNK 64u
#define NAME_MAX_LEN 255

struct named_stub {
    uintptr_t stub, target;
    const char *mark;     /* "@dlsym", "@got" */
    char name[NAME_MAX_LEN + 1];
};

static const char dlsym_mark[] = "@dlsym";

static struct named_stub *chunks[MAX_NAMED / CHUNK];
static uint32_t nnamed;

static struct named_stub *entry(uint32_t i)
{
    return &chunks[i / CHUNK][i % CHUNK];
}
static pthread_mutex_t named_lock = PTHREAD_MUTEX_INITIALIZER;

int ct_dlsym_takes(void *handle, uintptr_t caller)
{
    if (handle == RTLD_NEXT)
        return 0;
    if (handle != RTLD_DEFAULT)
        return 1;
    Dl_info di;
    struct link_map *lm = NULL;
    return dladdr1((void *)caller, &di, (void **)&lm, RTLD_DL_LINKMAP) &&
           lm && ct_plt_loaded_at_start(lm->l_addr);
}

/* A function of another object than the caller's (not data, not TLS). */
static int is_foreign_function(void *p, void *caller)
{
    Dl_info di, dc;
    const ElfW(Sym) *sym = NULL;
    if (!dladdr1(p, &di, (void **)&sym, RTLD_DL_SYMENT) || !sym)
        return 0;
    int type = ELF64_ST_TYPE(sym->st_info);
    if (type != STT_FUNC && type != STT_GNU_IFUNC)
        return 0;
    return !dladdr(caller, &dc) || dc.dli_fbase != di.dli_fbase;
}

/* Under named_lock. */
static int add_name(uintptr_t stub, uintptr_t target, const char *name,
                    const char *mark)
{
    if (nnamed >= MAX_NAMED)
        return 0;
    if (!chunks[nnamed / CHUNK] &&
        !(chunks[nnamed / CHUNK] =
              ct_scratch_alloc(CHUNK * sizeof(struct named_stub))))
        return 0;
    struct named_stub *n = entry(nnamed);
    n->stub = stub;
    n->target = target;
    n->mark = mark;
    strncpy(n->name, name, NAME_MAX_LEN);
    n->name[NAME_MAX_LEN] = '\0';
    __atomic_store_n(&nnamed, nnamed + 1, __ATOMIC_RELEASE);
    return 1;
}

void ct_plt_name_stub(uintptr_t stub, uintptr_t target, const char *name,
                      const char *mark)
{
    pthread_mutex_lock(&named_lock);
    add_name(stub, target, name, mark);
    pthread_mutex_unlock(&named_lock);
}

static uintptr_t stub_for(uintptr_t target, const char *name)
{
    uintptr_t stub = 0;
    int added = 0;
    pthread_mutex_lock(&named_lock);
    for (uint32_t i = 0; i < nnamed && !stub; i++)
        if (entry(i)->target == target && entry(i)->mark == dlsym_mark)
            stub = entry(i)->stub;
    if (!stub && nnamed < MAX_NAMED) {
        stub = ct_plt_pointer_slot(target, name);
        added = stub && add_name(stub, target, name, dlsym_mark);
    }
    pthread_mutex_unlock(&named_lock);
    /* The analyzer learns the new name from the next MAPS block. */
    if (added && ct_proc.started == 2)
        ct_maps_write();
    return stub ? stub : target;
}

/* The loader guard (sample.c) brackets the lookups: they take the
 * loader's lock, as dlopen does. */
static void *wrap_result(void *handle, const char *name, int versioned,
                         const char *version, void *caller)
{
    int guarded = ct_loader_enter();
    /* dlsym's own calls are not the program's: in nested mode they would
     * be recorded, as neither dlsym nor the lookups here are. */
    int quiet = ct_plt_quiet_begin();
    void *p = versioned ? dlvsym(handle, name, version) : dlsym(handle, name);
    void *unstubbed = p;
    int saved = errno;
    if (p && name && !ct_plt_never_patched(name) &&
        is_foreign_function(p, caller))
        p = (void *)stub_for((uintptr_t)p, name);
    ct_plt_quiet_end(quiet);
    if (guarded)
        ct_loader_leave();
    if (p != unstubbed)
        ct_filter_after_new_stub();  /* the rules may name it */
    errno = saved;
    return p;
}

/* Reached by a tail jump from ct_dlsym_hook: the return address is the
 * caller's. */
void *ct_dlsym_stubbed(void *handle, const char *name)
{
    return wrap_result(handle, name, 0, NULL, __builtin_return_address(0));
}

void *ct_dlvsym_stubbed(void *handle, const char *name, const char *version)
{
    return wrap_result(handle, name, 1, version, __builtin_return_address(0));
}

uint8_t *ct_dlsym_names_put(uint8_t *p, const uint8_t *end)
{
    uint32_t n = __atomic_load_n(&nnamed, __ATOMIC_ACQUIRE);
    for (uint32_t i = 0; i < n; i++) {
        const struct named_stub *s = entry(i);
        size_t base = strlen(s->name), len = base + strlen(s->mark);
        if ((size_t)(end - p) < 1 + 16 + 2 + len)
            break;
        *p++ = CT_MAP_NAME;
        uint64_t a = s->stub, t = s->target;
        memcpy(p, &a, 8);
        memcpy(p + 8, &t, 8);
        p += 16;
        uint16_t l = (uint16_t)len;
        memcpy(p, &l, 2);
        p += 2;
        memcpy(p, s->name, base);
        memcpy(p + base, s->mark, len - base);
        p += len;
    }
    return p;
}
