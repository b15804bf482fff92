/*
 * Reader for calltrace's own binary traces (include/calltrace_format.h).
 *
 * Two passes over the mapped file.  The first reads block headers only,
 * builds a small per-block index and loads the MAPS blocks into the
 * symbolizer.  The second decodes each thread's EVENTS blocks in seq order;
 * the threads are merged by time so that every sink (--dump especially)
 * sees one time-ordered stream without buffering.  With --time-range the
 * index tells which blocks lie before the window; they are never decoded.
 * Memory grows with the number of blocks, never with the number of events.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calltrace_format.h"
#include "read_calltrace.h"
#include "reader.h"
#include "symbolize.h"
#include "util.h"

struct ct_calltrace_stats ct_calltrace_stats;

struct block {
    size_t off;             /* file offset of the block header            */
    size_t avail;           /* bytes of the block present in the file     */
    uint64_t first, last, lost;
    uint32_t kind, tid, seq, flags, used, size, open_depth;
    uint32_t thread;        /* ct_trace_info thread index                 */
};

enum cursor_state { C_DATA, C_LOST, C_NEXT, C_DONE };

/* One thread's position in its blocks during the second pass. */
struct cursor {
    enum cursor_state state;
    uint32_t thread;
    struct block **blocks;  /* the blocks to decode, seq order            */
    uint32_t nblocks, next;
    struct block *cur;
    const uint8_t *p, *end; /* undecoded records of cur                   */
    bool partial_ok;        /* cur may end inside a record (unclosed,
                               truncated): that is its end, not damage   */
    uint64_t time, prev_fn, prev_site;
    uint64_t lost_told;     /* cur's losses its LOST records told         */
    uint64_t lost_time;     /* C_LOST: when the rest of cur's header
                               losses are told                            */
    uint32_t expect_seq;
    bool need_stack;        /* the next STACK record opens this decoding  */
};

#define FN_CACHE 1024u

/* Events handed to a batch sink at once: few enough to stay in L1. */
#define BATCH 256u

struct rd {
    const struct ct_input *in;
    struct ct_trace_info *info;
    struct ct_sink *sink;
    struct ct_batch_sink *batch; /* sink's batch interface, or NULL      */
    struct ct_event *buf;   /* decoded events not yet handed over; fields
                               a kind does not use are zero               */
    size_t nbuf, buf_cap;   /* buf_cap 1 when the sink takes events one by
                               one: it sees each as soon as it is decoded */
    struct ct_symbolizer *sym;
    bool stop;              /* the sink asked to stop                     */
    struct { uint64_t addr; uint32_t id; } fn_cache[FN_CACHE], pc_cache[256];
    uint32_t *ids;
    size_t ids_cap;
    uint64_t *pcs;
    size_t pcs_cap;
};

/* --- symbolizers live as long as the process: names resolve lazily, after
 * the read returns, and ct_trace_info has no hook to release them. ------ */

static struct ct_symbolizer **symbolizers;
static size_t nsymbolizers, symbolizers_cap;

static void free_symbolizers(void)
{
    for (size_t i = 0; i < nsymbolizers; i++)
        ct_symbolizer_free(symbolizers[i]);
    free(symbolizers);
    symbolizers = NULL;
    nsymbolizers = symbolizers_cap = 0;
}

static struct ct_symbolizer *new_symbolizer(void)
{
    if (!symbolizers_cap)
        atexit(free_symbolizers);
    ct_grow(&symbolizers, &symbolizers_cap, nsymbolizers,
            sizeof *symbolizers);
    return symbolizers[nsymbolizers++] = ct_symbolizer_new();
}

/* --- file header --------------------------------------------------------- */

static int probe(const struct ct_input *in)
{
    return in->size >= CT_FILE_MAGIC_LEN &&
                   memcmp(in->data, CT_FILE_MAGIC, CT_FILE_MAGIC_LEN) == 0
               ? 100
               : 0;
}

static int header_error(const char *path, size_t byte, const char *what)
{
    char where[48];
    snprintf(where, sizeof where, "byte %zu", byte);
    ct_input_error(path, where, "%s", what);
    return CT_EXIT_BAD_INPUT;
}

