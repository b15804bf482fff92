/*
 * tracegen.h: writes synthetic calltrace traces (include/calltrace_format.h)
 * in memory, for tests and benchmarks.  Header-only; include it and use:
 *
 *     struct tg_trace t;
 *     tg_init(&t, 1000000000ull, 8192);   // tick_hz, block size
 *     struct tg_thread *a = tg_thread(&t, 100);   // tid 100
 *     tg_entry(&t, a, 10, 0x401000, 0x401234);   // time, fn, call site
 *     tg_exit(&t, a, 25);
 *     tg_user(&t, a, 30, "hello");
 *     tg_finish(&t);                     // closes every block
 *     tg_write(&t, "/tmp/x.raw");        // or use t.data / t.size
 *     tg_free(&t);
 *
 * Like the tracer, each thread fills its own block; when a record does not
 * fit, the block is closed and a new one begins (next seq) with a leading
 * STACK record naming the frames still open.  Blocks of different threads
 * interleave in the file in the order they were started.
 *
 * Times are absolute tick values and must not decrease per thread.  After
 * tg_init, the file header fields (t.hdr) may be changed before tg_finish:
 * pid, exe, cmdline, clock, bias_ps, ...  tg_maps() adds a MAPS block.
 * tg_finish_crashed() leaves the threads' current blocks unclosed, as after
 * SIGKILL.  Allocation failures abort: this is test code.
 */
#ifndef CT_TRACEGEN_H
#define CT_TRACEGEN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calltrace_format.h"

#define TG_MAX_THREADS 64
#define TG_MAX_DEPTH 4096

struct tg_thread {
    uint32_t tid;
    uint32_t seq;            /* seq of the current block                  */
    size_t block;            /* offset of the current block, 0 = none     */
    size_t pos;              /* write offset inside the file              */
    uint64_t time;           /* time of the last record                   */
    uint64_t prev_fn, prev_site;
    uint64_t lost;           /* lost count of the current block           */
    uint64_t stack[TG_MAX_DEPTH];
    uint32_t depth;
};

struct tg_trace {
    uint8_t *data;
    size_t size, cap;
    uint32_t block_size;
    struct ct_file_header hdr;
    struct tg_thread *threads[TG_MAX_THREADS];
    unsigned nthreads;
    uint64_t records;        /* records written, STACK records included   */
};

static inline void *tg__grow(struct tg_trace *t, size_t need)
{
    if (need > t->cap) {
        size_t cap = t->cap ? t->cap : 65536;
        while (cap < need)
            cap *= 2;
        t->data = realloc(t->data, cap);
        if (!t->data)
            abort();
        memset(t->data + t->cap, 0, cap - t->cap);
        t->cap = cap;
    }
    return t->data;
}

static inline void tg_init(struct tg_trace *t, uint64_t tick_hz,
                           uint32_t block_size)
{
    memset(t, 0, sizeof *t);
    t->block_size = block_size ? block_size : 65536;
    struct ct_file_header *h = &t->hdr;
    memcpy(h->magic, CT_FILE_MAGIC, CT_FILE_MAGIC_LEN);
    h->version = CT_FORMAT_VERSION;
    h->header_size = CT_FILE_HEADER_SIZE;
    h->flags = CT_FILE_CALLS;
    h->clock = tick_hz == 1000000000ull ? CT_CLOCK_MONOTONIC : CT_CLOCK_TSC;
    h->pid = 100;
    h->ppid = 1;
    h->tick_hz = tick_hz;
    h->block_size = t->block_size;
    strcpy(h->exe, "/usr/bin/synthetic");
    strcpy(h->cmdline, "synthetic --test");
    tg__grow(t, CT_FILE_HEADER_SIZE);
    t->size = CT_FILE_HEADER_SIZE;
}

static inline struct tg_thread *tg_thread_new(struct tg_trace *t,
                                             uint32_t tid);

/* The writer of thread tid, created on first use. */
static inline struct tg_thread *tg_thread(struct tg_trace *t, uint32_t tid)
{
    for (unsigned i = t->nthreads; i-- > 0;)
        if (t->threads[i]->tid == tid)
            return t->threads[i];
    return tg_thread_new(t, tid);
}

/* A new thread with tid, as when the kernel reuses the tid of a thread
 * that ended; tg_thread(tid) returns it from then on. */
static inline struct tg_thread *tg_thread_new(struct tg_trace *t,
                                             uint32_t tid)
{
    if (t->nthreads == TG_MAX_THREADS)
        abort();
    struct tg_thread *th = calloc(1, sizeof *th);
    if (!th)
        abort();
    th->tid = tid;
    th->seq = UINT32_MAX;
    t->threads[t->nthreads++] = th;
    return th;
}

static inline struct ct_block_header *tg__hdr(struct tg_trace *t, size_t off)
{
    return (struct ct_block_header *)(t->data + off);
}

