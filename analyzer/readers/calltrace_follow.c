/*
 * Following a calltrace trace while it grows: each poll reads only the
 * block headers and record bytes that are new since the previous one, and
 * keeps every thread's decoding position (block, byte, time, previous
 * function) in between.  The events are those the whole-file reader
 * (calltrace_decode.c) makes of the same records, one thread at a time:
 * a sink that keeps per-thread state (the profile) ends with the same
 * figures.  Off-CPU intervals (SWITCH) and stack samples are left out.
 *
 * The file grows in two ways: the tracer reserves whole blocks and fills
 * them in place (a local file: zero bytes not yet written), and a stream
 * received by `calltrace recv` is appended to (bytes not yet there).  A
 * record is decoded when its bytes are whole: inside a closed block, or,
 * in an unclosed block of a writer that may still run, when the byte
 * after it is not zero (the next record has begun).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "analyzer/readers/calltrace_follow.h"
#include "analyzer/readers/calltrace_reader.h"
#include "analyzer/readers/calltrace_record.h"
#include "analyzer/util.h"

#define EV_BATCH 256u
#define FOLLOW_FN_CACHE 1024u

/* --- the writer -------------------------------------------------------- */

/* Start of a process in CLOCK_BOOTTIME ns, or 0 if unknown. */
static uint64_t proc_start_boot_ns(uint32_t pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%" PRIu32 "/stat", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    /* The command name may hold spaces and parentheses: fields count from
     * the last ')'. starttime is field 22, the 20th after it. */
    char *p = strrchr(buf, ')');
    if (!p)
        return 0;
    for (int field = 2; field < 22 && p; field++)
        p = strchr(p + 1, ' ');
    if (!p)
        return 0;
    unsigned long long ticks = strtoull(p + 1, NULL, 10);
    long hz = sysconf(_SC_CLK_TCK);
    return hz > 0 ? (uint64_t)(ticks * (1e9 / (double)hz)) : 0;
}

static uint64_t clock_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

enum ct_writer ct_writer_state(const struct ct_file_header *h)
{
    uint32_t flags = __atomic_load_n(&h->flags, __ATOMIC_ACQUIRE);
    if (flags & CT_FILE_FINISHED)
        return CT_WRITER_DONE;
    if ((flags & CT_FILE_STREAM) || h->pid == 0)
        return CT_WRITER_UNKNOWN;
    if (kill((pid_t)h->pid, 0) != 0 && errno == ESRCH)
        return CT_WRITER_GONE;
    /* A pid reused since runs another program, or started after the
     * trace did (the tracer starts in the process it traces).  /proc
     * counts from boot, suspend included; the header's clock is
     * CLOCK_MONOTONIC. */
    char link[64], exe[CT_PATH_MAX];
    snprintf(link, sizeof link, "/proc/%" PRIu32 "/exe", h->pid);
    ssize_t n = readlink(link, exe, sizeof exe - 1);
    if (n < 0 && errno != EACCES && errno != EPERM)
        return CT_WRITER_GONE; /* a kernel thread, or gone meanwhile */
    if (n >= 0) {
        exe[n] = '\0';
        if (strncmp(exe, h->exe, sizeof h->exe) != 0)
            return CT_WRITER_GONE;
    }
    uint64_t started = proc_start_boot_ns(h->pid);
    if (!started)
        return CT_WRITER_UNKNOWN;
    uint64_t boot_minus_mono =
        clock_ns(CLOCK_BOOTTIME) - clock_ns(CLOCK_MONOTONIC);
    uint64_t traced = h->start_monotonic_ns + boot_minus_mono;
    return started > traced + 1000000000ull ? CT_WRITER_GONE
                                            : CT_WRITER_RUNNING;
}

void ct_writer_describe(enum ct_writer w, uint32_t pid, char *buf, size_t cap)
{
    switch (w) {
    case CT_WRITER_DONE:
        snprintf(buf, cap, "closed cleanly");
        break;
    case CT_WRITER_RUNNING:
        snprintf(buf, cap,
                 "live: not closed, its process (pid %" PRIu32 ") is still "
                 "running; read up to the last complete record", pid);
        break;
    case CT_WRITER_GONE:
        snprintf(buf, cap,
                 "not closed cleanly: its process (pid %" PRIu32 ") is gone "
                 "(it crashed or was killed, or this is a copy made while it "
                 "ran); read up to the last complete record", pid);
        break;
    case CT_WRITER_UNKNOWN:
        snprintf(buf, cap,
                 "not closed cleanly: live or cut short (its process, pid "
                 "%" PRIu32 ", is not one of this machine's); read up to the "
                 "last complete record", pid);
        break;
    }
}