static void copy_string(char *dst, size_t cap, const char *src, size_t max)
{
    size_t n = strnlen(src, max);
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

static int read_header(const struct ct_input *in, struct ct_trace_info *info,
                       struct ct_file_header *h)
{
    const char *path = in->path;
    if (in->size == 0)
        return header_error(path, 0, "empty file, expected a calltrace trace");
    if (in->size < CT_FILE_MAGIC_LEN ||
        memcmp(in->data, CT_FILE_MAGIC, CT_FILE_MAGIC_LEN) != 0)
        return header_error(path, 0,
                            "expected the calltrace magic \"CALLTRC\"");
    if (in->size < sizeof *h)
        return header_error(path, in->size,
                            "file header cut short (truncated file)");
    memcpy(h, in->data, sizeof *h);
    char msg[128];
    if (h->version == 0 || h->version > CT_FORMAT_VERSION) {
        snprintf(msg, sizeof msg,
                 "format version %" PRIu32 ", expected %u%s", h->version,
                 CT_FORMAT_VERSION,
                 h->version ? " (written by a newer calltrace)" : "");
        return header_error(path, offsetof(struct ct_file_header, version),
                            msg);
    }
    if (h->header_size < sizeof *h || h->header_size % CT_BLOCK_ALIGN) {
        snprintf(msg, sizeof msg,
                 "header size %" PRIu32 ", expected %u", h->header_size,
                 CT_FILE_HEADER_SIZE);
        return header_error(
            path, offsetof(struct ct_file_header, header_size), msg);
    }
    if (in->size < h->header_size)
        return header_error(path, in->size,
                            "file header cut short (truncated file)");

    double ns_per_tick = h->tick_hz ? 1e9 / (double)h->tick_hz : 0;
    /* The end calibration spans the whole run: more precise when present. */
    if (h->end_ticks > h->start_ticks &&
        h->end_monotonic_ns > h->start_monotonic_ns)
        ns_per_tick = (double)(h->end_monotonic_ns - h->start_monotonic_ns) /
                      (double)(h->end_ticks - h->start_ticks);
    if (!(ns_per_tick > 0))
        return header_error(path, offsetof(struct ct_file_header, tick_hz),
                            "expected a tick rate (tick_hz is 0)");
    info->ns_per_tick = ns_per_tick;
    if (h->clock == CT_CLOCK_TSC)
        snprintf(info->clock, sizeof info->clock, "tsc %.2f GHz",
                 1.0 / ns_per_tick);
    else if (h->clock == CT_CLOCK_MONOTONIC)
        snprintf(info->clock, sizeof info->clock, "monotonic ns");
    else
        snprintf(info->clock, sizeof info->clock, "clock %" PRIu32 ", %.3g Hz",
                 h->clock, 1e9 / ns_per_tick);

    copy_string(info->program, sizeof info->program, h->exe, sizeof h->exe);
    copy_string(info->command, sizeof info->command, h->cmdline,
                sizeof h->cmdline);
    info->pid = h->pid;
    info->ppid = h->ppid;
    info->start_epoch_ns = (int64_t)h->start_realtime_ns;
    info->start_ticks = h->start_ticks;
    info->bias_ns_per_call = (double)h->bias_ps / 1000.0;
    info->sampled = (h->flags & CT_FILE_SAMPLED) != 0;
    info->sample_interval_ns = h->sample_interval_ns;
    if (!(h->flags & CT_FILE_FINISHED))
        ct_trace_add_meta(info, "trace",
                          "not closed cleanly (the process crashed, was "
                          "killed or is still running)");
    if (h->flags & CT_FILE_FAILED)
        ct_trace_add_meta(info, "tracer",
                          "stopped early after a write failure");
    return CT_EXIT_OK;
}

/* --- first pass: the block index ---------------------------------------- */

static void set_stopped(struct ct_trace_info *info, const char *path,
                        size_t byte, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void set_stopped(struct ct_trace_info *info, const char *path,
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

/* Blocks in file order; a damaged header ends the index. */
static struct block *index_blocks(const struct ct_input *in,
                                  struct ct_trace_info *info, size_t start,
                                  size_t *count)
{
    struct block *blocks = NULL;
    size_t n = 0, cap = 0;
    size_t off = start;
    while (off < in->size) {
        size_t left = in->size - off;
        const uint8_t *p = in->data + off;
        if (left < CT_BLOCK_HEADER_SIZE) {
            if (!all_zero(p, left))
                set_stopped(info, in->path, off,
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
        if (h.magic != CT_BLOCK_MAGIC ||
            h.header_size != CT_BLOCK_HEADER_SIZE || h.size == 0 ||
            h.size % CT_BLOCK_ALIGN ||
            (h.kind != CT_BLOCK_EVENTS && h.kind != CT_BLOCK_MAPS)) {
            set_stopped(info, in->path, off,
                        "damaged block header at byte %zu", off);
            break;
        }
        ct_grow(&blocks, &cap, n, sizeof *blocks);
        struct block *b = &blocks[n++];
        *b = (struct block){
            .off = off,
            .avail = left < h.size ? left : h.size,
            .first = h.first_ticks,
            .last = h.last_ticks,
            .lost = h.lost,
            .kind = h.kind,
            .tid = h.tid,
            .seq = h.seq,
            .flags = h.flags,
            .used = h.used,
            .size = h.size,
            .open_depth = h.open_depth,
        };
        if (left < h.size) {
            set_stopped(info, in->path, in->size,
                        "truncated at byte %zu (block %zu)", in->size, n - 1);
            break;
        }
        off += h.size;
    }
    ct_calltrace_stats.blocks = n;
    *count = n;
    return blocks;
}

/* The bytes of records (or map entries) a block holds in the file. */
static size_t payload_len(const struct block *b, bool *partial_ok)
{
    size_t present = b->avail - CT_BLOCK_HEADER_SIZE;
    size_t cap = b->size - CT_BLOCK_HEADER_SIZE;
    *partial_ok = !(b->flags & CT_BLOCK_CLOSED) || b->avail < b->size;
    if (!(b->flags & CT_BLOCK_CLOSED))
        return present;
    size_t used = b->used < cap ? b->used : cap;
    return used < present ? used : present;
}

static void read_maps(struct ct_symbolizer *sym, const struct ct_input *in,
                      const struct block *b)
{
    bool partial_ok;
    const uint8_t *p = in->data + b->off + CT_BLOCK_HEADER_SIZE;
    const uint8_t *end = p + payload_len(b, &partial_ok);
    while (p < end && *p == CT_MAP_OBJECT) {
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

static int cmp_maps_time(const void *a, const void *b)
{
    const struct block *x = *(struct block *const *)a;
    const struct block *y = *(struct block *const *)b;
    if (x->first != y->first)
        return x->first < y->first ? -1 : 1;
    return x->off < y->off ? -1 : x->off > y->off;
}

static int cmp_thread_seq(const void *a, const void *b)
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
};

static int cmp_thread_first(const void *a, const void *b)
{
    const struct thread_first *x = a, *y = b;
    if (x->first != y->first)
        return x->first < y->first ? -1 : 1;
    return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/*
 * Thread indices: the process's main thread first, then the others in the
 * order they started, so that the index is stable across runs.
 */
static void register_threads(struct ct_trace_info *info, struct block *blocks,
                             size_t n)
{
    struct thread_first *tf = NULL;
    size_t ntf = 0, cap = 0;
    for (size_t i = 0; i < n; i++) {
        if (blocks[i].kind != CT_BLOCK_EVENTS)
            continue;
        size_t j = 0;
        while (j < ntf && tf[j].tid != blocks[i].tid)
            j++;
        if (j == ntf) {
            ct_grow(&tf, &cap, ntf, sizeof *tf);
            tf[ntf++] = (struct thread_first){blocks[i].tid, blocks[i].first};
        } else if (blocks[i].first < tf[j].first) {
            tf[j].first = blocks[i].first;
        }
    }
    if (ntf)
        qsort(tf, ntf, sizeof *tf, cmp_thread_first);
    for (size_t j = 0; j < ntf; j++)
        if (tf[j].tid == info->pid)
            ct_trace_thread(info, tf[j].tid);
    for (size_t j = 0; j < ntf; j++)
        ct_trace_thread(info, tf[j].tid);
    for (size_t i = 0; i < n; i++)
        if (blocks[i].kind == CT_BLOCK_EVENTS)
            blocks[i].thread = ct_trace_thread(info, blocks[i].tid);
    free(tf);
}

/* Time of the first record of a block (its base if it has none). */
static uint64_t first_record_time(const struct ct_input *in,
                                  const struct block *b)
{
    bool partial_ok;
    const uint8_t *p = in->data + b->off + CT_BLOCK_HEADER_SIZE;
    const uint8_t *end = p + payload_len(b, &partial_ok);
    uint64_t head;
    if (p < end && *p && ct_get_varint(&p, end, &head) == 0 &&
        b->first + (head >> CT_REC_TYPE_BITS) >= b->first)
        return b->first + (head >> CT_REC_TYPE_BITS);
    return b->first;
}

/* --- second pass: records ------------------------------------------------ */

/* Hands the buffered events over; false when the sink asks to stop. */
static bool flush(struct rd *r)
{
    size_t n = r->nbuf;
    r->nbuf = 0;
    if (!n || r->stop)
        return !r->stop;
    if (r->batch) {
        if (r->batch->events(r->batch, r->buf, n) != 0)
            r->stop = true;
    } else {
        for (size_t i = 0; i < n && !r->stop; i++)
            if (r->sink->event(r->sink, &r->buf[i]) != 0)
                r->stop = true;
    }
    return !r->stop;
}

/* Counts the event just written at buf[*n]; a full buffer goes to the
 * sink.  False when the sink asks to stop. */
static inline __attribute__((always_inline)) bool
commit(struct rd *r, size_t *n, size_t cap)
{
    if (++*n < cap)
        return true;
    r->nbuf = *n;
    *n = 0;
    return flush(r);
}

/*
 * A rare event (anything but CALL and RETURN), handed over at once with
 * what precedes it: its stack points into buffers the next one reuses.
 */
static bool push(struct rd *r, const struct ct_event *ev)
{
    struct ct_event *slot = &r->buf[r->nbuf++];
    *slot = *ev;
    flush(r);
    *slot = (struct ct_event){0};
    return !r->stop;
}

static inline uint32_t intern_fn(struct rd *r, uint64_t fn)
{
    uint32_t slot = (uint32_t)(fn >> 4 ^ fn >> 14) & (FN_CACHE - 1);
    if (r->fn_cache[slot].addr == fn && r->fn_cache[slot].id != CT_FUNC_NONE)
        return r->fn_cache[slot].id;
    uint32_t id = ct_functab_intern_addr(r->info->funcs, fn);
    r->fn_cache[slot].addr = fn;
    r->fn_cache[slot].id = id;
    return id;
}

/*
 * Sampled pcs are interned as the function that contains them, so that a
 * sampled function and the same function's instrumented entries share one
 * id; the pcs themselves travel in ev->pcs for --by-line.  Callers' pcs are
 * return addresses, which may lie just past a function that ends in a call,
 * hence the lookup at pc - 1 for them.
 */
static uint32_t intern_pc(struct rd *r, uint64_t pc, bool caller)
{
    uint64_t key = pc - caller;
    uint32_t slot = (uint32_t)(key ^ key >> 9) & 255u;
    if (r->pc_cache[slot].addr == key && r->pc_cache[slot].id != CT_FUNC_NONE)
        return r->pc_cache[slot].id;
    uint64_t start;
    uint32_t id = ct_functab_intern_addr(
        r->info->funcs,
        ct_symbolizer_func_start(r->sym, key, &start) ? start : pc);
    r->pc_cache[slot].addr = key;
    r->pc_cache[slot].id = id;
    return id;
}

static void grow_stacks(struct rd *r, size_t depth)
{
    if (depth > r->ids_cap) {
        r->ids_cap = depth;
        r->ids = ct_xrealloc(r->ids, depth * sizeof *r->ids);
    }
    if (depth > r->pcs_cap) {
        r->pcs_cap = depth;
        r->pcs = ct_xrealloc(r->pcs, depth * sizeof *r->pcs);
    }
}

static void damage(struct rd *r, struct cursor *c, const uint8_t *at,
                   const char *what)
{
    size_t byte = (size_t)(at - r->in->data);
    set_stopped(r->info, r->in->path, byte,
                "%s at byte %zu (block at byte %zu, thread %" PRIu64 ")",
                what, byte, c->cur->off, r->info->threads[c->thread].tid);
    c->state = C_DONE;
}

/* Decodes varints without bounds checks; callers keep 32 bytes of room. */
static inline bool varint_fast(const uint8_t **pp, uint64_t *out)
{
    const uint8_t *p = *pp;
    uint64_t v = p[0];
    if (v < 0x80) {
        *pp = p + 1;
        *out = v;
        return true;
    }
    v &= 0x7f;
    for (unsigned i = 1; i < 10; i++) {
        uint64_t b = p[i];
        v |= (b & 0x7f) << (7 * i);
        if (b < 0x80) {
            *pp = p + i + 1;
            *out = v;
            return true;
        }
    }
    return false;
}

/* varint_fast with the one- and two-byte cases (most heads and deltas)
 * unrolled. */
static inline __attribute__((always_inline)) bool
varint_hot(const uint8_t **pp, uint64_t *out)
{
    const uint8_t *p = *pp;
    if (p[0] < 0x80) {
        *out = p[0];
        *pp = p + 1;
        return true;
    }
    if (p[1] < 0x80) {
        *out = (p[0] & 0x7fu) | (uint64_t)p[1] << 7;
        *pp = p + 2;
        return true;
    }
    return varint_fast(pp, out);
}

/* A cursor's decoding position, in locals while a block is decoded. */
struct dec {
    const uint8_t *p;
    uint64_t time, prev_fn, prev_site;
    uint64_t nrec;
    size_t nbuf;
};

/*
 * The common records, calls and returns, while they lie wholly before
 * fast_end (so that no byte needs a bounds check) and no later than limit.
 * Stops before anything else (an EXT record, a zero byte, damage), which
 * decode_block's general loop reads.  Returns false when the sink asked
 * to stop.
 */
static inline __attribute__((always_inline)) bool
decode_hot(struct rd *r, struct dec *d, const uint8_t *fast_end,
           uint64_t limit, uint32_t thread)
{
    struct ct_event *buf = r->buf;
    size_t buf_cap = r->buf_cap;
    while (d->p < fast_end) {
        const uint8_t *p = d->p;
        uint64_t head, a, b;
        if (!varint_hot(&p, &head))
            return true;
        uint64_t t = d->time + (head >> CT_REC_TYPE_BITS);
        if (t < d->time || t > limit)
            return true;
        struct ct_event *e = &buf[d->nbuf];
        unsigned type = head & CT_REC_TYPE_MASK;
        if (type == CT_REC_EXIT) {
            e->kind = CT_EV_RETURN;
            e->func = CT_FUNC_NONE;
            e->site = 0;
        } else if (type == CT_REC_ENTRY) {
            if (!varint_hot(&p, &a) || !varint_hot(&p, &b))
                return true;
            d->prev_fn += (uint64_t)ct_unzigzag(a);
            d->prev_site += (uint64_t)ct_unzigzag(b);
            e->kind = CT_EV_CALL;
            e->func = intern_fn(r, d->prev_fn);
            e->site = d->prev_site;
        } else {
            return true;
        }
        e->thread = thread;
        e->time = t;
        d->time = t;
        d->p = p;
        d->nrec++;
        if (!commit(r, &d->nbuf, buf_cap))
            return false;
    }
    return true;
}

/* Whether the record at q (before lim) is an OVERHEAD_END. */
static bool overhead_end_follows(const uint8_t *q, const uint8_t *lim)
{
    uint64_t head;
    if (ct_get_varint(&q, lim, &head) != 0 || q >= lim)
        return false;
    return (head & CT_REC_TYPE_MASK) == CT_REC_EXT &&
           *q == CT_EXT_OVERHEAD_END;
}

/* An EXT record's payload [p, p + len).  Returns false on damage. */
static bool ext_record(struct rd *r, struct cursor *c, struct ct_event *ev,
                       unsigned subtype, const uint8_t *p, size_t len)
{
    const uint8_t *end = p + len;
    uint64_t a, b;
    switch (subtype) {
    case CT_EXT_OVERHEAD_START:
    case CT_EXT_OVERHEAD_END:
        ev->kind = subtype == CT_EXT_OVERHEAD_START ? CT_EV_OVERHEAD_START
                                                    : CT_EV_OVERHEAD_END;
        push(r, ev);
        return true;
    case CT_EXT_USER:
        ev->kind = CT_EV_USER;
        ev->text = (const char *)p;
        ev->text_len = len;
        push(r, ev);
        ev->text = NULL;
        ev->text_len = 0;
        return true;
    case CT_EXT_LOST:
        if (ct_get_varint(&p, end, &a) != 0)
            return false;
        ev->kind = CT_EV_LOST;
        ev->count = a;
        c->lost_told += a;
        push(r, ev);
        ev->count = 0;
        return true;
    case CT_EXT_STACK:
        if (!c->need_stack)
            return true; /* the frames are known from the previous block */
        c->need_stack = false;
        /* The tracer opens every block with STACK and then OVERHEAD_END:
         * from the block's start to that end it was at work (setting up
         * the thread, or switching blocks after an OVERHEAD_START at the
         * end of a block not read here).  Say so, or the time would be
         * charged to the frames below. */
        if (overhead_end_follows(end, c->end)) {
            ev->kind = CT_EV_OVERHEAD_START;
            push(r, ev);
        }
        if (ct_get_varint(&p, end, &a) != 0 || a > len)
            return false;
        grow_stacks(r, a);
        for (uint64_t i = 0; i < a; i++) {
            if (ct_get_varint(&p, end, &b) != 0)
                return false;
            r->ids[i] = intern_fn(r, b);
        }
        ev->kind = CT_EV_STACK;
        ev->stack = r->ids;
        ev->depth = (uint32_t)a;
        push(r, ev);
        ev->stack = NULL;
        ev->depth = 0;
        return true;
    case CT_EXT_SAMPLE: {
        uint64_t weight;
        if (ct_get_varint(&p, end, &weight) != 0 ||
            ct_get_varint(&p, end, &a) != 0 || a > len)
            return false;
        grow_stacks(r, a);
        for (uint64_t i = 0; i < a; i++) {
            if (ct_get_varint(&p, end, &b) != 0)
                return false;
            r->pcs[i] = b;
            r->ids[i] = intern_pc(r, b, i > 0);
        }
        ev->kind = CT_EV_SAMPLE;
        ev->count = weight;
        ev->stack = r->ids;
        ev->pcs = r->pcs;
        ev->depth = (uint32_t)a;
        push(r, ev);
        ev->count = 0;
        ev->stack = NULL;
        ev->pcs = NULL;
        ev->depth = 0;
        return true;
    }
    case CT_EXT_THREAD_NAME: {
        struct ct_thread_info *t = &r->info->threads[c->thread];
        size_t n = len < sizeof t->name ? len : sizeof t->name - 1;
        memcpy(t->name, p, n);
        t->name[n] = '\0';
        return true;
    }
    case CT_EXT_THREAD_END:
        ev->kind = CT_EV_THREAD_END;
        push(r, ev);
        return true;
    default:
        /* CT_EXT_TOGGLE and subtypes of later versions: nothing to tell. */
        return true;
    }
}

/*
 * Decodes records of c->cur while their time is <= limit.  Returns 1 when
 * it stopped at the limit, 0 at the end of the block's data, -1 when the
 * thread or the whole read must stop.
 */
static int decode_block(struct rd *r, struct cursor *c, uint64_t limit)
{
    const uint8_t *p = c->p, *end = c->end;
    const uint8_t *fast_end = end - p > 32 ? end - 32 : p;
    uint64_t time = c->time, prev_fn = c->prev_fn, prev_site = c->prev_site;
    uint64_t nrec = 0;
    int status = 0;
    struct ct_event ev = {.thread = c->thread, .func = CT_FUNC_NONE};
    struct ct_event *buf = r->buf;
    size_t nbuf = r->nbuf, buf_cap = r->buf_cap;
    uint32_t thread = c->thread;
    bool need_stack = c->need_stack;

    while (p < end) {
        if (p < fast_end) {
            struct dec d = {p, time, prev_fn, prev_site, nrec, nbuf};
            bool go = decode_hot(r, &d, fast_end, limit, thread);
            if (d.nrec != nrec)
                need_stack = false;
            p = d.p;
            time = d.time;
            prev_fn = d.prev_fn;
            prev_site = d.prev_site;
            nrec = d.nrec;
            nbuf = d.nbuf;
            if (!go)
                goto stop;
        }
        /* One record of any kind, with every check. */
        const uint8_t *rec = p;
        uint64_t head, a, b;
        if (*p == 0)
            break; /* the end of what an unclosed block holds */
        if (p < fast_end) {
            if (!varint_fast(&p, &head))
                goto bad;
        } else if (ct_get_varint(&p, end, &head) != 0) {
            goto partial;
        }
        uint64_t t = time + (head >> CT_REC_TYPE_BITS);
        if (t < time)
            goto bad;
        if (t > limit) {
            p = rec;
            status = 1;
            break;
        }
        time = t;
        nrec++;
        switch (head & CT_REC_TYPE_MASK) {
        case CT_REC_EXIT: {
            struct ct_event *e = &buf[nbuf];
            e->kind = CT_EV_RETURN;
            e->thread = thread;
            e->time = t;
            e->func = CT_FUNC_NONE;
            e->site = 0;
            if (!commit(r, &nbuf, buf_cap))
                goto stop;
            break;
        }
        case CT_REC_ENTRY: {
            if (p < fast_end) {
                if (!varint_fast(&p, &a) || !varint_fast(&p, &b))
                    goto bad;
            } else if (ct_get_varint(&p, end, &a) != 0 ||
                       ct_get_varint(&p, end, &b) != 0) {
                goto partial;
            }
            prev_fn += (uint64_t)ct_unzigzag(a);
            prev_site += (uint64_t)ct_unzigzag(b);
            struct ct_event *e = &buf[nbuf];
            e->kind = CT_EV_CALL;
            e->thread = thread;
            e->time = t;
            e->func = intern_fn(r, prev_fn);
            e->site = prev_site;
            if (!commit(r, &nbuf, buf_cap))
                goto stop;
            break;
        }
        case CT_REC_EXT: {
            if (p >= end)
                goto partial;
            unsigned subtype = *p++;
            if (ct_get_varint(&p, end, &a) != 0)
                goto partial;
            if (a > (uint64_t)(end - p))
                goto partial;
            ev.time = t;
            c->need_stack = need_stack;
            r->nbuf = nbuf;
            bool ok = ext_record(r, c, &ev, subtype, p, (size_t)a);
            nbuf = r->nbuf;
            if (!ok)
                goto bad;
            if (r->stop)
                goto stop;
            p += a;
            break;
        }
        default:
            goto bad;
        }
        /* Only a block's leading STACK record describes its open frames. */
        need_stack = false;
        continue;
    partial:
        if (c->partial_ok) {
            p = end; /* the writer stopped inside this record */
            break;
        }
    bad:
        ct_calltrace_stats.records += nrec;
        r->nbuf = nbuf;
        damage(r, c, rec, "bad record");
        return -1;
    stop:
        r->stop = true;
        status = -1;
        break;
    }
    ct_calltrace_stats.records += nrec;
    r->nbuf = nbuf;
    c->need_stack = need_stack;
    c->p = p;
    c->time = time;
    c->prev_fn = prev_fn;
    c->prev_site = prev_site;
    return status;
}

/* Moves c to its next block; C_DONE when there is none. */
static void open_next(struct rd *r, struct cursor *c)
{
    if (c->next >= c->nblocks) {
        c->state = C_DONE;
        return;
    }
    struct block *b = c->blocks[c->next++];
    c->cur = b;
    if (c->next > 1 && b->first < c->time) {
        damage(r, c, r->in->data + b->off, "block goes back in time");
        return;
    }
    if (c->next == 1 || b->seq != c->expect_seq)
        c->need_stack = true;
    c->expect_seq = b->seq + 1;
    const uint8_t *data = r->in->data + b->off + CT_BLOCK_HEADER_SIZE;
    c->p = data;
    c->end = data + payload_len(b, &c->partial_ok);
    c->time = b->first;
    c->prev_fn = c->prev_site = 0;
    c->lost_told = 0;
    c->state = C_DATA;
    ct_calltrace_stats.blocks_decoded++;
}

/*
 * The block's records are done.  The tracer counts losses in the block
 * header as they happen (so that they survive a crash) and writes a LOST
 * record when it can; what the records did not tell comes now.
 */
static void finish_block(struct cursor *c)
{
    if (c->cur->lost > c->lost_told) {
        /* At the last record: last_ticks could break the thread's time
         * order if the header was damaged. */
        c->lost_time = c->time;
        c->state = C_LOST;
    } else {
        c->state = C_NEXT;
    }
}

/* Pushes c's events up to time limit. */
static void run(struct rd *r, struct cursor *c, uint64_t limit)
{
    while (!r->stop) {
        switch (c->state) {
        case C_DATA: {
            int s = decode_block(r, c, limit);
            if (s != 0)
                return;
            finish_block(c);
            break;
        }
        case C_LOST: {
            if (c->lost_time > limit)
                return;
            struct ct_event ev = {.kind = CT_EV_LOST, .thread = c->thread,
                                  .time = c->lost_time, .func = CT_FUNC_NONE,
                                  .count = c->cur->lost - c->lost_told};
            c->time = c->lost_time;
            c->state = C_NEXT;
            push(r, &ev);
            break;
        }
        case C_NEXT:
            open_next(r, c);
            break;
        case C_DONE:
            return;
        }
    }
}

/* Time of c's next event, UINT64_MAX when it has none. */
static uint64_t next_time(struct rd *r, struct cursor *c)
{
    for (;;) {
        switch (c->state) {
        case C_DATA: {
            const uint8_t *p = c->p;
            uint64_t head;
            if (p < c->end && *p) {
                if (ct_get_varint(&p, c->end, &head) == 0 &&
                    c->time + (head >> CT_REC_TYPE_BITS) >= c->time)
                    return c->time + (head >> CT_REC_TYPE_BITS);
                return c->time; /* damage: decode_block will say so */
            }
            finish_block(c);
            break;
        }
        case C_LOST:
            return c->lost_time;
        case C_NEXT:
            open_next(r, c);
            break;
        case C_DONE:
            return UINT64_MAX;
        }
    }
}

/* --- merging threads by time --------------------------------------------- */

struct heap_item {
    uint64_t time;
    struct cursor *c;
};

static bool earlier(const struct heap_item *a, const struct heap_item *b)
{
    return a->time != b->time ? a->time < b->time
                              : a->c->thread < b->c->thread;
}

static void heap_push(struct heap_item *h, size_t *n, struct heap_item it)
{
    size_t i = (*n)++;
    while (i > 0 && earlier(&it, &h[(i - 1) / 2])) {
        h[i] = h[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h[i] = it;
}

static struct heap_item heap_pop(struct heap_item *h, size_t *n)
{
    struct heap_item top = h[0], last = h[--*n];
    size_t i = 0;
    for (;;) {
        size_t k = 2 * i + 1;
        if (k >= *n)
            break;
        if (k + 1 < *n && earlier(&h[k + 1], &h[k]))
            k++;
        if (!earlier(&h[k], &last))
            break;
        h[i] = h[k];
        i = k;
    }
    if (*n)
        h[i] = last;
    return top;
}

static void merge(struct rd *r, struct cursor *cs, size_t n)
{
    if (n == 1) {
        run(r, &cs[0], UINT64_MAX);
        return;
    }
    struct heap_item *h = ct_xmalloc((n ? n : 1) * sizeof *h);
    size_t nh = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t t = next_time(r, &cs[i]);
        if (cs[i].state != C_DONE)
            heap_push(h, &nh, (struct heap_item){t, &cs[i]});
    }
    while (nh && !r->stop) {
        struct heap_item it = heap_pop(h, &nh);
        run(r, it.c, nh ? h[0].time : UINT64_MAX);
        uint64_t t = next_time(r, it.c);
        if (it.c->state != C_DONE)
            heap_push(h, &nh, (struct heap_item){t, it.c});
    }
    free(h);
}

/* --- the blocks a --time-range needs ------------------------------------- */

/* Narrows [*lo, *hi) of one thread's seq-ordered blocks to the window. */
static void range_blocks(struct block **bl, uint32_t *lo, uint32_t *hi,
                         uint64_t from, uint64_t to)
{
    uint32_t i = *lo;
    for (; i < *hi; i++) {
        /* An unclosed block ends no later than the next one begins. */
        uint64_t last = bl[i]->flags & CT_BLOCK_CLOSED ? bl[i]->last
                        : i + 1 < *hi                  ? bl[i + 1]->first
                                                       : UINT64_MAX;
        if (last >= from)
            break;
    }
    *lo = i;
    for (; i < *hi; i++)
        if (bl[i]->first > to) {
            i++; /* one block past the window shows time going on */
            break;
        }
    *hi = i;
}

static uint64_t ns_to_ticks(double ns_per_tick, int64_t ns, bool round_up)
{
    if (ns <= 0)
        return 0;
    double t = (double)ns / ns_per_tick;
    if (t >= 1.8e19)
        return UINT64_MAX;
    uint64_t v = (uint64_t)t;
    return round_up ? v + 1 : v;
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
    return a + b < a ? UINT64_MAX : a + b;
}

/* --- the reader ------------------------------------------------------------ */

static int read_calltrace(const struct ct_input *in,
                          struct ct_trace_info *info, struct ct_sink *sink,
                          const struct ct_read_opts *opts)
{
    memset(&ct_calltrace_stats, 0, sizeof ct_calltrace_stats);
    struct ct_file_header h;
    int status = read_header(in, info, &h);
    if (status != CT_EXIT_OK)
        return status;

    size_t nblocks;
    struct block *blocks = index_blocks(in, info, h.header_size, &nblocks);

    struct rd *r = ct_xcalloc(1, sizeof *r);
    r->in = in;
    r->info = info;
    r->sink = sink;
    r->batch = ct_sink_batch(sink);
    r->buf_cap = r->batch ? BATCH : 1;
    r->buf = ct_xcalloc(r->buf_cap, sizeof *r->buf);
    r->sym = new_symbolizer();
    for (size_t i = 0; i < FN_CACHE; i++)
        r->fn_cache[i].id = CT_FUNC_NONE;
    for (size_t i = 0; i < 256; i++)
        r->pc_cache[i].id = CT_FUNC_NONE;

    /* Loaded objects, oldest view first so that later ones win. */
    struct block **order = ct_xmalloc((nblocks + 1) * sizeof *order);
    size_t nmaps = 0, nev = 0;
    for (size_t i = 0; i < nblocks; i++)
        if (blocks[i].kind == CT_BLOCK_MAPS)
            order[nmaps++] = &blocks[i];
    qsort(order, nmaps, sizeof *order, cmp_maps_time);
    for (size_t i = 0; i < nmaps; i++)
        read_maps(r->sym, in, order[i]);
    ct_functab_set_resolver(info->funcs, ct_symbolizer_resolve, r->sym);
    info->pc_line = ct_symbolizer_line;   /* samples' lines, for --by-line */
    info->pc_line_ctx = r->sym;

    register_threads(info, blocks, nblocks);
    uint64_t lost = 0;
    for (size_t i = 0; i < nblocks; i++)
        if (blocks[i].kind == CT_BLOCK_EVENTS) {
            order[nev++] = &blocks[i];
            lost += blocks[i].lost;
        }
    info->lost_events = h.lost > lost ? h.lost : lost;
    qsort(order, nev, sizeof *order, cmp_thread_seq);

    /* One cursor per thread, over its blocks without duplicate seqs. */
    struct cursor *cs = ct_xcalloc(info->nthreads + 1, sizeof *cs);
    size_t ncs = 0;
    uint64_t first = UINT64_MAX;
    for (size_t i = 0; i < nev;) {
        size_t j = i, k = i;
        for (; j < nev && order[j]->thread == order[i]->thread; j++)
            if (j == i || order[j]->seq != order[k - 1]->seq)
                order[k++] = order[j];
        struct cursor *c = &cs[ncs++];
        c->thread = order[i]->thread;
        c->blocks = &order[i];
        c->nblocks = (uint32_t)(k - i);
        c->state = C_NEXT;
        uint64_t t = first_record_time(in, order[i]);
        if (t < first)
            first = t;
        /* Blocks dropped as duplicates leave holes that are never read. */
        for (; k < j; k++)
            order[k] = NULL;
        i = j;
    }
    if (first != UINT64_MAX) {
        info->have_first_time = true;
        info->first_time = first;
    }

    if (opts && opts->have_range && first != UINT64_MAX) {
        uint64_t from = add_sat(first, ns_to_ticks(info->ns_per_tick,
                                                   opts->range_from_ns, false));
        uint64_t to = opts->range_to_ns == INT64_MAX
                          ? UINT64_MAX
                          : add_sat(first, ns_to_ticks(info->ns_per_tick,
                                                       opts->range_to_ns,
                                                       true));
        for (size_t i = 0; i < ncs; i++) {
            uint32_t lo = 0, hi = cs[i].nblocks;
            range_blocks(cs[i].blocks, &lo, &hi, from, to);
            cs[i].blocks += lo;
            cs[i].nblocks = hi - lo;
        }
    }

    merge(r, cs, ncs);
    flush(r);

    free(cs);
    free(order);
    free(blocks);
    free(r->ids);
    free(r->pcs);
    free(r->buf);
    free(r);
    return info->stopped[0] ? CT_EXIT_BAD_INPUT : CT_EXIT_OK;
}

const struct ct_reader ct_reader_calltrace = {
    "calltrace",
    "calltrace's own binary trace (LD_PRELOAD=libcalltrace.so)",
    probe,
    read_calltrace,
};
