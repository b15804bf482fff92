/*
 * calltrace binary reader, first pass: block headers only, into a small
 * per-block index; MAPS blocks for the symbolizer; thread indices.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/readers/calltrace_reader.h"
#include "analyzer/readers/calltrace_record.h"
#include "analyzer/util.h"

void ctr_set_stopped(struct ct_trace_info *info, const char *path,
                     size_t byte, const char *fmt, ...)
{
    if (info->stopped[0])
        return; /* the first damage is the one reported */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(info->stopped, sizeof info->stopped, fmt, ap);
    va_end(ap);
    char where[48];
    snprintf(where, sizeof where, "byte %zu", byte);
    ct_input_error(path, where, "%s", info->stopped);
}

static bool all_zero(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i])
            return false;
    return true;
}

bool ctr_block_header_ok(const struct ct_block_header *h)
{
    bool packed = h->kind == CT_BLOCK_PACKED;
    return h->magic == CT_BLOCK_MAGIC &&
           h->header_size == CT_BLOCK_HEADER_SIZE && h->size != 0 &&
           (packed ? ctr_packed_header_ok(h) : h->size % CT_BLOCK_ALIGN == 0) &&
           (h->kind == CT_BLOCK_EVENTS || h->kind == CT_BLOCK_MAPS ||
            h->kind == CT_BLOCK_STREAM || h->kind == CT_BLOCK_PROFILE ||
            packed);
}

/* Blocks in file order; a damaged header ends the index.  A flight
 * recorder's ring is read slot by slot (calltrace_flight.c). */
struct block ctr_block_at(const struct ct_block_header *h, uint64_t off,
                          uint64_t left)
{
    return (struct block){
        .off = off,
        .avail = left < h->size ? left : h->size,
        .first = h->first_ticks,
        .last = h->last_ticks,
        .lost = h->lost,
        .tid = h->tid,
        .seq = h->seq,
        .flags = h->flags,
        .used = h->used,
        .size = h->size,
        .open_depth = h->open_depth,
        .last_switch = h->last_switch,
        /* Read as the EVENTS block it stands for (ctr_payload unpacks). */
        .kind = h->kind == CT_BLOCK_PACKED ? CT_BLOCK_EVENTS : h->kind,
        .packed = h->kind == CT_BLOCK_PACKED,
        .zlen = h->kind == CT_BLOCK_PACKED ? h->reserved : 0,
        .moved = h->kind == CT_BLOCK_EVENTS && (h->flags & CT_BLOCK_MOVED) &&
                 (h->flags & CT_BLOCK_CLOSED),
    };
}

struct block *ctr_index_blocks(const struct ct_input *in,
                               struct ct_trace_info *info,
                               const struct ct_file_header *fh,
                               size_t *count)
{
    struct block *blocks = NULL;
    size_t n = 0, cap = 0;
    size_t off = fh->header_size;
    if (ctr_flight_ring(fh))
        off = ctr_index_ring(in, fh, &blocks, &n, &cap);
    while (off < in->size) {
        size_t left = in->size - off;
        const uint8_t *p = in->data + off;
        if (left < CT_BLOCK_HEADER_SIZE) {
            if (!all_zero(p, left))
                ctr_set_stopped(info, in->path, off,
                            "truncated block header at byte %zu", off);
            break;
        }
        struct ct_block_header h;
        memcpy(&h, p, sizeof h);
        if (h.magic == 0 && all_zero(p, CT_BLOCK_HEADER_SIZE)) {
            /* A page the tracer reserved but never started. */
            off += CT_BLOCK_ALIGN;
            continue;
        }
        if (!ctr_block_header_ok(&h)) {
            ctr_set_stopped(info, in->path, off,
                        "damaged block header at byte %zu", off);
            break;
        }
        ct_grow(&blocks, &cap, n, sizeof *blocks);
        struct block *b = &blocks[n++];
        *b = ctr_block_at(&h, off, left);
        if (left < h.size) {
            ctr_set_stopped(info, in->path, in->size,
                        "truncated at byte %zu (block %zu)", in->size, n - 1);
            break;
        }
        off += h.size;
    }
    ctr_stream_resolve(in, blocks, n);
    /* A trace beside its side file: while `record --pack` runs it may
     * move any closed block as this reading goes on. */
    bool live_pack = ctr_side_present(in->path);
    uint64_t packed = 0, zbytes = 0, bytes = 0;
    for (size_t i = 0; i < n; i++) {
        blocks[i].prefix = (fh->flags & CT_FILE_HEAD_PREFIX) != 0;
        blocks[i].may_move = live_pack && blocks[i].kind == CT_BLOCK_EVENTS &&
                             !blocks[i].packed && !blocks[i].moved &&
                             (blocks[i].flags & CT_BLOCK_CLOSED);
        if (blocks[i].packed) {
            packed++;
            zbytes += blocks[i].zlen;
            bytes += blocks[i].used;
        }
    }
    if (packed) {
        char note[128];
        snprintf(note, sizeof note, "%" PRIu64 " blocks of records, %" PRIu64
                 " bytes in %" PRIu64 " (zstd)", packed, bytes, zbytes);
        ct_trace_add_meta(info, "packed", note);
    }
    ct_calltrace_stats.blocks = n;
    *count = n;
    return blocks;
}

