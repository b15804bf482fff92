/*
 * Writing the patchable entries, and choosing which are patched
 * (CALLTRACE_PATCH at start, `calltrace control PID patch SPEC` while the
 * program runs).  The objects and their tables: patch_objects.c; the calls
 * recorded: patch.c.
 *
 * At start, while one thread runs, every sled becomes one instruction: a
 * jump to its stub where patched (patch_tramp.S says why a jump), a
 * five-byte NOP where not (gcc's five one-byte NOPs, inside which a thread
 * may be stopped, become one).  From then on a sled changes with one
 * atomic store of the aligned 8 or 16 bytes that hold it, so a thread
 * running the entry meanwhile executes the old instruction or the new
 * one, never a mix of the two (LLVM XRay patches its sleds with one store
 * too); a sled no such word holds stays as it is, and is counted.  Before
 * the command returns, the other threads are made to serialize
 * (membarrier's SYNC_CORE), so every call after it meets the new
 * instruction.  A function unpatched while a thread is inside it still
 * returns through the trampoline: its frame is kept.
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

#include "preload/filters/filter.h"
#include "preload/patch/patch_objects.h"
#include "preload/tracer.h"

#define SLED CT_PATCH_SLED
#define STUB CT_PATCH_STUB
/* Items of a patch spec, and the longest glob. */
#define SPEC_ITEMS 64
#define GLOB_MAX 256

static const uint8_t nop5[SLED] = {0x0f, 0x1f, 0x44, 0x00, 0x00};

/* ------------------------------------------------------ writing them */

/* The sled's jump to its stub. */
static void jump_insn(const struct ct_pobj *o, const struct ct_sled *s,
                      uint8_t insn[SLED])
{
    const uint8_t *stub = o->stubs + STUB * (size_t)(s - o->sleds + 1);
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
void ct_patch_sync_cores(void)
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

typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);

struct each {
    struct ct_pobj *o;
    ct_named_fn fn;
    void *arg;
    demangle_fn demangle;  /* the program's __cxa_demangle, or NULL     */
    char *buf;             /* its buffer, grown by it                   */
    size_t cap;
};

/* One function symbol: its names, as the views show them. */
static void each_one(void *arg, const char *name, uintptr_t addr,
                     uint64_t size)
{
    (void)size;
    struct each *e = arg;
    struct ct_sled *s = ct_pobj_sled_of(e->o, addr);
    if (!s)
        return;
    const char *names[3] = {name, NULL, NULL};
    char bare[GLOB_MAX];
    int status = 0;
    char *out = e->demangle && name[0] == '_' && name[1] == 'Z'
                    ? e->demangle(name, e->buf, &e->cap, &status)
                    : NULL;
    if (out && status == 0) {
        e->buf = out;
        names[1] = out;
        const char *paren = strchr(out, '(');
        size_t cut = paren ? (size_t)(paren - out) : strlen(out);
        if (cut < sizeof bare) {
            memcpy(bare, out, cut);
            bare[cut] = '\0';
            names[2] = bare;
        }
    }
    e->fn(e->arg, s, names);
}

int ct_patch_each_named(struct ct_pobj *o, ct_named_fn fn, void *arg)
{
    struct each e = {o, fn, arg, NULL, NULL, 0};
    e.demangle = (demangle_fn)dlsym(RTLD_DEFAULT, "__cxa_demangle");
    int rc = ct_elf_functions(o->path, o->base, 0, each_one, &e);
    free(e.buf);
    return rc;
}

struct choose {
    const struct item *items;
    int n;
    size_t matched;
};

/* A function's wanted state after the items that match one of its
 * names. */
static void choose_one(void *arg, struct ct_sled *s, const char *const names[3])
{
    struct choose *c = arg;
    for (int i = 0; i < c->n; i++)
        for (int k = 0; k < 3; k++)
            if (names[k] && fnmatch(c->items[i].glob, names[k], 0) == 0) {
                s->want = (uint8_t)c->items[i].on;
                c->matched++;
                break;
            }
}

/* Sets every sled's want in o from the items over `from` (its state now,
 * or all on/off): 0, or -1 when the object's symbols cannot be read. */