/* --- records ------------------------------------------------------------- */

/* The one record decoder (calltrace_record.h), in the follower's terms:
 * 1: a whole record at p (*next after it); 0: the bytes end inside it;
 * -1: it is malformed. */
static int parse(const uint8_t *p, const uint8_t *end, bool prefix,
                 struct ctr_rec *r, const uint8_t **next)
{
    *next = p;
    int s = ctr_rec_next(next, end, prefix, false, r);
    return s > 0 ? 1 : s;
}

size_t ct_follow_complete_len(const uint8_t *p, size_t n, bool prefix)
{
    const uint8_t *q = p, *end = p + n, *next;
    struct ctr_rec r;
    while (q < end && *q && parse(q, end, prefix, &r, &next) == 1 &&
           next < end &&
           *next)
        q = next;
    return (size_t)(q - p);
}

void ctr_live_trim(const struct ct_input *in, const struct ct_file_header *h,
                   struct block *blocks, size_t n)
{
    /* A stream's blocks hold whole records only: nothing to trim. */
    if (ct_writer_state(h) != CT_WRITER_RUNNING)
        return;
    for (size_t i = 0; i < n; i++) {
        struct block *b = &blocks[i];
        if (b->kind != CT_BLOCK_EVENTS || (b->flags & CT_BLOCK_CLOSED) ||
            b->avail < CT_BLOCK_HEADER_SIZE)
            continue;
        b->avail = CT_BLOCK_HEADER_SIZE +
                   ct_follow_complete_len(in->data + b->off +
                                              CT_BLOCK_HEADER_SIZE,
                                          b->avail - CT_BLOCK_HEADER_SIZE,
                                          b->prefix);
    }
}

/* --- the follower ---------------------------------------------------------- */

struct fthread {
    uint32_t thread;        /* ct_trace_info index                        */
    uint32_t tid;
    size_t *queue;          /* offsets of its blocks not yet opened       */
    size_t nq, qcap, qhead;
    size_t cur;             /* offset of the block being decoded, 0 none  */
    size_t pos;             /* payload bytes of cur decoded               */
    uint64_t time, prev_fn, prev_site, lost_told, cur_lost;
    uint32_t expect_seq;
    bool started, need_stack, ended;
    size_t tail;            /* offset of its latest block queued, 0 none  */
    /* Coroutines (CONTEXT records): the thread index its events go to,
     * one per context of the thread (calltrace_context.c's lanes). */
    uint32_t on;
    struct flane *lanes;
    size_t nlanes, lanes_cap;
};

struct flane {
    uint64_t id;
    uint32_t thread;
};

struct ct_follow {
    struct ct_trace_info *info;
    struct ct_sink *sink;
    struct ct_batch_sink *batch;
    struct ct_symbolizer *sym;
    struct ct_file_header hdr;
    struct ct_follow_status st;
    size_t scan;            /* next offset where a block header may be    */
    /* Zero pages passed where a block header may still come: a block the
     * tracer reserved ahead of need (its supplier) starts only when its
     * thread fills the one before.  Looked at again at each poll. */
    size_t *holes;
    size_t nholes, holes_cap;
    struct fthread *th;
    size_t nth, thcap;
    struct ct_event buf[EV_BATCH];
    size_t nbuf;
    uint32_t *ids;
    size_t ids_cap;
    bool stopped;           /* damage or the sink asked to stop           */
    uint64_t lost_done;     /* block header losses of the blocks done     */
    struct { uint64_t addr; uint32_t id; } fn_cache[FOLLOW_FN_CACHE];
                            /* id + 1; 0 = empty                          */
    struct ct_file_header trailer; /* a stream's final header, once seen  */
    bool have_trailer;
    struct ctr_unpacked unpacked;  /* the packed block being decoded      */
};

struct ct_follow *ct_follow_new(struct ct_trace_info *info,
                                struct ct_sink *sink)
{
    struct ct_follow *f = ct_xcalloc(1, sizeof *f);
    f->info = info;
    f->sink = sink;
    f->batch = ct_sink_batch(sink);
    f->sym = ct_symbolizer_new();
    return f;
}

