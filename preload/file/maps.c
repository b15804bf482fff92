/*
 * MAPS blocks: which objects were loaded where, with their build ids, so
 * the analyzer can symbolize addresses after the process is gone.  Written
 * at start, after each successful dlopen and dlclose, and at close when
 * the loader's counts of loads and unloads have moved since the last one
 * (an object loaded in a way no wrapper saw).
 */
#include <elf.h>
#include <link.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload/libcalls/plt.h"
#include "preload/tracer.h"

struct collect {
    uint8_t *p, *end;
    char exe[PATH_MAX];
};

static void put_u64(uint8_t **p, uint64_t v)
{
    memcpy(*p, &v, 8);
    *p += 8;
}

/* The GNU build id from the object's PT_NOTE segments, or 0 bytes. */
static size_t build_id(const struct dl_phdr_info *info, const uint8_t **id)
{
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_NOTE)
            continue;
        const uint8_t *p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
        const uint8_t *end = p + ph->p_memsz;
        while (p + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)p;
            const uint8_t *name = p + sizeof *n;
            const uint8_t *desc = name + ((n->n_namesz + 3) & ~3u);
            const uint8_t *next = desc + ((n->n_descsz + 3) & ~3u);
            if (next > end)
                break;
            if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
                memcmp(name, "GNU", 4) == 0) {
                *id = desc;
                return n->n_descsz > 255 ? 255 : n->n_descsz;
            }
            p = next;
        }
    }
    return 0;
}

static int add_object(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct collect *c = arg;
    const char *path = info->dlpi_name;
    char abs[PATH_MAX];
    if (!path || !*path)
        path = c->exe;          /* the main program */
    else if (!strchr(path, '/'))
        return 0;               /* the vDSO: no file, nothing to look up */
    else if (path[0] != '/') {
        /* A relative LD_PRELOAD or dlopen name. */
        if (!realpath(path, abs))
            return 0;
        path = abs;
    }
    if (path[0] != '/')
        return 0;
    uint64_t lo = UINT64_MAX, hi = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
            continue;
        uint64_t s = info->dlpi_addr + ph->p_vaddr;
        if (s < lo)
            lo = s;
        if (s + ph->p_memsz > hi)
            hi = s + ph->p_memsz;
    }
    if (hi == 0)
        return 0;
    const uint8_t *id = NULL;
    size_t id_len = build_id(info, &id);
    size_t path_len = strlen(path);
    if (path_len > 0xffff)
        return 0;
    size_t need = 1 + 24 + 1 + id_len + 2 + path_len;
    if (c->p + need > c->end)
        return 1;               /* full: stop */
    *c->p++ = CT_MAP_OBJECT;
    put_u64(&c->p, info->dlpi_addr);
    put_u64(&c->p, lo);
    put_u64(&c->p, hi);
    *c->p++ = (uint8_t)id_len;
    memcpy(c->p, id, id_len);
    c->p += id_len;
    uint16_t pl = (uint16_t)path_len;
    memcpy(c->p, &pl, 2);
    c->p += 2;
    memcpy(c->p, path, path_len);
    c->p += path_len;
    return 0;
}

/* The loader's counts at the last MAPS block written; `written` is 0
 * before the first one. */
static struct {
    unsigned long long adds, subs;
    int written;
} last;