/* The bytes of records (or map entries) a block holds in the file. */
size_t ctr_payload_len(const struct block *b, bool *partial_ok)
{
    size_t present = b->avail - CT_BLOCK_HEADER_SIZE;
    size_t cap = b->size - CT_BLOCK_HEADER_SIZE;
    *partial_ok = !(b->flags & CT_BLOCK_CLOSED) || b->avail < b->size;
    if (b->packed || b->moved)
        return 0; /* its records are in a frame: ctr_payload */
    if (!(b->flags & CT_BLOCK_CLOSED))
        return present;
    size_t used = b->used < cap ? b->used : cap;
    return used < present ? used : present;
}

static void read_entries(struct ct_symbolizer *sym, const uint8_t *p,
                         const uint8_t *end);

void ctr_read_maps(struct ct_symbolizer *sym, const struct ct_input *in,
                   const struct block *b)
{
    bool partial_ok;
    const uint8_t *p = in->data + b->off + CT_BLOCK_HEADER_SIZE;
    const uint8_t *end = p + ctr_payload_len(b, &partial_ok);
    /* A MAPS block lists every object loaded at its time. */
    ct_symbolizer_snapshot_begin(sym, b->first);
    read_entries(sym, p, end);
    ct_symbolizer_snapshot_end(sym);
}

/* A name entry (CT_MAP_NAME); returns the next entry, or NULL if cut. */
static const uint8_t *read_name(struct ct_symbolizer *sym, const uint8_t *p,
                                const uint8_t *end)
{
    uint64_t addr, target;
    uint16_t len;
    if (end - p < 1 + 16 + 2)
        return NULL;
    memcpy(&addr, p + 1, 8);
    memcpy(&target, p + 9, 8);
    memcpy(&len, p + 17, 2);
    p += 19;
    if ((size_t)(end - p) < len)
        return NULL;
    ct_symbolizer_add_name(sym, addr, target, (const char *)p, len);
    return p + len;
}

/* The library calls' functions (CT_MAP_LIBCALLS); returns the next
 * entry, or NULL if cut or not well formed. */
static const uint8_t *read_libcalls(struct ct_symbolizer *sym,
                                    const uint8_t *p, const uint8_t *end)
{
    uint32_t count, bytes;
    if (end - p < 9)
        return NULL;
    memcpy(&count, p + 1, 4);
    memcpy(&bytes, p + 5, 4);
    p += 9;
    if ((size_t)(end - p) < bytes || count > bytes)
        return NULL;
    const uint8_t *q = p, *stop = p + bytes;
    uint64_t *addr = ct_xmalloc(((size_t)count + 1) * sizeof *addr);
    uint64_t prev = 0;
    size_t n = 0;
    for (uint64_t z; n < count && ct_get_varint(&q, stop, &z) == 0; n++)
        addr[n] = prev += (uint64_t)ct_unzigzag(z);
    ct_symbolizer_add_libcalls(sym, addr, n);
    free(addr);
    return n == count ? stop : NULL;
}

static void read_entries(struct ct_symbolizer *sym, const uint8_t *p,
                         const uint8_t *end)
{
    while (p && p < end && (*p == CT_MAP_OBJECT || *p == CT_MAP_NAME ||
                            *p == CT_MAP_LIBCALLS)) {
        if (*p == CT_MAP_NAME) {
            p = read_name(sym, p, end);
            continue;
        }
        if (*p == CT_MAP_LIBCALLS) {
            p = read_libcalls(sym, p, end);
            continue;
        }
        uint64_t base, start, stop;
        if (end - p < 1 + 24 + 1)
            return;
        memcpy(&base, p + 1, 8);
        memcpy(&start, p + 9, 8);
        memcpy(&stop, p + 17, 8);
        size_t bid_len = p[25];
        p += 26;
        if ((size_t)(end - p) < bid_len + 2)
            return;
        const uint8_t *bid = p;
        p += bid_len;
        uint16_t path_len;
        memcpy(&path_len, p, 2);
        p += 2;
        if ((size_t)(end - p) < path_len)
            return;
        ct_symbolizer_add_map(sym, base, start, stop, bid, bid_len,
                              (const char *)p, path_len);
        p += path_len;
    }
}

int ctr_cmp_maps_time(const void *a, const void *b)
{
    const struct block *x = *(struct block *const *)a;
    const struct block *y = *(struct block *const *)b;
    if (x->first != y->first)
        return x->first < y->first ? -1 : 1;
    return x->off < y->off ? -1 : x->off > y->off;
}

