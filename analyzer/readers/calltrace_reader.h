/*
 * Internals of the calltrace binary reader, shared by its calltrace_*.c
 * files and read_calltrace.c; analyzer/readers/README.md says what each
 * holds, docs/architecture.md which decoder route goes through which.
 */
#ifndef CT_CALLTRACE_READER_H
#define CT_CALLTRACE_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <zstd.h>

#include "calltrace_format.h"
#include "analyzer/readers/read_calltrace.h"
#include "analyzer/readers/reader.h"
#include "analyzer/model/symbolize.h"

struct block {
    size_t off;             /* file offset of the block header            */
    size_t avail;           /* bytes of the block present in the file     */
    uint64_t first, last, lost;
    uint32_t kind, tid, seq, flags, used, size, open_depth;
    uint32_t last_switch;   /* see ct_block_header                         */
    uint32_t thread;        /* ct_trace_info thread index                 */
    bool prefix;            /* heads by prefix code (CT_FILE_HEAD_PREFIX) */
    bool packed;            /* a PACKED block: kind says EVENTS, used the
                               records' bytes unpacked, zlen the frame's   */
    bool moved;             /* CT_BLOCK_MOVED: its records are in the side
                               file (calltrace_side.c)                    */
    bool may_move;          /* closed, in a trace beside its side file: a
                               live packer may make it MOVED, and free its
                               pages, while it is read (ctr_payload)      */
    uint32_t zlen;
};

/* A packed block's records, unpacked (calltrace_packed.c); zero to start. */
struct ctr_unpacked {
    size_t off;             /* the block whose records buf holds, by its
                               header's offset; 0 none (the file header)  */
    uint8_t *buf;
    size_t cap, len;
    void *dctx;             /* zstd's decompression context, kept         */
};

enum cursor_state { C_DATA, C_LOST, C_NEXT, C_DONE };

/* One thread's position in its blocks during the second pass. */
struct cursor {
    enum cursor_state state;
    uint32_t thread;
    struct block **blocks;  /* the blocks to decode, seq order            */
    uint32_t nblocks, next;
    uint32_t npeek;         /* blocks after the last one whose SWITCH
                               records count (a piece of a thread, decoded
                               apart: intervals are told a block late)    */
    bool continued;         /* such a piece, not the thread's first one   */
    bool quiet;             /* no progress bar (a worker's cursor)        */
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
    /* Off-CPU intervals (ticks) from the SWITCH records of the blocks
     * opened so far and of the block after each: the tracer drains its
     * switch ring after the fact, so an interval may be told one block
     * late.  Handed on as OFFCPU_START/END in time order. */
    struct ctr_interval *iv;
    size_t niv, iv_cap, iv_next;
    uint32_t switches_read; /* blocks[] whose SWITCH records are in iv    */
    bool in_off;            /* OFFCPU_START handed on, END not yet        */
    /* Coroutines (CONTEXT records): each context of the thread is a lane
     * of its own, a thread of the model (calltrace_context.c). */
    struct ctr_lane *lanes;
    size_t nlanes, lanes_cap;
    uint32_t lane;          /* the lane events go to: index + 1, 0 for
                               the thread itself                          */
    bool own_known;         /* a STACK record opened the thread's own
                               stack (context 0) in this decoding         */
    /* Packed blocks unpacked: the current one and the next, whose SWITCH
     * records are read early (ctr_cursor_payload). */
    struct ctr_unpacked unpacked[2];
    const uint8_t *base;    /* where cur's records start                  */
};

struct ctr_lane {
    uint64_t id;            /* the tracer's context id                    */
    uint32_t thread;        /* its index in ct_trace_info.threads         */
    bool known;             /* its open frames are known to the sinks     */
    bool suspended;         /* another context of the thread runs: an
                               OFFCPU_START was handed on for it          */
};

/* The thread index c's events go to now. */
static inline uint32_t ctr_lane_thread(const struct cursor *c)
{
    return c->lane ? c->lanes[c->lane - 1].thread : c->thread;
}

struct ctr_reading;

struct ctr_interval {
    uint64_t start, end;    /* ticks                                      */
    bool preempted;
};

/*
 * Decodes one SWITCH payload into intervals in ticks (appended to *iv),
 * given the tick length.  Returns false when the payload is malformed.
 * *prev receives the offset link to the block's previous SWITCH record,
 * *lost the switch records the kernel dropped.
 */
bool ctr_switch_decode(const uint8_t *p, size_t len, double ns_per_tick,
                       struct ctr_interval **iv, size_t *n, size_t *cap,
                       uint32_t *prev, uint64_t *lost);
/* Collects the SWITCH records of c->blocks[i] into c->iv. */
void ctr_offcpu_collect(struct ctr_reading *r, struct cursor *c, uint32_t i);
/* The next OFFCPU boundary of c (UINT64_MAX if none); *start says which. */
uint64_t ctr_offcpu_next(struct cursor *c, bool *start);

#define FN_CACHE 1024u