/* Appends an empty block of `kind` and returns its offset. */
static inline size_t tg__new_block(struct tg_trace *t, uint16_t kind,
                                   uint32_t tid, uint32_t seq,
                                   uint64_t first_ticks)
{
    size_t off = t->size;
    tg__grow(t, off + t->block_size);
    t->size = off + t->block_size;
    struct ct_block_header *b = tg__hdr(t, off);
    b->magic = CT_BLOCK_MAGIC;
    b->kind = kind;
    b->header_size = CT_BLOCK_HEADER_SIZE;
    b->size = t->block_size;
    b->tid = tid;
    b->seq = seq;
    b->first_ticks = first_ticks;
    return off;
}

/* Closes the thread's current block; last = true marks the thread's end. */
static inline void tg_close_block(struct tg_trace *t, struct tg_thread *th,
                                  bool last)
{
    if (!th->block)
        return;
    struct ct_block_header *b = tg__hdr(t, th->block);
    b->used = (uint32_t)(th->pos - th->block - CT_BLOCK_HEADER_SIZE);
    b->last_ticks = th->time;
    b->lost = th->lost;
    b->flags |= CT_BLOCK_CLOSED | (last ? CT_BLOCK_LAST : 0);
    th->block = 0;
}

static inline uint8_t *tg__put_head(uint8_t *p, struct tg_thread *th,
                                    uint64_t time, unsigned type)
{
    if (time < th->time)
        abort(); /* times must not decrease per thread */
    uint64_t delta = time - th->time;
    th->time = time;
    return ct_put_varint(p, delta << CT_REC_TYPE_BITS | type);
}

static inline void tg__open_block(struct tg_trace *t, struct tg_thread *th,
                                  uint64_t time);

/* Room for `need` bytes in the thread's block, opening one if necessary. */
static inline uint8_t *tg__room(struct tg_trace *t, struct tg_thread *th,
                                uint64_t time, size_t need)
{
    if (need + CT_BLOCK_HEADER_SIZE + 16 + 10 * (size_t)th->depth >
        t->block_size)
        abort(); /* record can never fit: choose a bigger block size */
    if (th->block &&
        th->pos + need > th->block + t->block_size)
        tg_close_block(t, th, false);
    if (!th->block)
        tg__open_block(t, th, time);
    return t->data + th->pos;
}

static inline void tg__open_block(struct tg_trace *t, struct tg_thread *th,
                                  uint64_t time)
{
    th->seq++;
    th->block = tg__new_block(t, CT_BLOCK_EVENTS, th->tid, th->seq, time);
    th->pos = th->block + CT_BLOCK_HEADER_SIZE;
    th->time = time;
    th->prev_fn = th->prev_site = 0;
    th->lost = 0;
    tg__hdr(t, th->block)->open_depth = th->depth;
    if (th->depth) {
        uint8_t *p = t->data + th->pos;
        uint8_t payload[10 * (TG_MAX_DEPTH + 1)], *q = payload;
        q = ct_put_varint(q, th->depth);
        for (uint32_t i = 0; i < th->depth; i++)
            q = ct_put_varint(q, th->stack[i]);
        p = tg__put_head(p, th, time, CT_REC_EXT);
        *p++ = CT_EXT_STACK;
        p = ct_put_varint(p, (uint64_t)(q - payload));
        memcpy(p, payload, (size_t)(q - payload));
        p += q - payload;
        th->pos = (size_t)(p - t->data);
        t->records++;
    }
}

static inline void tg_entry(struct tg_trace *t, struct tg_thread *th,
                            uint64_t time, uint64_t fn, uint64_t site)
{
    uint8_t *p = tg__room(t, th, time, CT_REC_MAX_HOT), *s = p;
    p = tg__put_head(p, th, time, CT_REC_ENTRY);
    p = ct_put_varint(p, ct_zigzag((int64_t)(fn - th->prev_fn)));
    p = ct_put_varint(p, ct_zigzag((int64_t)(site - th->prev_site)));
    th->prev_fn = fn;
    th->prev_site = site;
    th->pos += (size_t)(p - s);
    if (th->depth == TG_MAX_DEPTH)
        abort();
    th->stack[th->depth++] = fn;
    t->records++;
}

static inline void tg_exit(struct tg_trace *t, struct tg_thread *th,
                           uint64_t time)
{
    uint8_t *p = tg__room(t, th, time, CT_REC_MAX_HOT), *s = p;
    p = tg__put_head(p, th, time, CT_REC_EXIT);
    th->pos += (size_t)(p - s);
    if (th->depth)
        th->depth--;
    t->records++;
}

/* Any EXT record, including subtypes the reader does not know. */
static inline void tg_ext(struct tg_trace *t, struct tg_thread *th,
                          uint64_t time, uint8_t subtype, const void *payload,
                          size_t len)
{
    uint8_t *p = tg__room(t, th, time, 22 + len), *s = p;
    p = tg__put_head(p, th, time, CT_REC_EXT);
    *p++ = subtype;
    p = ct_put_varint(p, len);
    memcpy(p, payload, len);
    p += len;
    th->pos += (size_t)(p - s);
    t->records++;
}