void ct_follow_free(struct ct_follow *f)
{
    if (!f)
        return;
    /* Names already resolved stay; no later lookup may use the symbolizer */
    ct_functab_set_resolver(f->info->funcs, NULL, NULL);
    ct_functab_set_libcall_test(f->info->funcs, NULL, NULL);
    ct_symbolizer_free(f->sym);
    for (size_t i = 0; i < f->nth; i++) {
        free(f->th[i].queue);
        free(f->th[i].lanes);
    }
    free(f->th);
    free(f->ids);
    free(f->holes);
    ctr_unpacked_free(&f->unpacked);
    free(f);
}

const struct ct_follow_status *ct_follow_status(const struct ct_follow *f)
{
    return &f->st;
}

/* How the followed file's record heads are written. */
static bool prefix_of(const struct ct_follow *f)
{
    return (f->hdr.flags & CT_FILE_HEAD_PREFIX) != 0;
}

static void flush(struct ct_follow *f)
{
    size_t n = f->nbuf;
    f->nbuf = 0;
    if (!n || f->stopped)
        return;
    if (f->batch) {
        if (f->batch->events(f->batch, f->buf, n) != 0)
            f->stopped = true;
        return;
    }
    for (size_t i = 0; i < n && !f->stopped; i++)
        if (f->sink->event(f->sink, &f->buf[i]) != 0)
            f->stopped = true;
}

/* Calls and returns wait in the batch; anything else goes at once with
 * what precedes it, since its pointers are reused. */
static void emit(struct ct_follow *f, const struct ct_event *ev)
{
    f->buf[f->nbuf++] = *ev;
    if (f->nbuf == EV_BATCH ||
        (ev->kind != CT_EV_CALL && ev->kind != CT_EV_RETURN))
        flush(f);
}

/*
 * Whether the block h follows t's latest one in the same thread.  The
 * kernel gives the tid of a thread that ended to a later thread: as the
 * whole-file reader (ctr_register_threads) does, a block after the one
 * that ended the thread (CT_BLOCK_LAST, read again now: it is set at the
 * close), or one whose seq does not go on from the latest (its blocks
 * start again at 0), is another thread's.  A stream's snapshot is
 * followed by copies of the same block: same seq, same first_ticks.
 */
static bool same_thread(const struct ct_input *in, const struct fthread *t,
                        const struct ct_block_header *h)
{
    if (!t->tail || in->size - t->tail < sizeof(struct ct_block_header))
        return true;
    struct ct_block_header p;
    memcpy(&p, in->data + t->tail, sizeof p);
    if (p.flags & CT_BLOCK_LAST)
        return false;
    if (h->seq == p.seq)
        return p.kind == CT_BLOCK_STREAM && h->first_ticks == p.first_ticks;
    /* A later thread starts again at 0; a block below the latest that is
     * not a first one started in a hole (reserved ahead, its header
     * stored after its thread's next block was seen). */
    return h->seq > p.seq || h->seq != 0;
}

/* The thread whose block h (at off) is, created on first use. */
static struct fthread *thread_of(struct ct_follow *f, const struct ct_input *in,
                                 const struct ct_block_header *h)
{
    bool reused = false;
    for (size_t i = f->nth; i-- > 0;) {
        if (f->th[i].tid != h->tid)
            continue;
        if (same_thread(in, &f->th[i], h))
            return &f->th[i];
        reused = true;
        break;
    }
    ct_grow(&f->th, &f->thcap, f->nth, sizeof *f->th);
    struct fthread *t = &f->th[f->nth++];
    memset(t, 0, sizeof *t);
    t->tid = h->tid;
    t->thread = reused ? ct_trace_thread_new(f->info, h->tid)
                       : ct_trace_thread(f->info, h->tid);
    t->on = t->thread;
    return t;
}

static bool all_zero(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i])
            return false;
    return true;
}

static struct ct_block_header block_header(const struct ct_input *in,
                                           size_t off)
{
    struct ct_block_header h;
    memcpy(&h, in->data + off, sizeof h);
    return h;
}

static void damage(struct ct_follow *f, const struct ct_input *in,
                   size_t byte, const char *what)
{
    flush(f);
    ctr_set_stopped(f->info, in->path, byte, "%s at byte %zu", what, byte);
    f->st.damaged = true;
    f->stopped = true;
}