static int loader_counts(struct dl_phdr_info *info, size_t size, void *arg)
{
    unsigned long long *c = arg;
    if (size < offsetof(struct dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs)
        return -1;
    c[0] = info->dlpi_adds;
    c[1] = info->dlpi_subs;
    return 1;  /* the counts are the same in every object's entry */
}

/* 1 unless the loader's counts are those of the last MAPS block. */
static int maps_changed(unsigned long long c[2])
{
    return dl_iterate_phdr(loader_counts, c) != 1 || !last.written ||
           c[0] != last.adds || c[1] != last.subs;
}

size_t ct_maps_collect(uint8_t *buf, size_t cap)
{
    /* PATH_MAX is too much for some stacks, and a static would be shared by
     * threads that dlopen at once: take the state from the buffer's end. */
    if (cap <= 2 * sizeof(struct collect))
        return 0;
    struct collect *c =
        (struct collect *)(buf + ((cap - sizeof *c) & ~(size_t)15));
    c->p = buf;
    c->end = (uint8_t *)c;
    /* The kernel's link is already absolute and resolved: one system call
     * where realpath would take one per component.  A deleted file's name
     * is no file. */
    ssize_t n = readlink("/proc/self/exe", c->exe, sizeof c->exe - 1);
    static const char deleted[] = " (deleted)";
    size_t dl = sizeof deleted - 1;
    if (n <= 0 || ((size_t)n >= dl && memcmp(c->exe + n - dl, deleted, dl) == 0))
        n = 0;
    c->exe[n] = '\0';
    dl_iterate_phdr(add_object, c);
    c->p = ct_dlsym_names_put(c->p, c->end);
    /* last: a reader that knows no such entry stops at it */
    c->p = ct_plt_libcalls_put(c->p, c->end);
    return (size_t)(c->p - buf);
}

/* Where a MAPS block is put together before it goes into the file.  In
 * .bss: a mapping of its own cost every process a system call, two faults
 * and an munmap at start (about 0.2 ms in a VM whose page faults are dear;
 * bench/RESULTS-tracer.md, "Start-up"), and only its first and last pages
 * are touched.  Small: .bss counts against RLIMIT_AS whole, and most
 * processes' objects fit in 32 KiB; a list that may not have fit is made
 * again in a mapping of BIG_COLLECT.  A second thread writing a MAPS block
 * at the same moment, or a forked child whose parent held the lock, takes
 * a mapping too. */
#define BIG_COLLECT (256u * 1024)
/* Room that one more entry may need (a path of PATH_MAX, a build id, the
 * list's state at the buffer's end): less left means the list was cut. */
#define COLLECT_SLACK (2u * PATH_MAX + 1024)
static uint8_t collect_buf[32 * 1024];
static pthread_mutex_t collect_lock = PTHREAD_MUTEX_INITIALIZER;

static void *collect_map(void)
{
    void *m = mmap(NULL, BIG_COLLECT, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return m == MAP_FAILED ? NULL : m;
}

static void maps_write(int only_if_changed)
{
    if (!ct_proc.have_file || ct_proc.failed)
        return;
    unsigned long long counts[2];
    if (!maps_changed(counts) && only_if_changed)
        return;
    int own = pthread_mutex_trylock(&collect_lock) == 0;
    size_t cap = own ? sizeof collect_buf : BIG_COLLECT;
    uint8_t *buf = own ? collect_buf : collect_map();
    if (!buf)
        goto out;
    size_t used = ct_maps_collect(buf + CT_BLOCK_HEADER_SIZE,
                                  cap - CT_BLOCK_HEADER_SIZE);
    if (buf == collect_buf &&
        used + COLLECT_SLACK > cap - CT_BLOCK_HEADER_SIZE) {
        uint8_t *big = collect_map();
        if (big) {
            buf = big;
            cap = BIG_COLLECT;
            used = ct_maps_collect(buf + CT_BLOCK_HEADER_SIZE,
                                   cap - CT_BLOCK_HEADER_SIZE);
        }
    }
    /* The block is put together whole in buf: header, objects, zeros to
     * the next CT_BLOCK_ALIGN (buf may hold an earlier block's bytes). */
    uint8_t *payload = buf + CT_BLOCK_HEADER_SIZE;
    uint32_t size =
        (uint32_t)ct_align_up(CT_BLOCK_HEADER_SIZE + used, CT_BLOCK_ALIGN);
    memset(payload + used, 0, size - CT_BLOCK_HEADER_SIZE - used);
    struct ct_block_header *b = (struct ct_block_header *)buf;
    memset(b, 0, CT_BLOCK_HEADER_SIZE);
    ct_block_begin(b, CT_BLOCK_MAPS, size, (uint32_t)syscall(SYS_gettid), 0,
                   ct_now());
    b->used = (uint32_t)used;
    b->last_ticks = b->first_ticks;
    b->flags = CT_BLOCK_CLOSED;
    int limit_hit;
    if (ct_file_write_maps_block(buf, size, &limit_hit) == 0) {
        /* Counted before collecting: a load in between is seen next time. */
        last.adds = counts[0];
        last.subs = counts[1];
        last.written = 1;
    }
    if (buf != collect_buf)
        munmap(buf, cap);
out:
    if (own)
        pthread_mutex_unlock(&collect_lock);
}

void ct_maps_write(void)
{
    maps_write(0);
}

void ct_maps_write_if_changed(void)
{
    maps_write(1);
}

/*
 * The analyzer reads each MAPS block as what was loaded at its time.
 * Without one after dlclose, a library dlopen'ed later at the same address
 * would seem loaded there since the first one's block, and the first
 * one's calls could take its names.  dlclose may leave the object loaded
 * (other references): the block then lists it again, which is harmless.
 */
void ct_maps_after_unload(int rc)
{
    if (rc == 0 && ct_proc.started == 2)
        ct_maps_write();
}
