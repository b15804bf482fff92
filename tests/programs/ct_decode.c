/*
 * ct_decode: a small, independent reader of calltrace .raw files for the
 * tracer's end-to-end tests.  It shares only calltrace_format.h with the
 * tracer, so the tests check the bytes, not a second copy of the writer.
 *
 *   ct_decode [-n NM_OUTPUT] TRACE.raw
 *
 * One line per item:
 *   H pid=P ppid=P flags=F threads=N lost=N clock=C hz=N bias_ps=N
 *   M base start end path                       (MAPS entry)
 *   B tid seq=N depth=N flags=F lost=N          (EVENTS block)
 *   tid ticks C fn site | R | S | E | V msg | L n | K n fn... | T on | X
 *                                               | N name | P weight depth
 * fn is a symbol name when NM_OUTPUT (nm of the main program) has it, the
 * address relative to the program's load base otherwise.  ticks are
 * absolute.  A last line "check ok" or "check FAILED: why" reports whether
 * every thread's calls and returns nest, block after block (the STACK
 * record of each block must match the frames the previous one left open).
 * Exit status 0, or 1 on an unreadable file, or 3 when the check fails.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calltrace_format.h"

struct sym { uint64_t addr; char name[128]; };
static struct sym *syms;
static size_t nsyms;

struct map { uint64_t base, start, end; char path[1024]; };
static struct map maps[256];
static size_t nmaps;

struct thread { uint32_t tid; uint32_t next_seq; size_t depth; uint64_t stack[100000]; };
/* As many as the trace has: a long stress run has thousands. */
static struct thread **threads;
static size_t nthreads, threads_cap;

static const struct ct_file_header *hdr;
static int check_failed;

/* fmt has at most one %llu, filled with a. */
static void check_fail(const char *fmt, uint32_t tid, uint64_t a)
{
    if (!check_failed) {
        printf("check FAILED: tid %u: ", tid);
        printf(fmt, (unsigned long long)a);
        printf("\n");
    }
    check_failed = 1;
}

static void load_nm(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        perror(path);
        exit(1);
    }
    char line[512];
    size_t cap = 0;
    while (fgets(line, sizeof line, f)) {
        unsigned long long a;
        char type, name[128];
        if (sscanf(line, "%llx %c %127s", &a, &type, name) != 3)
            continue;
        if (nsyms == cap) {
            cap = cap ? cap * 2 : 256;
            syms = realloc(syms, cap * sizeof *syms);
        }
        syms[nsyms].addr = a;
        snprintf(syms[nsyms].name, sizeof syms[nsyms].name, "%s", name);
        nsyms++;
    }
    fclose(f);
}

/* Address relative to the main program when it falls in it. */
static uint64_t relative(uint64_t a)
{
    for (size_t i = 0; i < nmaps; i++)
        if (a >= maps[i].start && a < maps[i].end &&
            strcmp(maps[i].path, hdr->exe) == 0)
            return a - maps[i].base;
    return a;
}

static void print_fn(uint64_t a)
{
    uint64_t r = relative(a);
    for (size_t i = 0; i < nsyms; i++)
        if (syms[i].addr == r) {
            printf(" %s", syms[i].name);
            return;
        }
    printf(" 0x%llx", (unsigned long long)r);
}

static struct thread *thread_of(uint32_t tid)
{
    for (size_t i = 0; i < nthreads; i++)
        if (threads[i]->tid == tid)
            return threads[i];
    struct thread *t = calloc(1, sizeof *t);
    if (nthreads == threads_cap) {
        threads_cap = threads_cap ? 2 * threads_cap : 64;
        threads = realloc(threads, threads_cap * sizeof *threads);
    }
    if (!t || !threads) {
        fprintf(stderr, "ct_decode: out of memory\n");
        exit(1);
    }
    t->tid = tid;
    threads[nthreads++] = t;
    return t;
}