/* Reads a MAPS block into the symbolizer; false to try again later. */
static bool read_maps(struct ct_follow *f, const struct ct_input *in,
                      size_t off, const struct ct_block_header *h, bool live)
{
    size_t avail = in->size - off < h->size ? in->size - off : h->size;
    bool closed = h->flags & CT_BLOCK_CLOSED;
    if (live && (!closed || avail < CT_BLOCK_HEADER_SIZE + h->used))
        return false;
    struct block b = {.off = off, .avail = avail, .first = h->first_ticks,
                      .kind = h->kind, .flags = h->flags, .used = h->used,
                      .size = h->size};
    ctr_read_maps(f->sym, in, &b);
    return true;
}

/* Queues a thread's block in seq order: a block that started in a hole
 * may be found after a later one of its thread. */
static void queue_block(struct ct_follow *f, const struct ct_input *in,
                        size_t off, const struct ct_block_header *h)
{
    struct fthread *t = thread_of(f, in, h);
    if (!t->tail || block_header(in, t->tail).seq < h->seq)
        t->tail = off;
    ct_grow(&t->queue, &t->qcap, t->nq, sizeof *t->queue);
    size_t i = t->nq++;
    while (i > t->qhead && block_header(in, t->queue[i - 1]).seq > h->seq) {
        t->queue[i] = t->queue[i - 1];
        i--;
    }
    t->queue[i] = off;
}

/* The block whose header is at off: 1 when taken (it is h->size bytes
 * long), 0 to try again at the next poll, -1 on damage. */
static int take_block(struct ct_follow *f, const struct ct_input *in,
                      size_t off, bool live, struct ct_block_header *h)
{
    *h = block_header(in, off);
    bool packed = h->kind == CT_BLOCK_PACKED;
    if (h->magic != CT_BLOCK_MAGIC ||
        h->header_size != CT_BLOCK_HEADER_SIZE || h->size == 0 ||
        (packed ? !ctr_packed_header_ok(h) : h->size % CT_BLOCK_ALIGN) ||
        (h->kind != CT_BLOCK_EVENTS && h->kind != CT_BLOCK_MAPS &&
         h->kind != CT_BLOCK_STREAM && !packed)) {
        damage(f, in, off, "damaged block header");
        return -1;
    }
    if (h->kind == CT_BLOCK_STREAM && h->reserved == CT_STREAM_TRAILER) {
        if (in->size - off < h->size)
            return 0; /* not all received yet */
        struct ct_file_header t;
        if (h->used >= sizeof t &&
            h->size >= CT_BLOCK_HEADER_SIZE + sizeof t) {
            memcpy(&t, in->data + off + CT_BLOCK_HEADER_SIZE, sizeof t);
            if (memcmp(t.magic, CT_FILE_MAGIC, CT_FILE_MAGIC_LEN) == 0) {
                f->trailer = t;
                f->have_trailer = true;
            }
        }
    } else if (h->kind == CT_BLOCK_STREAM &&
               h->reserved != CT_STREAM_PARTIAL) {
        /* a kind of stream block of a later version: skipped */
    } else if (h->kind == CT_BLOCK_MAPS) {
        if (!read_maps(f, in, off, h, live))
            return 0;
        ct_functab_set_resolver(f->info->funcs, ct_symbolizer_resolve,
                                f->sym);
        ct_functab_set_libcall_test(f->info->funcs, ct_symbolizer_is_libcall,
                                    f->sym);
    } else {
        queue_block(f, in, off, h);
    }
    f->st.blocks++;
    return 1;
}

/* Holes whose block has started since; once the writer is gone, what is
 * still zero stays zero and is dropped.  After the forward scan: a thread
 * stores a block's header before any later block's, so a later block
 * seen there has its hole's header seen here. */
static void fill_holes(struct ct_follow *f, const struct ct_input *in,
                       bool live)
{
    size_t kept = 0;
    for (size_t i = 0; i < f->nholes && !f->stopped; i++) {
        size_t off = f->holes[i];
        struct ct_block_header h;
        if (off + CT_BLOCK_HEADER_SIZE > in->size ||
            all_zero(in->data + off, CT_BLOCK_HEADER_SIZE)) {
            if (live)
                f->holes[kept++] = off;
            continue;
        }
        if (take_block(f, in, off, live, &h) == 0) {
            f->holes[kept++] = off;
            continue;
        }
        /* its other pages are the block's, and so may the scan's place be */
        while (i + 1 < f->nholes && f->holes[i + 1] < off + h.size)
            i++;
        if (f->scan > off && f->scan < off + h.size)
            f->scan = off + h.size;
    }
    f->nholes = kept;
}

