/*
 * The function table (functab.h): every function a trace names, by
 * address or by name, gets a dense id; names and source places are
 * resolved lazily, through the reader's resolver, when first asked for.
 */
#include "analyzer/model/functab.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/util.h"

/* Open addressing; slots hold id + 1 so that 0 means empty. */
struct ct_functab {
    struct ct_func *funcs;
    uint8_t *resolved;
    uint32_t n, cap;
    uint32_t *by_name, *by_addr;
    uint32_t name_slots, addr_slots;  /* powers of two */
    uint32_t named, addressed;
    ct_resolver_fn resolver;
    void *resolver_ctx;
    uint8_t *libcall;            /* per id: a library call's function    */
    ct_libcall_test_fn libcall_test;
    void *libcall_ctx;
};

static uint64_t hash_bytes(const char *s, size_t len)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)s[i];
        h *= 1099511628211ull;
    }
    return h;
}

static uint64_t hash_addr(uint64_t a)
{
    a ^= a >> 33;
    a *= 0xff51afd7ed558ccdull;
    a ^= a >> 33;
    return a;
}

struct ct_functab *ct_functab_new(void)
{
    struct ct_functab *t = ct_xcalloc(1, sizeof *t);
    t->name_slots = t->addr_slots = 64;
    t->by_name = ct_xcalloc(t->name_slots, sizeof *t->by_name);
    t->by_addr = ct_xcalloc(t->addr_slots, sizeof *t->by_addr);
    return t;
}

void ct_functab_free(struct ct_functab *t)
{
    if (!t)
        return;
    for (uint32_t i = 0; i < t->n; i++) {
        free(t->funcs[i].name);
        free(t->funcs[i].file);
        free(t->funcs[i].object);
    }
    free(t->funcs);
    free(t->resolved);
    free(t->libcall);
    free(t->by_name);
    free(t->by_addr);
    free(t);
}

static uint32_t add_func(struct ct_functab *t)
{
    if (t->n == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 64;
        t->funcs = ct_xrealloc(t->funcs, t->cap * sizeof *t->funcs);
        t->resolved = ct_xrealloc(t->resolved, t->cap);
        t->libcall = ct_xrealloc(t->libcall, t->cap);
    }
    memset(&t->funcs[t->n], 0, sizeof t->funcs[t->n]);
    t->resolved[t->n] = 0;
    t->libcall[t->n] = 0;
    return t->n++;
}

static void rehash_names(struct ct_functab *t)
{
    uint32_t slots = t->name_slots * 2;
    uint32_t *tab = ct_xcalloc(slots, sizeof *tab);
    for (uint32_t i = 0; i < t->name_slots; i++) {
        uint32_t v = t->by_name[i];
        if (!v)
            continue;
        const char *nm = t->funcs[v - 1].name;
        uint64_t h = hash_bytes(nm, strlen(nm));
        uint32_t j = (uint32_t)h & (slots - 1);
        while (tab[j])
            j = (j + 1) & (slots - 1);
        tab[j] = v;
    }
    free(t->by_name);
    t->by_name = tab;
    t->name_slots = slots;
}

uint32_t ct_functab_intern_name(struct ct_functab *t, const char *name,
                                size_t len)
{
    if (2 * (t->named + 1) > t->name_slots)
        rehash_names(t);
    uint32_t mask = t->name_slots - 1;
    uint32_t j = (uint32_t)hash_bytes(name, len) & mask;
    for (;;) {
        uint32_t v = t->by_name[j];
        if (!v)
            break;
        const char *nm = t->funcs[v - 1].name;
        if (strlen(nm) == len && memcmp(nm, name, len) == 0)
            return v - 1;
        j = (j + 1) & mask;
    }
    uint32_t id = add_func(t);
    t->funcs[id].name = ct_xstrndup(name, len);
    t->resolved[id] = 1;
    t->by_name[j] = id + 1;
    t->named++;
    return id;
}

static void rehash_addrs(struct ct_functab *t)
{
    uint32_t slots = t->addr_slots * 2;
    uint32_t *tab = ct_xcalloc(slots, sizeof *tab);
    for (uint32_t i = 0; i < t->addr_slots; i++) {
        uint32_t v = t->by_addr[i];
        if (!v)
            continue;
        const struct ct_func *f = &t->funcs[v - 1];
        uint32_t j = (uint32_t)hash_addr(f->addr ^ (uint64_t)f->gen << 48) &
                     (slots - 1);
        while (tab[j])
            j = (j + 1) & (slots - 1);
        tab[j] = v;
    }
    free(t->by_addr);
    t->by_addr = tab;
    t->addr_slots = slots;
}

uint32_t ct_functab_intern_addr(struct ct_functab *t, uint64_t addr)
{
    return ct_functab_intern_addr_gen(t, addr, 0);
}

uint32_t ct_functab_intern_addr_gen(struct ct_functab *t, uint64_t addr,
                                    uint32_t gen)
{
    if (2 * (t->addressed + 1) > t->addr_slots)
        rehash_addrs(t);
    uint32_t mask = t->addr_slots - 1;
    uint32_t j = (uint32_t)hash_addr(addr ^ (uint64_t)gen << 48) & mask;
    for (;;) {
        uint32_t v = t->by_addr[j];
        if (!v)
            break;
        if (t->funcs[v - 1].addr == addr && t->funcs[v - 1].gen == gen)
            return v - 1;
        j = (j + 1) & mask;
    }
    uint32_t id = add_func(t);
    t->funcs[id].addr = addr;
    t->funcs[id].gen = gen;
    if (t->libcall_test)
        t->libcall[id] = t->libcall_test(t->libcall_ctx, addr);
    t->by_addr[j] = id + 1;
    t->addressed++;
    return id;
}

uint32_t ct_functab_count(const struct ct_functab *t)
{
    return t->n;
}

void ct_functab_set_source(struct ct_functab *t, uint32_t id,
                           const char *file, size_t file_len, uint32_t line)
{
    if (id >= t->n)
        return;
    struct ct_func *f = &t->funcs[id];
    free(f->file);
    f->file = file ? ct_xstrndup(file, file_len) : NULL;
    f->line = line;
}

void ct_functab_set_resolver(struct ct_functab *t, ct_resolver_fn fn,
                             void *ctx)
{
    t->resolver = fn;
    t->resolver_ctx = ctx;
}

void ct_functab_set_libcall_test(struct ct_functab *t, ct_libcall_test_fn fn,
                                 void *ctx)
{
    t->libcall_test = fn;
    t->libcall_ctx = ctx;
    /* ids interned before (a live trace's first MAPS block came late) */
    for (uint32_t id = 0; fn && id < t->n; id++)
        if (t->funcs[id].addr)
            t->libcall[id] = fn(ctx, t->funcs[id].addr);
}

bool ct_functab_is_libcall(const struct ct_functab *t, uint32_t id)
{
    return id < t->n && t->libcall[id];
}

const struct ct_func *ct_functab_get(struct ct_functab *t, uint32_t id)
{
    if (id >= t->n)
        return NULL;
    struct ct_func *f = &t->funcs[id];
    if (!t->resolved[id]) {
        t->resolved[id] = 1;
        if (t->resolver)
            t->resolver(t->resolver_ctx, f);
        if (!f->name) {
            char buf[32];
            snprintf(buf, sizeof buf, "0x%" PRIx64, f->addr);
            f->name = ct_xstrdup(buf);
        }
    }
    return f;
}

const char *ct_functab_name(struct ct_functab *t, uint32_t id)
{
    const struct ct_func *f = ct_functab_get(t, id);
    return f ? f->name : "<unknown>";
}