/* Events handed to a batch sink at once: few enough to stay in L1. */
#define BATCH 256u

/* One reading of a calltrace trace (a route: serial, a worker of the
 * parallel one, the live follower): the input, the info it fills, the sink
 * it feeds, and the caches and buffers of the decoding. */
struct ctr_reading {
    const struct ct_input *in;
    struct ct_trace_info *info;
    struct ct_sink *sink;
    struct ct_batch_sink *batch; /* sink's batch interface, or NULL      */
    struct ct_event *buf;   /* decoded events not yet handed over; fields
                               a kind does not use are zero               */
    size_t nbuf, buf_cap;   /* buf_cap 1 when the sink takes events one by
                               one: it sees each as soon as it is decoded */
    struct ct_profile *direct; /* the sink is this profile alone: calls and
                               returns go straight into it when they can
                               (calltrace_decode.c's fused loop)        */
    struct ct_symbolizer *sym;
    bool generations;       /* objects followed one another at some
                               address: names depend on the event's time */
    bool stop;              /* the sink asked to stop                     */
    struct { uint64_t addr; uint32_t id; } fn_cache[FN_CACHE], pc_cache[256];
    uint32_t *ids;
    size_t ids_cap;
    uint64_t *pcs;
    size_t pcs_cap;
    struct ct_calltrace_stats *stats; /* &ct_calltrace_stats, or a worker's */
    struct ctr_tid_span *tids; /* the threads' tids, for SAMPLE_OF records
                               (calltrace_sampleof.c)                     */
    size_t ntids;
    /* Set when a worker of the parallel decoder (calltrace_parallel.c)
     * decodes: it reports no damage and no progress itself, and gives up
     * (damaged) on anything the serial path must handle. */
    bool worker, damaged;
    uint64_t *first_seen;   /* worker: time each function id first came */
    size_t first_seen_cap;
    uint64_t inherited;     /* worker: STACK and OVERHEAD_START events made
                               for a piece that starts inside a thread   */
    uint32_t nopened;       /* worker: the frames that piece's STACK record
                               named, their addresses in pcs              */
};

int ctr_probe(const struct ct_input *in);
/* Checks and copies the file header into h, filling info. */
int ctr_read_header(const struct ct_input *in, struct ct_trace_info *info,
                    struct ct_file_header *h);