/* New block headers, in file order. */
static void scan_blocks(struct ct_follow *f, const struct ct_input *in,
                        bool live)
{
    while (!f->stopped && f->scan + CT_BLOCK_HEADER_SIZE <= in->size) {
        const uint8_t *p = in->data + f->scan;
        if (all_zero(p, CT_BLOCK_HEADER_SIZE)) {
            /* Reserved, and its header not stored yet, or never to be. */
            if (live) {
                ct_grow(&f->holes, &f->holes_cap, f->nholes,
                        sizeof *f->holes);
                f->holes[f->nholes++] = f->scan;
            }
            f->scan += CT_BLOCK_ALIGN;
            continue;
        }
        struct ct_block_header h = block_header(in, f->scan);
        if (live && h.magic != CT_BLOCK_MAGIC && f->nholes &&
            f->holes[f->nholes - 1] + CT_BLOCK_ALIGN == f->scan)
            return; /* records of a block begun in the hole just passed */
        if (take_block(f, in, f->scan, live, &h) <= 0)
            return;
        f->scan += h.size;
    }
}

/* Loops call the same few functions: a direct-mapped cache in front of
 * the function table's hash, as the whole-file reader keeps. */
static uint32_t intern(struct ct_follow *f, uint64_t fn)
{
    uint32_t slot = (uint32_t)(fn >> 4 ^ fn >> 14) & (FOLLOW_FN_CACHE - 1);
    if (f->fn_cache[slot].id != 0 && f->fn_cache[slot].addr == fn)
        return f->fn_cache[slot].id - 1;
    uint32_t id = ct_functab_intern_addr(f->info->funcs, fn);
    f->fn_cache[slot].addr = fn;
    f->fn_cache[slot].id = id + 1;
    return id;
}

/* t goes over to its context id: the thread index of its lane, made
 * the first time (*fresh). */
static uint32_t lane_of(struct ct_follow *f, struct fthread *t, uint64_t id,
                        bool *fresh)
{
    *fresh = false;
    if (id == 0)
        return t->on = t->thread;
    for (size_t i = 0; i < t->nlanes; i++)
        if (t->lanes[i].id == id)
            return t->on = t->lanes[i].thread;
    ct_grow(&t->lanes, &t->lanes_cap, t->nlanes, sizeof *t->lanes);
    struct flane *l = &t->lanes[t->nlanes++];
    l->id = id;
    l->thread = ct_trace_thread_new(f->info, t->tid);
    f->info->threads[l->thread].context = id;
    *fresh = true;
    return t->on = l->thread;
}

/* Reads n frames at p into f->ids; false on damage. */
static bool read_frames(struct ct_follow *f, const uint8_t *p,
                        const uint8_t *pend, uint64_t n)
{
    uint64_t fn;
    if (n > f->ids_cap) {
        f->ids_cap = n;
        f->ids = ct_xrealloc(f->ids, n * sizeof *f->ids);
    }
    for (uint64_t i = 0; i < n; i++) {
        if (ct_get_varint(&p, pend, &fn) != 0)
            return false;
        f->ids[i] = intern(f, fn);
    }
    return true;
}

/* A CONTEXT record: the thread's events go to that context's lane; a new
 * lane opens with the frames the record lists. */
static bool context_record(struct ct_follow *f, struct fthread *t,
                           const struct ctr_rec *r, uint64_t time)
{
    const uint8_t *p = r->payload, *pend = r->payload + r->len;
    uint64_t id, depth;
    bool fresh;
    if (ct_get_varint(&p, pend, &id) != 0)
        return false;
    lane_of(f, t, id, &fresh);
    if (p == pend || !fresh)
        return true;
    if (ct_get_varint(&p, pend, &depth) != 0 || depth > r->len ||
        !read_frames(f, p, pend, depth))
        return false;
    if (depth) {
        struct ct_event ev = {.kind = CT_EV_STACK, .thread = t->on,
                              .time = time, .func = CT_FUNC_NONE,
                              .stack = f->ids, .depth = (uint32_t)depth};
        emit(f, &ev);
    }
    return true;
}