static int choose(struct ct_pobj *o, const struct item *items, int n,
                  int from, size_t *matched)
{
    for (size_t i = 0; i < o->n; i++)
        o->sleds[i].want = from < 0 ? o->sleds[i].on : (uint8_t)from;
    struct choose c = {items, n, 0};
    int rc = ct_patch_each_named(o, choose_one, &c);
    *matched += c.matched;
    return rc;
}

/* CALLTRACE_PATCH at start: items over all patched when the first one
 * unpatches, over none when it patches.  A bad spec: one line (once),
 * all.  Parsed once, kept for the objects dlopen brings later (16 KiB:
 * not on the stack of the thread that called dlopen); called with
 * ct_patch_lock held. */
void ct_patch_choose_at_start(struct ct_pobj *o)
{
    static struct item items[SPEC_ITEMS];
    static int n;  /* items, 0 not parsed yet, -1 none or bad */
    if (!n) {
        const char *spec = ct_env_get("CALLTRACE_PATCH");
        char err[128];
        n = spec && *spec ? parse_spec(spec, items, err, sizeof err) : -1;
        if (n < 0 && spec && *spec)
            ct_message("calltrace: CALLTRACE_PATCH='%s': %s; patching every "
                       "function", spec, err);
    }
    if (n < 0)
        return;  /* all: want is 1 */
    size_t matched = 0;
    if (choose(o, items, n, items[0].on ? 0 : 1, &matched) != 0) {
        ct_message("calltrace: CALLTRACE_PATCH: the symbols of %s cannot be "
                   "read; patching every function", o->path);
        for (size_t i = 0; i < o->n; i++)
            o->sleds[i].want = 1;
    }
}

int ct_patch_write_sled(struct ct_pobj *o, struct ct_sled *s, int atomic)
{
    uint8_t insn[SLED];
    if (s->want)
        jump_insn(o, s, insn);
    else
        memcpy(insn, nop5, SLED);
    if (!atomic) {
        memcpy((void *)s->at, insn, SLED);  /* one thread runs */
        s->on = s->want;
        return 0;
    }
    if (open_text(s->at, 1) != 0)
        return -1;
    int rc = store_atomic(s->at, insn);
    if (rc == 0)
        s->on = s->want;
    open_text(s->at, 0);
    return rc;
}

int ct_patch_open_all(const struct ct_pobj *o, int on)
{
    uintptr_t page = o->lo & ~(uintptr_t)4095;
    size_t len = ((o->hi + 4095) & ~(uintptr_t)4095) - page;
    return mprotect((void *)page, len,
                    PROT_READ | PROT_EXEC | (on ? PROT_WRITE : 0));
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
    pthread_mutex_lock(&ct_patch_lock);
    size_t matched = 0, on = 0, off = 0, stuck = 0, patched = 0, all = 0;
    for (size_t k = 0; k < ct_npobjs; k++) {
        struct ct_pobj *o = &ct_pobjs[k];
        if (!o->live)
            continue;
        if (choose(o, items, n, -1, &matched) != 0) {
            pthread_mutex_unlock(&ct_patch_lock);
            snprintf(msg, len, "the symbols of %s cannot be read", o->path);
            return -1;
        }
        for (size_t i = 0; i < o->n; i++) {
            struct ct_sled *s = &o->sleds[i];
            if (s->want == s->on)
                continue;
            if (ct_patch_write_sled(o, s, 1) == 0)
                s->want ? on++ : off++;
            else
                stuck++;
        }
    }
    ct_patch_sync_cores();
    for (size_t k = 0; k < ct_npobjs; k++)
        for (size_t i = 0; ct_pobjs[k].live && i < ct_pobjs[k].n; i++) {
            patched += ct_pobjs[k].sleds[i].on;
            all++;
        }
    pthread_mutex_unlock(&ct_patch_lock);
    snprintf(msg, len, "%zu patched, %zu unpatched, %zu of %zu functions "
             "patched now%s", on, off, patched, all,
             matched ? "" : "; no function matched");
    if (stuck)
        snprintf(msg + strlen(msg), len - strlen(msg), "; %zu could not be "
                 "changed while the program runs (an entry across a 16-byte "
                 "line, or a page that cannot be made writable)", stuck);
    return 0;
}