/* Records the first damage in info->stopped and reports it once. */
void ctr_set_stopped(struct ct_trace_info *info, const char *path,
                     size_t byte, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The index entry of the block whose header h is at off, with left bytes
 * of the file from there. */
struct block ctr_block_at(const struct ct_block_header *h, uint64_t off,
                          uint64_t left);
struct block *ctr_index_blocks(const struct ct_input *in,
                               struct ct_trace_info *info,
                               const struct ct_file_header *fh,
                               size_t *count);
/* A flight recorder's ring (calltrace_flight.c): whether fh has one that
 * lies within its own bounds; the blocks of its slots, appended to
 * *blocks, and the offset after the ring; what the summary says of it. */
bool ctr_flight_ring(const struct ct_file_header *fh);
size_t ctr_index_ring(const struct ct_input *in,
                      const struct ct_file_header *fh, struct block **blocks,
                      size_t *n, size_t *cap);
void ctr_flight_meta(const struct ct_file_header *fh,
                     struct ct_trace_info *info, const struct block *blocks,
                     size_t n);
/* Streams (calltrace_stream.c): the final header of a stream's trailer;
 * PARTIAL snapshots that stand for their block become EVENTS blocks. */
void ctr_stream_final_header(const struct ct_input *in,
                             struct ct_file_header *h);
void ctr_stream_resolve(const struct ct_input *in, struct block *blocks,
                        size_t n);
size_t ctr_payload_len(const struct block *b, bool *partial_ok);
/* The records (or map entries) of b and their length: the mapped bytes of
 * a plain block; a packed block's unpacked into u, where they stay until
 * u takes another block; NULL (length 0) for a packed block that does not
 * unpack (cut or damaged), which the caller reports. */
const uint8_t *ctr_payload(const struct ct_input *in, const struct block *b,
                           struct ctr_unpacked *u, size_t *len,
                           bool *partial_ok);
void ctr_unpacked_free(struct ctr_unpacked *u);
/* Unpacks the frame [frame, +zlen) of used bytes of records into u, as
 * the records of the block at off; NULL when it does not unpack. */
const uint8_t *ctr_unpack_into(struct ctr_unpacked *u, size_t off,
                               const uint8_t *frame, size_t zlen,
                               size_t used, size_t *len);
/* ctr_payload for cursor c, of its current block or the next; the
 * cursor's buffers go with ctr_cursor_release. */
const uint8_t *ctr_cursor_payload(const struct ct_input *in, struct cursor *c,
                                  const struct block *b, size_t *len,
                                  bool *partial_ok);
void ctr_cursor_release(struct cursor *c);
/* The side file TRACE.packed (calltrace_side.c): the zstd frame of the
 * block of tid, seq and first ticks moved there (malloc'ed into *frame),
 * with its length and its records' once unpacked; false when it is not
 * there.  ctr_side_payload: a MOVED block's records, unpacked into u. */
bool ctr_side_frame(const char *trace, uint32_t tid, uint32_t seq,
                    uint64_t first, uint8_t **frame, uint32_t *zlen,
                    uint32_t *used);
const uint8_t *ctr_side_payload(const char *trace, const struct block *b,
                                struct ctr_unpacked *u, size_t *len);
/* Whether trace has a side file (a `record --pack` running or killed). */
bool ctr_side_present(const char *trace);
/* Whether a block header holds together: magic, sizes, a kind this
 * reader knows (calltrace_index.c). */
bool ctr_block_header_ok(const struct ct_block_header *h);
/* The header of the PACKED block for the records (used bytes) of block h
 * in a zstd frame of zlen bytes: h's fields, kind PACKED, MOVED cleared,
 * size the header and frame rounded up to CT_PACKED_ALIGN. */
struct ct_block_header ctr_packed_header(const struct ct_block_header *h,
                                         size_t used, size_t zlen);
/* zstd's context at level with the content checksum every PACKED frame
 * carries (a damaged frame is told, never read as other records); NULL
 * when refused.  ZSTD_freeCCtx frees it. */
ZSTD_CCtx *ctr_pack_context(int level);
/* Whether the header of a PACKED block holds together. */
bool ctr_packed_header_ok(const struct ct_block_header *h);
/* While the writer runs, its unclosed blocks end at their last whole
 * record (calltrace_follow.c). */
void ctr_live_trim(const struct ct_input *in, const struct ct_file_header *h,
                   struct block *blocks, size_t n);
void ctr_read_maps(struct ct_symbolizer *sym, const struct ct_input *in,
                   const struct block *b);
int ctr_cmp_maps_time(const void *a, const void *b);
int ctr_cmp_thread_seq(const void *a, const void *b);
/* Which tid each thread has and from when, from the EVENTS blocks (after
 * ctr_register_threads), for ctr_sample_thread. */
void ctr_sample_tids(struct ctr_reading *r, const struct block *blocks, size_t n);
/* The thread a SAMPLE_OF record of tid, written at time t by the sampler,
 * is a sample of: the latest thread of that tid begun by t (the kernel
 * reuses tids), else a thread of its own for a tid with no blocks. */
uint32_t ctr_sample_thread(struct ctr_reading *r, uint64_t tid, uint64_t t);
void ctr_register_threads(struct ct_trace_info *info, struct block *blocks,
                          size_t n);
uint64_t ctr_first_record_time(const struct ct_input *in,
                               const struct block *b);

bool ctr_flush(struct ctr_reading *r);
/* PROFILE blocks (calltrace_profile.c): their threads, before any event;
 * their call paths, after the EVENTS blocks' events. */
void ctr_profile_threads(struct ct_trace_info *info, struct block *blocks,
                         size_t n);
void ctr_profile_read(struct ctr_reading *r, const struct block *blocks, size_t n,
                      const struct ct_file_header *fh);
void ctr_run(struct ctr_reading *r, struct cursor *c, uint64_t limit);
uint64_t ctr_next_time(struct ctr_reading *r, struct cursor *c);
/* The lane c's events go to now (made for the thread's own stack before
 * any CONTEXT record). */
struct ctr_lane *ctr_context_leave(struct ctr_reading *r, struct cursor *c);
/* c goes over to context id (0: the thread's own stack), a lane made for
 * it the first time; returns the lane. */
struct ctr_lane *ctr_context_enter(struct ctr_reading *r, struct cursor *c,
                                   uint64_t id);
/* The event an EXT record of the simple kinds makes by itself (overhead
 * marks, user, argument and return-value text, a lost count, a thread's
 * end, a CPU-time reading), into ev's kind, text and count: 1; 0 for any
 * other subtype; -1 on damage.  The serial decoder and the live follower
 * both map them here, so that a new simple record needs one case. */
int ctr_ext_event(unsigned subtype, const uint8_t *p, size_t len,
                  struct ct_event *ev);
/* A THREAD_NAME record's name into the thread's info. */
void ctr_thread_name(struct ct_thread_info *t, const uint8_t *p, size_t len);
/* Whether a CONTEXT record comes among the EXT records at [q, end) before
 * the first call or return, and its id. */
bool ctr_context_ahead(const uint8_t *q, const uint8_t *end, bool prefix,
                       uint64_t *id);

void ctr_merge(struct ctr_reading *r, struct cursor *cs, size_t n);

/* Decodes the cursors' threads on several threads into parts of
 * opts->profile and merges them (calltrace_parallel.c).  Returns false,
 * having changed nothing, when the trace needs the serial path. */
bool ctr_parallel(struct ctr_reading *r, struct cursor *cs, size_t n,
                  const struct ct_read_opts *opts, uint32_t file_flags);

#endif /* CT_CALLTRACE_READER_H */