/* The STACK record that opens a decoding: the frames open then. */
static bool stack_record(struct ct_follow *f, struct fthread *t,
                         const struct ctr_rec *r, const uint8_t *next,
                         const uint8_t *end, uint64_t time)
{
    uint64_t id;
    bool fresh;
    /* In a coroutine: the frames are that context's (its mark follows). */
    if (ctr_context_ahead(next, end, prefix_of(f), &id))
        lane_of(f, t, id, &fresh);
    struct ct_event ev = {.thread = t->on, .time = time,
                          .func = CT_FUNC_NONE};
    /* As calltrace_decode.c: the block's start up to its OVERHEAD_END is
     * the tracer's work. */
    struct ctr_rec n;
    const uint8_t *after;
    if (parse(next, end, prefix_of(f), &n, &after) == 1 &&
        n.type == CT_REC_EXT &&
        n.subtype == CT_EXT_OVERHEAD_END) {
        ev.kind = CT_EV_OVERHEAD_START;
        emit(f, &ev);
    }
    const uint8_t *p = r->payload, *pend = r->payload + r->len;
    uint64_t depth;
    if (ct_get_varint(&p, pend, &depth) != 0 || depth > r->len ||
        !read_frames(f, p, pend, depth))
        return false;
    ev.kind = CT_EV_STACK;
    ev.stack = f->ids;
    ev.depth = (uint32_t)depth;
    emit(f, &ev);
    return true;
}

/* One whole record at time t; false on damage. */
static bool apply(struct ct_follow *f, struct fthread *t,
                  const struct ctr_rec *r,
                  const uint8_t *next, const uint8_t *end, uint64_t time)
{
    struct ct_event ev = {.thread = t->on, .time = time,
                          .func = CT_FUNC_NONE};
    bool first = t->need_stack;
    t->need_stack = false; /* only a block's leading STACK opens it */
    switch (r->type) {
    case CT_REC_EXIT:
        ev.kind = CT_EV_RETURN;
        emit(f, &ev);
        return true;
    case CT_REC_ENTRY:
        t->prev_fn += r->fn_delta;
        t->prev_site += r->site_delta;
        ev.kind = CT_EV_CALL;
        ev.func = intern(f, t->prev_fn);
        ev.site = t->prev_site;
        emit(f, &ev);
        return true;
    }
    switch (r->subtype) {
    case CT_EXT_STACK:
        return !first || stack_record(f, t, r, next, end, time);
    case CT_EXT_CONTEXT:
        return context_record(f, t, r, time);
    case CT_EXT_THREAD_NAME:
        ctr_thread_name(&f->info->threads[t->thread], r->payload, r->len);
        return true;
    case CT_EXT_SAMPLE:
    case CT_EXT_SAMPLE_OF:
        f->st.samples_skipped++;
        return true;
    }
    /* The kinds the serial decoder maps the same way (calltrace_decode.c);
     * the rest (TOGGLE, SWITCH, later subtypes) are not the live view's. */
    int simple = ctr_ext_event(r->subtype, r->payload, r->len, &ev);
    if (simple <= 0)
        return simple == 0;
    if (ev.kind == CT_EV_LOST)
        t->lost_told = ct_sat_add(t->lost_told, ev.count);
    else if (ev.kind == CT_EV_CPUTIME)
        f->info->threads[t->thread].oncpu = CT_ONCPU_CLOCK;
    emit(f, &ev);
    return true;
}

/* Opens t's next queued block; false when there is none. */
static bool open_block(struct ct_follow *f, const struct ct_input *in,
                       struct fthread *t)
{
    if (t->qhead == t->nq)
        return false;
    size_t off = t->queue[t->qhead++];
    struct ct_block_header h = block_header(in, off);
    uint64_t first = h.first_ticks;
    if (t->started && first < t->time) {
        /* the exiting thread's block for a thread still running: taken at
         * the thread's last time, as the batch decoder does */
        if (!(h.flags & CT_BLOCK_LAST)) {
            damage(f, in, off, "block goes back in time");
            return false;
        }
        first = t->time;
    }
    t->need_stack = !t->started || h.seq != t->expect_seq;
    t->started = true;
    t->expect_seq = h.seq + 1;
    t->cur = off;
    t->pos = 0;
    t->time = first;
    t->prev_fn = t->prev_site = 0;
    t->lost_told = 0;
    return true;
}