int ctr_cmp_thread_seq(const void *a, const void *b)
{
    const struct block *x = *(struct block *const *)a;
    const struct block *y = *(struct block *const *)b;
    if (x->thread != y->thread)
        return x->thread < y->thread ? -1 : 1;
    if (x->seq != y->seq)
        return x->seq < y->seq ? -1 : 1;
    return x->off < y->off ? -1 : x->off > y->off;
}

struct thread_first {
    uint32_t tid;
    uint64_t first;
    uint32_t seq;           /* of its latest block so far                 */
    bool ended;             /* a block of it had CT_BLOCK_LAST            */
    bool reused;            /* its tid was an earlier thread's            */
    uint32_t thread;        /* its ct_trace_info index                    */
};

static const struct block *sort_blocks;

static int cmp_block_time(const void *a, const void *b)
{
    const struct block *x = &sort_blocks[*(const size_t *)a];
    const struct block *y = &sort_blocks[*(const size_t *)b];
    if (x->first != y->first)
        return x->first < y->first ? -1 : 1;
    return x->off < y->off ? -1 : x->off > y->off;
}

static const struct thread_first *sort_tf;

static int cmp_thread_first(const void *a, const void *b)
{
    const struct thread_first *x = &sort_tf[*(const size_t *)a];
    const struct thread_first *y = &sort_tf[*(const size_t *)b];
    if (x->first != y->first)
        return x->first < y->first ? -1 : 1;
    return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/*
 * Thread indices: the process's main thread first, then the others in the
 * order they started, so that the index is stable across runs.  The kernel
 * reuses the tid of a thread that ended: a block of a tid after that
 * tid's last block (CT_BLOCK_LAST), in time order, is another thread's,
 * and so is one whose seq does not go on from the tid's latest (the last
 * block was overwritten in a flight ring, or dropped from a stream: the
 * new thread's blocks start again at 0).  calltrace_follow.c splits the
 * threads the same way.
 */
void ctr_register_threads(struct ct_trace_info *info, struct block *blocks,
                          size_t n)
{
    size_t *by_time = ct_xcalloc(n ? n : 1, sizeof *by_time);
    size_t nev = 0;
    for (size_t i = 0; i < n; i++)
        if (blocks[i].kind == CT_BLOCK_EVENTS)
            by_time[nev++] = i;
    sort_blocks = blocks;
    qsort(by_time, nev, sizeof *by_time, cmp_block_time);
    struct thread_first *tf = NULL;
    size_t ntf = 0, cap = 0;
    for (size_t k = 0; k < nev; k++) {
        struct block *b = &blocks[by_time[k]];
        size_t j = ntf;
        while (j > 0 && tf[j - 1].tid != b->tid)
            j--;
        if (j == 0 || tf[j - 1].ended || b->seq <= tf[j - 1].seq) {
            ct_grow(&tf, &cap, ntf, sizeof *tf);
            tf[ntf++] = (struct thread_first){.tid = b->tid, .first = b->first,
                                              .reused = j > 0};
            j = ntf;
        }
        tf[j - 1].seq = b->seq;
        if (b->flags & CT_BLOCK_LAST)
            tf[j - 1].ended = true;
        b->thread = (uint32_t)(j - 1);  /* for now: its entry in tf */
    }
    size_t *order = ct_xcalloc(ntf ? ntf : 1, sizeof *order);
    for (size_t j = 0; j < ntf; j++)
        order[j] = j;
    sort_tf = tf;
    qsort(order, ntf, sizeof *order, cmp_thread_first);
    size_t main_thread = ntf;
    for (size_t k = 0; k < ntf && main_thread == ntf; k++)
        if (tf[order[k]].tid == info->pid)
            main_thread = order[k];
    if (main_thread < ntf)
        tf[main_thread].thread = ct_trace_thread(info, info->pid);
    for (size_t k = 0; k < ntf; k++) {
        struct thread_first *t = &tf[order[k]];
        if (order[k] != main_thread)
            t->thread = t->reused ? ct_trace_thread_new(info, t->tid)
                                  : ct_trace_thread(info, t->tid);
    }
    for (size_t k = 0; k < nev; k++) {
        struct block *b = &blocks[by_time[k]];
        b->thread = tf[b->thread].thread;
    }
    free(order);
    free(tf);
    free(by_time);
}

/* Time of the first record of a block (its base if it has none). */
uint64_t ctr_first_record_time(const struct ct_input *in,
                               const struct block *b)
{
    bool partial_ok;
    size_t len;
    struct ctr_unpacked u = {0};
    const uint8_t *p = ctr_payload(in, b, &u, &len, &partial_ok);
    const uint8_t *end = p ? p + len : NULL;
    struct ctr_rec x;
    uint64_t t = b->first;
    if (p && p < end && *p && ctr_rec_head(&p, end, b->prefix, false, &x) == 1 &&
        b->first + x.delta >= b->first)
        t = b->first + x.delta;
    ctr_unpacked_free(&u);
    return t;
}