static void read_maps(const uint8_t *p, const uint8_t *end)
{
    while (p < end && *p == CT_MAP_OBJECT && nmaps < 256) {
        struct map *m = &maps[nmaps];
        p++;
        memcpy(&m->base, p, 8);
        memcpy(&m->start, p + 8, 8);
        memcpy(&m->end, p + 16, 8);
        p += 24;
        p += 1 + *p;
        uint16_t len;
        memcpy(&len, p, 2);
        p += 2;
        snprintf(m->path, sizeof m->path, "%.*s", (int)len, (const char *)p);
        p += len;
        nmaps++;
    }
}

static int get(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    if (ct_get_varint(p, end, v) < 0) {
        printf("truncated record\n");
        return -1;
    }
    return 0;
}

static void decode_ext(struct thread *t, uint64_t ticks, uint8_t sub,
                       const uint8_t *q, const uint8_t *qend, int first)
{
    uint32_t tid = t->tid;
    uint64_t v, n;
    switch (sub) {
    case CT_EXT_OVERHEAD_START: printf("%u %llu S\n", tid, (unsigned long long)ticks); break;
    case CT_EXT_OVERHEAD_END: printf("%u %llu E\n", tid, (unsigned long long)ticks); break;
    case CT_EXT_USER:
        printf("%u %llu V %.*s\n", tid, (unsigned long long)ticks, (int)(qend - q), (const char *)q);
        break;
    case CT_EXT_LOST:
        get(&q, qend, &v);
        printf("%u %llu L %llu\n", tid, (unsigned long long)ticks, (unsigned long long)v);
        break;
    case CT_EXT_STACK:
        get(&q, qend, &n);
        printf("%u %llu K %llu", tid, (unsigned long long)ticks, (unsigned long long)n);
        if (!first)
            check_fail("STACK record not at block start", tid, 0);
        if (t->next_seq && n != t->depth)
            check_fail("STACK depth %llu differs from open frames", tid, n);
        for (uint64_t i = 0; i < n; i++) {
            get(&q, qend, &v);
            print_fn(v);
            if (t->next_seq && i < t->depth && t->stack[i] != v)
                check_fail("STACK frame differs at %llu", tid, i);
            if (i < 100000)
                t->stack[i] = v;
        }
        t->depth = n;
        printf("\n");
        break;
    case CT_EXT_TOGGLE:
        printf("%u %llu T %u\n", tid, (unsigned long long)ticks, q < qend ? *q : 9);
        break;
    case CT_EXT_THREAD_END: printf("%u %llu X\n", tid, (unsigned long long)ticks); break;
    case CT_EXT_THREAD_NAME:
        printf("%u %llu N %.*s\n", tid, (unsigned long long)ticks, (int)(qend - q), (const char *)q);
        break;
    case CT_EXT_SAMPLE:
        get(&q, qend, &v);
        get(&q, qend, &n);
        printf("%u %llu P %llu %llu\n", tid, (unsigned long long)ticks,
               (unsigned long long)v, (unsigned long long)n);
        break;
    default:
        printf("%u %llu ? ext %u\n", tid, (unsigned long long)ticks, sub);
    }
}