/* Decodes t's new records; returns when it has to wait for more. */
static void follow_thread(struct ct_follow *f, const struct ct_input *in,
                          struct fthread *t, bool live)
{
    while (!f->stopped) {
        if (!t->cur && !open_block(f, in, t))
            return;
        struct ct_block_header h = block_header(in, t->cur);
        size_t cap = h.size - CT_BLOCK_HEADER_SIZE;
        size_t present = in->size - t->cur < h.size ? in->size - t->cur
                                                    : h.size;
        present -= CT_BLOCK_HEADER_SIZE;
        bool closed = h.flags & CT_BLOCK_CLOSED;
        /* A stream's snapshot of an open block: whole records, `used` of
         * them, until a later copy of the same block supersedes it. */
        bool snapshot = h.kind == CT_BLOCK_STREAM;
        size_t len = closed || snapshot ? (h.used < cap ? h.used : cap) : cap;
        bool whole = present >= len; /* every byte of it is in the file */
        if (len > present)
            len = present;
        t->cur_lost = h.lost;
        const uint8_t *base = in->data + t->cur + CT_BLOCK_HEADER_SIZE;
        /* Written whole by `calltrace pack`, or moved whole to the side
         * file by record --pack (calltrace_side.c): its records,
         * unpacked, and this header's counts. */
        bool packed = h.kind == CT_BLOCK_PACKED ||
                      (closed && (h.flags & CT_BLOCK_MOVED));
        if (packed) {
            struct block b = ctr_block_at(&h, t->cur, in->size - t->cur);
            bool partial_ok;
            base = ctr_payload(in, &b, &f->unpacked, &len, &partial_ok);
            if (!base) {
                damage(f, in, t->cur, "packed block does not unpack");
                return;
            }
            whole = true;
        } else if (closed && live && !snapshot && ctr_side_present(in->path)) {
            /* record --pack may move it while it is read: a copy, checked
             * against its header afterwards (ctr_payload) */
            struct block b = ctr_block_at(&h, t->cur, in->size - t->cur);
            b.may_move = true;
            bool partial_ok;
            base = ctr_payload(in, &b, &f->unpacked, &len, &partial_ok);
            if (!base) {
                damage(f, in, t->cur, "moved block not in the side file");
                return;
            }
        }
        const uint8_t *p = base + t->pos, *end = base + len, *next;
        /* Still being written: the last record may be half stored. */
        bool hold_back = !closed && !snapshot && live && !packed;
        /* Nothing more will come: what is there is all of the block. */
        bool final = !live || (closed && whole) || packed;
        bool at_end = false;
        while (!f->stopped) {
            if (p >= end || *p == 0) {
                at_end = final;
                break;
            }
            struct ctr_rec r;
            int s = parse(p, end, prefix_of(f), &r, &next);
            if (s == 0 && closed && whole)
                s = -1; /* a closed block's records end where it says */
            if (s == 0) {
                at_end = !live; /* the writer stopped inside a record */
                break;
            }
            if (s < 0 || t->time + r.delta < t->time) {
                damage(f, in, (size_t)(p - in->data), "bad record");
                break;
            }
            if (hold_back && (next >= end || *next == 0))
                break;
            uint64_t time = t->time + r.delta;
            if (!apply(f, t, &r, next, end, time)) {
                damage(f, in, (size_t)(p - in->data), "bad record");
                break;
            }
            t->time = time;
            f->st.records++;
            if (time > f->st.last_time)
                f->st.last_time = time;
            p = next;
        }
        t->pos = (size_t)(p - base);
        if (snapshot && whole && !f->stopped && (p >= end || *p == 0) &&
            t->qhead < t->nq) {
            struct ct_block_header n = block_header(in, t->queue[t->qhead]);
            if (n.tid == h.tid && n.seq == h.seq) {
                /* the same records and more: go on where this one ends */
                t->cur = t->queue[t->qhead++];
                continue;
            }
            /* the rest of the block never came: the next one restarts
             * from its STACK record */
            t->expect_seq = h.seq;
            at_end = true;
        }
        if (!at_end || f->stopped)
            return;
        /* The block is done: what its header counts beyond its LOST
         * records is told at its last record, as the whole reader does. */
        if (h.lost > t->lost_told) {
            struct ct_event ev = {.kind = CT_EV_LOST, .thread = t->thread,
                                  .time = t->time, .func = CT_FUNC_NONE,
                                  .count = h.lost - t->lost_told};
            emit(f, &ev);
        }
        if (h.flags & CT_BLOCK_LAST)
            t->ended = true;
        f->lost_done = ct_sat_add(f->lost_done, h.lost);
        t->cur = 0;
        t->cur_lost = 0;
    }
}