static inline void tg_user(struct tg_trace *t, struct tg_thread *th,
                           uint64_t time, const char *msg)
{
    tg_ext(t, th, time, CT_EXT_USER, msg, strlen(msg));
}

static inline void tg_overhead(struct tg_trace *t, struct tg_thread *th,
                               uint64_t start, uint64_t end)
{
    tg_ext(t, th, start, CT_EXT_OVERHEAD_START, "", 0);
    tg_ext(t, th, end, CT_EXT_OVERHEAD_END, "", 0);
}

static inline void tg_lost_record(struct tg_trace *t, struct tg_thread *th,
                                  uint64_t time, uint64_t count)
{
    uint8_t buf[10];
    tg_ext(t, th, time, CT_EXT_LOST, buf,
           (size_t)(ct_put_varint(buf, count) - buf));
}

/* Losses counted in the current block's header.  The tracer counts every
 * loss there at once and, when it can, also writes a LOST record for it
 * (tg_lost_record); the reader tells only the header's excess, at the
 * block's end. */
static inline void tg_lost_in_header(struct tg_thread *th, uint64_t count)
{
    th->lost += count;
}

/* pcs leaf first. */
static inline void tg_sample(struct tg_trace *t, struct tg_thread *th,
                             uint64_t time, uint64_t weight,
                             const uint64_t *pcs, uint32_t depth)
{
    uint8_t buf[10 * 130], *q = buf;
    if (depth > 128)
        abort();
    q = ct_put_varint(q, weight);
    q = ct_put_varint(q, depth);
    for (uint32_t i = 0; i < depth; i++)
        q = ct_put_varint(q, pcs[i]);
    tg_ext(t, th, time, CT_EXT_SAMPLE, buf, (size_t)(q - buf));
}

static inline void tg_thread_name(struct tg_trace *t, struct tg_thread *th,
                                  uint64_t time, const char *name)
{
    tg_ext(t, th, time, CT_EXT_THREAD_NAME, name, strlen(name));
}

static inline void tg_thread_end(struct tg_trace *t, struct tg_thread *th,
                                 uint64_t time)
{
    tg_ext(t, th, time, CT_EXT_THREAD_END, "", 0);
    tg_close_block(t, th, true);
    th->depth = 0;
}

struct tg_map {
    uint64_t base, start, end;
    const uint8_t *build_id;
    uint8_t build_id_len;
    const char *path;
};

/* A MAPS block listing `n` objects, seen at first_ticks. */
static inline void tg_maps(struct tg_trace *t, uint64_t first_ticks,
                           const struct tg_map *maps, unsigned n)
{
    size_t off = tg__new_block(t, CT_BLOCK_MAPS, 0, 0, first_ticks);
    uint8_t *p = t->data + off + CT_BLOCK_HEADER_SIZE;
    for (unsigned i = 0; i < n; i++) {
        uint16_t len = (uint16_t)strlen(maps[i].path);
        if ((size_t)(p - (t->data + off)) + 30 + maps[i].build_id_len + len >
            t->block_size)
            abort();
        *p++ = CT_MAP_OBJECT;
        memcpy(p, &maps[i].base, 8);
        memcpy(p + 8, &maps[i].start, 8);
        memcpy(p + 16, &maps[i].end, 8);
        p += 24;
        *p++ = maps[i].build_id_len;
        memcpy(p, maps[i].build_id, maps[i].build_id_len);
        p += maps[i].build_id_len;
        memcpy(p, &len, 2);
        memcpy(p + 2, maps[i].path, len);
        p += 2 + len;
    }
    struct ct_block_header *b = tg__hdr(t, off);
    b->used = (uint32_t)(p - (t->data + off) - CT_BLOCK_HEADER_SIZE);
    b->last_ticks = first_ticks;
    b->flags = CT_BLOCK_CLOSED;
}

static inline void tg__write_header(struct tg_trace *t)
{
    memcpy(t->data, &t->hdr, sizeof t->hdr);
}

/* Closes every thread's block and marks the trace finished. */
static inline void tg_finish(struct tg_trace *t)
{
    for (unsigned i = 0; i < t->nthreads; i++)
        tg_close_block(t, t->threads[i], false);
    t->hdr.flags |= CT_FILE_FINISHED;
    t->hdr.threads = t->nthreads;
    tg__write_header(t);
}

/* Leaves the current blocks unclosed, as a killed process would. */
static inline void tg_finish_crashed(struct tg_trace *t)
{
    t->hdr.threads = 0;
    tg__write_header(t);
}

static inline int tg_write(const struct tg_trace *t, const char *path)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    size_t n = fwrite(t->data, 1, t->size, f);
    return (fclose(f) == 0 && n == t->size) ? 0 : -1;
}

static inline void tg_free(struct tg_trace *t)
{
    for (unsigned i = 0; i < t->nthreads; i++)
        free(t->threads[i]);
    free(t->data);
    memset(t, 0, sizeof *t);
}

#endif /* CT_TRACEGEN_H */