static void decode_events(const struct ct_block_header *b)
{
    const uint8_t *p = (const uint8_t *)b + CT_BLOCK_HEADER_SIZE;
    const uint8_t *end = (const uint8_t *)b + b->size;
    if (b->flags & CT_BLOCK_CLOSED)
        end = p + b->used;
    struct thread *t = thread_of(b->tid);
    /* The kernel reuses the tid of a thread that ended: block 0 again is
     * a new thread, with nothing open. */
    if (b->seq == 0 && t->next_seq != 0) {
        t->next_seq = 0;
        t->depth = 0;
    }
    printf("B %u seq=%u depth=%u flags=%u lost=%llu\n", b->tid, b->seq,
           b->open_depth, b->flags, (unsigned long long)b->lost);
    if (b->seq != t->next_seq)
        check_fail("block seq %llu out of order", b->tid, b->seq);
    uint64_t ticks = b->first_ticks, prev_fn = 0, prev_site = 0, head;
    int first = 1;
    while (p < end && *p) {
        if (get(&p, end, &head) < 0)
            break;
        uint64_t delta;
        unsigned type = ct_head_split(head, hdr->flags & CT_FILE_HEAD_PREFIX,
                                      &delta);
        ticks += delta;
        switch (type) {
        case CT_REC_ENTRY: {
            uint64_t dfn, dsite;
            if (get(&p, end, &dfn) < 0 || get(&p, end, &dsite) < 0)
                return;
            prev_fn += (uint64_t)ct_unzigzag(dfn);
            prev_site += (uint64_t)ct_unzigzag(dsite);
            printf("%u %llu C", b->tid, (unsigned long long)ticks);
            print_fn(prev_fn);
            printf(" 0x%llx\n", (unsigned long long)relative(prev_site));
            if (t->depth < 100000)
                t->stack[t->depth] = prev_fn;
            t->depth++;
            break;
        }
        case CT_REC_EXIT:
            printf("%u %llu R\n", b->tid, (unsigned long long)ticks);
            if (t->depth == 0)
                check_fail("return without a call", b->tid, 0);
            else
                t->depth--;
            break;
        case CT_REC_EXT: {
            uint64_t len;
            if (p >= end)
                return;
            uint8_t sub = *p++;
            if (get(&p, end, &len) < 0 || len > (uint64_t)(end - p)) {
                printf("bad ext length\n");
                return;
            }
            decode_ext(t, ticks, sub, p, p + len, first);
            p += len;
            break;
        }
        default:
            printf("bad record type %u\n", type);
            return;
        }
        first = 0;
    }
    t->next_seq = b->seq + 1;
}

int main(int argc, char **argv)
{
    int a = 1;
    if (a + 1 < argc && strcmp(argv[a], "-n") == 0) {
        load_nm(argv[a + 1]);
        a += 2;
    }
    if (a >= argc) {
        fprintf(stderr, "usage: ct_decode [-n nm.txt] trace.raw\n");
        return 1;
    }
    FILE *f = fopen(argv[a], "rb");
    if (!f) {
        perror(argv[a]);
        return 1;
    }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = calloc(1, (size_t)size + CT_BLOCK_ALIGN);
    if (fread(buf, 1, (size_t)size, f) != (size_t)size) {
        perror("read");
        return 1;
    }
    fclose(f);
    hdr = (const struct ct_file_header *)buf;
    if (size < (long)CT_FILE_HEADER_SIZE || memcmp(hdr->magic, CT_FILE_MAGIC, 8)) {
        fprintf(stderr, "%s: not a calltrace file\n", argv[a]);
        return 1;
    }
    printf("H pid=%u ppid=%u flags=%u threads=%u lost=%llu clock=%u hz=%llu "
           "bias_ps=%llu\n", hdr->pid, hdr->ppid,
           /* the state of the trace; how its records are encoded is not */
           hdr->flags & ~CT_FILE_HEAD_PREFIX, hdr->threads,
           (unsigned long long)hdr->lost, hdr->clock,
           (unsigned long long)hdr->tick_hz, (unsigned long long)hdr->bias_ps);
    for (int pass = 0; pass < 2; pass++) {
        for (long off = CT_FILE_HEADER_SIZE; off + CT_BLOCK_HEADER_SIZE <= size;) {
            const struct ct_block_header *b = (const void *)(buf + off);
            if (b->magic != CT_BLOCK_MAGIC || b->size < CT_BLOCK_ALIGN ||
                off + (long)b->size > size) {
                off += CT_BLOCK_ALIGN;
                continue;
            }
            if (pass == 0 && b->kind == CT_BLOCK_MAPS)
                read_maps((const uint8_t *)b + CT_BLOCK_HEADER_SIZE,
                          (const uint8_t *)b + CT_BLOCK_HEADER_SIZE + b->used);
            if (pass == 1 && b->kind == CT_BLOCK_EVENTS)
                decode_events(b);
            off += b->size;
        }
        if (pass == 0)
            for (size_t i = 0; i < nmaps; i++)
                printf("M 0x%llx 0x%llx 0x%llx %s\n",
                       (unsigned long long)maps[i].base,
                       (unsigned long long)maps[i].start,
                       (unsigned long long)maps[i].end, maps[i].path);
    }
    if (!check_failed)
        printf("check ok\n");
    return check_failed ? 3 : 0;
}