int ct_follow_feed(struct ct_follow *f, const struct ct_input *in,
                   enum ct_writer writer)
{
    f->st.writer = writer;
    f->st.bytes = in->size;
    if (f->stopped)
        return f->st.damaged ? CT_EXIT_BAD_INPUT : CT_EXIT_OK;
    if (!f->st.header_read) {
        size_t have = in->size < CT_FILE_MAGIC_LEN ? in->size
                                                   : CT_FILE_MAGIC_LEN;
        if (in->size < CT_FILE_HEADER_SIZE && writer != CT_WRITER_GONE &&
            memcmp(in->data, CT_FILE_MAGIC, have) == 0)
            return CT_EXIT_OK; /* not all there yet */
        int s = ctr_read_header(in, f->info, &f->hdr);
        if (s != CT_EXIT_OK) {
            f->st.damaged = f->stopped = true;
            return s;
        }
        if (f->hdr.flags & CT_FILE_PROFILE) {
            /* Its tables are sums, not calls to follow (calltrace_profile.c) */
            ctr_set_stopped(f->info, in->path, 0, "a profile "
                            "(CALLTRACE_MODE=profile) has no calls to follow; "
                            "calltrace-report reads it");
            f->st.damaged = f->stopped = true;
            return CT_EXIT_USAGE;
        }
        f->st.header_read = true;
        f->scan = f->hdr.header_size;
    }
    memcpy(&f->hdr, in->data, sizeof f->hdr);
    bool live = writer == CT_WRITER_RUNNING || writer == CT_WRITER_UNKNOWN;
    scan_blocks(f, in, live);
    fill_holes(f, in, live);
    if (f->have_trailer) {
        /* The stream is over: its sender closed the trace or is gone. */
        f->hdr = f->trailer;
        writer = f->hdr.flags & CT_FILE_FINISHED ? CT_WRITER_DONE
                                                 : CT_WRITER_GONE;
        f->st.writer = writer;
        live = false;
    }
    uint32_t ended = 0;
    for (size_t i = 0; i < f->nth; i++) {
        struct fthread *t = &f->th[i];
        follow_thread(f, in, t, live);
        ended += t->ended;
    }
    flush(f);
    /* Losses: the blocks read, plus the current ones' live counts. */
    uint64_t lost = f->lost_done;
    for (size_t i = 0; i < f->nth; i++)
        lost = ct_sat_add(lost, f->th[i].cur_lost);
    f->st.lost = f->hdr.lost > lost ? f->hdr.lost : lost;
    f->info->lost_events = f->st.lost;
    f->st.threads = (uint32_t)f->nth;
    f->st.threads_ended = ended;
    bool rest = f->scan < in->size && !all_zero(in->data + f->scan,
                                                 in->size - f->scan);
    for (size_t i = 0; i < f->nth && !rest; i++)
        rest = f->th[i].cur || f->th[i].qhead < f->th[i].nq;
    f->st.caught_up = !live && (!rest || f->stopped);
    return f->st.damaged ? CT_EXIT_BAD_INPUT : CT_EXIT_OK;
}

int ct_follow_poll(struct ct_follow *f, const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        ct_error("cannot open %s: %s", path, strerror(errno));
        return CT_EXIT_BAD_INPUT;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ct_error("%s: not a regular file", path);
        close(fd);
        return CT_EXIT_BAD_INPUT;
    }
    struct ct_input in = {.path = path, .size = (size_t)st.st_size,
                          .data = (const uint8_t *)""};
    if (in.size) {
        void *m = ct_map_input(fd, in.size, MAP_SHARED);
        if (m == MAP_FAILED) {
            ct_error("cannot map %s: %s", path, strerror(errno));
            close(fd);
            return CT_EXIT_BAD_INPUT;
        }
        in.data = m;
    }
    close(fd);
    /* The writer first, the bytes after: what it stored before it was
     * seen gone is all there is. */
    enum ct_writer w = CT_WRITER_UNKNOWN;
    if (in.size >= sizeof f->hdr &&
        memcmp(in.data, CT_FILE_MAGIC, CT_FILE_MAGIC_LEN) == 0)
        w = ct_writer_state((const struct ct_file_header *)in.data);
    int s = ct_follow_feed(f, &in, w);
    if (in.size)
        munmap((void *)in.data, in.size);
    return s;
}
