/*
 * calltrace trace format, version 1.
 *
 * The single definition shared by the tracer (preload/) and the analyzer
 * (analyzer/).  docs/trace-format.md describes it byte by byte; keep the two
 * in step.  Everything is little-endian.
 *
 * File layout:
 *   [file header, CT_FILE_HEADER_SIZE bytes]
 *   [block][block]...            each block starts on a page boundary
 *
 * Blocks of different threads interleave in the file.  Each block belongs to
 * one thread and carries its own timestamp base, so a reader can start
 * decoding at any block (for --time-range) without reading earlier ones.
 * The tracer writes blocks through a shared file mapping; a block that was
 * never closed (crash, SIGKILL) has flags without CT_BLOCK_CLOSED and is read
 * up to its first zero byte.
 */
#ifndef CALLTRACE_FORMAT_H
#define CALLTRACE_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CT_FILE_MAGIC "CALLTRC\0"
#define CT_FILE_MAGIC_LEN 8
#define CT_FORMAT_VERSION 1
#define CT_FILE_HEADER_SIZE 4096u
#define CT_BLOCK_ALIGN 4096u
#define CT_PATH_MAX 1024
#define CT_SETTINGS_MAX 1024

/* ct_file_header.flags */
#define CT_FILE_FINISHED 0x1u  /* the process closed the trace cleanly      */
#define CT_FILE_SAMPLED  0x2u  /* contains stack samples (CALLTRACE_MODE)   */
#define CT_FILE_CALLS    0x4u  /* contains call/return records              */
#define CT_FILE_FAILED   0x8u  /* the tracer stopped early (write failure)  */
#define CT_FILE_NO_CALLS_RAN 0x10u /* closed cleanly, and no instrumented
                                      function ever ran in the process      */
#define CT_FILE_FLIGHT   0x20u /* flight recorder: EVENTS blocks live in a
                                  ring of flight_slots slots after the header */
#define CT_FILE_SNAPSHOT 0x40u /* a copy of a flight ring taken while the
                                  process ran on                           */
#define CT_FILE_STREAM   0x80u /* sent over a connection: STREAM blocks may
                                  follow, the last TRAILER holds the final
                                  header (docs/trace-format.md "Streams")  */
#define CT_FILE_PATCHED  0x100u /* calls recorded at patched NOP entries
                                   (-fpatchable-function-entry), not by
                                   -finstrument-functions' hooks          */
#define CT_FILE_PROFILE  0x200u /* CALLTRACE_MODE=profile: each thread's
                                  calls are a PROFILE block's call-path
                                  table, no call records               */
#define CT_FILE_FENCED   0x1000u /* a TSC trace whose hooks were fenced
                                   (CALLTRACE_CLOCK=tsc-fenced)          */
#define CT_FILE_HEAD_PREFIX 0x800u /* record heads tell their type by a
                                      prefix code (ct_head), not 3 bits   */

/* ct_file_header.oncpu: what tells on-CPU from off-CPU time (0 in traces
 * of tracers before it, and with CALLTRACE_CPUTIME=off) */
#define CT_ONCPU_NONE   0u  /* not recorded                                */
#define CT_ONCPU_SWITCH 1u  /* SWITCH records: each off-CPU interval       */
#define CT_ONCPU_CLOCK  2u  /* CPUTIME records: per-thread CPU-time clock
                               read at block boundaries and thread end     */

/* ct_file_header.clock */
#define CT_CLOCK_TSC       1u  /* rdtsc, invariant TSC                      */
#define CT_CLOCK_MONOTONIC 2u  /* clock_gettime(CLOCK_MONOTONIC), ns ticks  */

struct ct_file_header {
    char magic[CT_FILE_MAGIC_LEN];  /* CT_FILE_MAGIC                          */
    uint32_t version;               /* CT_FORMAT_VERSION                      */
    uint32_t header_size;           /* CT_FILE_HEADER_SIZE                    */
    uint32_t flags;                 /* CT_FILE_*                              */
    uint32_t clock;                 /* CT_CLOCK_*                             */
    uint32_t pid;
    uint32_t ppid;
    uint64_t tick_hz;               /* ticks per second, calibrated           */
    uint64_t start_ticks;           /* clock at tracer start                  */
    uint64_t start_realtime_ns;     /* CLOCK_REALTIME at start (epoch ns)     */
    uint64_t start_monotonic_ns;    /* CLOCK_MONOTONIC at start               */
    uint64_t end_ticks;             /* clock at clean close, 0 if none        */
    uint64_t end_monotonic_ns;      /* CLOCK_MONOTONIC at clean close         */
    uint64_t bias_ps;               /* tracer cost of one traced call (enter
                                       + exit), picoseconds, measured at start */
    uint64_t sample_interval_ns;    /* sampling mode interval, 0 if off       */
    uint32_t block_size;            /* default block size in bytes            */
    uint32_t threads;               /* threads seen (at close), 0 if unknown  */
    uint64_t lost;                  /* process-wide lost events (at close)    */
    uint32_t oncpu;                 /* CT_ONCPU_*: how on-CPU time was kept   */
    uint32_t oncpu_errno;           /* why perf_event_open was refused, 0 if
                                       it was not or was not tried           */
    uint32_t flight_slot_size;      /* CT_FILE_FLIGHT: bytes per ring slot    */
    uint32_t flight_slots;          /* CT_FILE_FLIGHT: slots in the ring, which
                                       starts at header_size; 0 otherwise     */
    uint64_t flight_overwritten;    /* CT_FILE_FLIGHT: blocks overwritten so
                                       far (updated live)                    */
    uint64_t bias_self_ps;          /* of bias_ps, the part inside the called
                                       function's interval (after the enter
                                       hook's clock read, before the exit
                                       hook's); 0 if not measured           */
    uint64_t bias_child_ps;         /* the rest, which lands in the caller's
                                       self time, per call it makes          */
    uint64_t bias_spread_ps;        /* how much bias_ps varied between the
                                       calibration's rounds (median - best)  */
    uint64_t bias_lib_ps;           /* tracer cost of one library call
                                       recorded through its stub (enter +
                                       exit), ps; 0 if not measured (library
                                       calls not recorded, or older)      */
    uint64_t bias_lib_self_ps;      /* of bias_lib_ps, the part inside the
                                       library function's interval       */
    char exe[CT_PATH_MAX];          /* NUL-terminated /proc/self/exe          */
    char cmdline[CT_PATH_MAX];      /* argv joined by spaces, NUL-terminated  */
    char settings[CT_SETTINGS_MAX]; /* the CALLTRACE_* environment the tracer
                                       started with, "NAME=value" entries
                                       each ended by '\n' (whole entries that
                                       fit), NUL-terminated; all zero in
                                       traces of tracers before it         */
};

#ifndef __cplusplus
_Static_assert(sizeof(struct ct_file_header) <= CT_FILE_HEADER_SIZE,
               "the file header fits its page");
#endif

#define CT_BLOCK_MAGIC 0x4b4c4243u  /* "CBLK" */
#define CT_BLOCK_HEADER_SIZE 64u

/* ct_block_header.kind */
#define CT_BLOCK_EVENTS 1u  /* records of one thread                          */
#define CT_BLOCK_MAPS   2u  /* loaded objects (ct_map_entry list)             */
#define CT_BLOCK_STREAM 4u  /* only in a stream: what `reserved` says         */
#define CT_BLOCK_PROFILE 8u /* one thread's call-path table (profile mode)    */
#define CT_BLOCK_PACKED 16u /* an EVENTS block whose records are one zstd
                               frame: see CT_PACKED_ALIGN                   */

/* A PACKED block (written by `calltrace pack`, never by the tracer) keeps
 * the header of the closed EVENTS block it replaces, field for field (tid,
 * seq, times, lost, open_depth, flags, last_switch; `used` the records'
 * bytes once unpacked), except: kind = CT_BLOCK_PACKED, size = this
 * block's bytes (a multiple of CT_PACKED_ALIGN, not of CT_BLOCK_ALIGN), and
 * reserved = the bytes of the zstd frame that follows the header. */
#define CT_PACKED_ALIGN 8u

/* ct_block_header.reserved of a CT_BLOCK_STREAM block */
#define CT_STREAM_PARTIAL 1u /* the records so far of a block still open: the
                                EVENTS block of that tid and seq, unless a
                                later block of the same tid and seq follows */
#define CT_STREAM_TRAILER 2u /* payload: the file header at the stream's end
                                (supersedes the one at the start)           */

/* ct_block_header.flags */
#define CT_BLOCK_CLOSED 0x1u /* used and last_ticks are valid                 */
#define CT_BLOCK_LAST   0x2u /* the thread ended with this block              */
#define CT_BLOCK_MOVED  0x4u /* a closed EVENTS block whose records `calltrace
                                record --pack` moved, packed, into the side
                                file TRACE.packed while the program ran (the
                                PACKED block of the same tid, seq and
                                first_ticks); this header still counts, the
                                pages after its first are a hole          */

struct ct_block_header {
    uint32_t magic;        /* CT_BLOCK_MAGIC                                  */
    uint16_t kind;         /* CT_BLOCK_*                                      */
    uint16_t header_size;  /* CT_BLOCK_HEADER_SIZE                            */
    uint32_t size;         /* whole block in bytes, header included           */
    uint32_t used;         /* payload bytes written (valid when CLOSED)       */
    uint32_t tid;          /* kernel thread id                                */
    uint32_t seq;          /* per-thread block number, from 0                 */
    uint64_t first_ticks;  /* timestamp base of the first record              */
    uint64_t last_ticks;   /* timestamp of the last record (when CLOSED)      */
    uint64_t lost;         /* events this thread lost while this block was
                              current; also updated live while dropping       */
    uint32_t open_depth;   /* frames open when the block began; their
                              functions are in the leading STACK record       */
    uint32_t flags;        /* CT_BLOCK_*                                      */
    uint32_t last_switch;  /* payload offset + 1 of the block's latest SWITCH
                              record, 0 if none; each SWITCH record names
                              the one before it, so a reader finds them all
                              without decoding the block                      */
    uint32_t reserved;
};

/*
 * Records in an EVENTS block.  Each starts with a varint "head":
 *     head = (delta_ticks << CT_REC_TYPE_BITS) | type
 * delta_ticks is the time since the previous record in the block (the first
 * record counts from first_ticks).  Type 0 never occurs, so a zero byte marks
 * the end of data in a block that was not closed.
 *
 *   CT_REC_EXIT   head
 *   CT_REC_ENTRY  head, svarint(fn - prev_fn), svarint(site - prev_site)
 *   CT_REC_EXT    head, u8 subtype, varint len, len bytes payload
 *
 * prev_fn and prev_site start at 0 in every block.  Exits name no function:
 * the tracer guarantees they nest (frames entered while tracing was off are
 * hidden on both ends), so the reader pairs them with a stack.
 */
#define CT_REC_TYPE_BITS 3
#define CT_REC_TYPE_MASK 7u
#define CT_REC_EXIT  1u
#define CT_REC_ENTRY 2u
#define CT_REC_EXT   3u

/*
 * With CT_FILE_HEAD_PREFIX the type is a prefix code in the head's low
 * bits, so the commonest records keep more bits of their delta in the
 * first byte (one-byte heads for deltas below 64 ticks on EXIT, 32 on
 * ENTRY, where 3 type bits gave 16; measured in bench/RESULTS-tracer.md):
 *     EXIT   head = delta << 1 | 1       (low bits ...1)
 *     ENTRY  head = delta << 2 | 2       (low bits ..10)
 *     EXT    head = delta << 3 | 4       (low bits .100)
 * Low bits 000 never occur, so a zero byte still ends the data.
 */
static inline uint64_t ct_head(uint64_t delta, unsigned type)
{
    return delta << type | (1u << (type - 1));
}

/* Splits a head into its type (CT_REC_*, 0 for none) and delta, by the
 * file's encoding (prefix: CT_FILE_HEAD_PREFIX is set). */
static inline unsigned ct_head_split(uint64_t head, bool prefix,
                                     uint64_t *delta)
{
    if (!prefix) {
        *delta = head >> CT_REC_TYPE_BITS;
        return (unsigned)(head & CT_REC_TYPE_MASK);
    }
    unsigned tz = (unsigned)__builtin_ctzll(head | 8);
    *delta = head >> (tz + 1);
    return (tz + 1) & 3;
}

/* CT_REC_EXT subtypes and their payloads */
#define CT_EXT_OVERHEAD_START 1u /* empty: the tracer's own work begins      */
#define CT_EXT_OVERHEAD_END   2u /* empty: it ends                           */
#define CT_EXT_USER           3u /* message bytes (no NUL)                   */
#define CT_EXT_LOST           4u /* varint count of events lost here         */
#define CT_EXT_STACK          5u /* varint depth, depth x varint fn,
                                    outermost first: frames open at block start */
#define CT_EXT_SAMPLE         6u /* varint weight, varint depth,
                                    depth x varint pc, leaf first            */
#define CT_EXT_THREAD_NAME    7u /* name bytes                               */
#define CT_EXT_THREAD_END     8u /* empty: the thread exited                 */
#define CT_EXT_TOGGLE         9u /* u8 1 = tracing on, 0 = off               */
#define CT_EXT_SWITCH        10u /* off-CPU intervals, see below             */
#define CT_EXT_CPUTIME       11u /* varint CLOCK_THREAD_CPUTIME_ID ns now    */
#define CT_EXT_CONTEXT       12u /* varint id: the thread runs context id
                                    (a coroutine's stack, 0 its own) from
                                    here; then, at a switch, varint depth,
                                    depth x varint fn, outermost first: that
                                    context's open frames.  Without them (a
                                    block's start, after OVERHEAD_END): the
                                    block's STACK frames are id's          */
#define CT_EXT_SAMPLE_OF     13u /* varint tid, then a CT_EXT_SAMPLE payload:
                                    a sample of thread tid, written by the
                                    sampler's thread (kernel sampling)       */
#define CT_EXT_FILTER_SPEC   16u /* varint generation, the rules' text:
                                    record-time filters in force from here  */
#define CT_EXT_FILTER_DROPS  17u /* varint generation, varint n, n x (varint
                                    reason, varint fn, varint count): calls
                                    left out since the thread's last one    */
#define CT_EXT_FILTER_UNMATCHED 18u /* varint generation, varint n, n x
                                    varint rule index: pattern rules of that
                                    generation's FILTER_SPEC that matched
                                    no function when they were installed   */
#define CT_EXT_ARGS          19u /* the arguments of the call whose ENTRY is
                                    the thread's latest record before it:
                                    values (CT_VAL_*) until the payload ends */
#define CT_EXT_RETVAL        20u /* the return value of the call whose EXIT
                                    is the thread's next record: one value  */

/*
 * A value in ARGS and RETVAL payloads: u8 tag, then by tag
 *   SIGNED, CHAR  svarint          UNSIGNED, HEX, PTR, BADPTR, OCT  varint
 *   STR, STR_CUT  varint n, n bytes (STR_CUT: the string went on; the copy
 *                 stopped at the rule's maximum)
 *   STRUCT        varint size, varint n, n bytes: the type's size and name
 *                 of a struct passed by value, none of whose bytes is kept
 *   ENUM          svarint value, varint n, n bytes: its name in its enum
 *                 (flags joined by |); n = 0 when none names it
 *   DOUBLE        8 bytes, IEEE 754 binary64, little-endian
 *   NULLSTR, UNAVAIL  nothing
 * A reader that meets a tag it does not know stops reading the payload
 * (the values after it are shown as unknown); the record's length still
 * takes it to the next record.
 */
#define CT_VAL_SIGNED   1u
#define CT_VAL_UNSIGNED 2u
#define CT_VAL_HEX      3u
#define CT_VAL_PTR      4u
#define CT_VAL_STR      5u
#define CT_VAL_STR_CUT  6u
#define CT_VAL_NULLSTR  7u  /* a string argument that was NULL            */
#define CT_VAL_BADPTR   8u  /* a string argument that could not be read   */
#define CT_VAL_UNAVAIL  9u  /* no location holds the value here           */
#define CT_VAL_DOUBLE  10u
#define CT_VAL_CHAR    11u
#define CT_VAL_OCT     12u  /* shown in octal with a leading 0 (a mode)   */
#define CT_VAL_STRUCT  13u
#define CT_VAL_ENUM    14u

/*
 * CT_EXT_SWITCH payload, self-contained so a reader can use it without
 * decoding the records before it:
 *   u32 prev           payload offset + 1 of the block's previous SWITCH
 *                      record's EXT head, 0 if none (little-endian)
 *   varint anchor_ticks  the trace clock ...
 *   varint anchor_ns     ... and CLOCK_MONOTONIC, read together at the drain
 *   varint lost        switch records the kernel dropped (ring full) since
 *                      the thread's previous SWITCH record
 *   then, until the payload ends, one pair per off-CPU interval, oldest
 *   first, every one over before anchor_ns:
 *   varint ago         anchor_ns - the interval's start (switched out), ns
 *   varint len2        (length in ns << 1) | 1 if the thread was preempted
 *                      (still runnable), 0 if it blocked or slept
 */
#define CT_SWITCH_PREV_BYTES 4u

/* Longest record the hot path writes: head + two svarints, 10 bytes each. */
#define CT_REC_MAX_HOT 32u

/*
 * A MAPS block lists loaded objects as seen at first_ticks.  Payload: a
 * sequence of entries until `used` bytes (or a zero `kind` byte):
 *   u8  kind (1 = object)
 *   u64 base            load bias: ELF vaddr + base = run-time address
 *   u64 start, u64 end  executable range [start, end) at run time
 *   u8  build_id_len, build_id bytes
 *   u16 path_len, path bytes (absolute path, no NUL)
 * or (kind 2 = name) a name the tracer gives to an address of its own:
 *   u8  kind (2)
 *   u64 addr            the address (a library-call stub, 16 bytes)
 *   u64 target          the function it calls (its object is the name's)
 *   u16 name_len, name bytes (`getpid@dlsym`, `free@got`, mangled, no NUL)
 * or (kind 3 = library calls, last in the block) the functions the
 * tracer records library calls as (a PLT entry, or a stub of its own), so
 * that a reader can tell a library call's records from a hooked call's
 * without names and take the stub's own cost off them (bias_lib_ps):
 *   u8  kind (3)
 *   u32 count, u32 bytes
 *   bytes: count svarints, each address less the one before (from 0)
 * Later MAPS blocks supersede earlier ones where ranges overlap; names
 * and library-call functions hold for the whole process (the tracer never
 * reuses such an address).  A reader that knows no kind stops at it.
 */
#define CT_MAP_OBJECT   1u
#define CT_MAP_NAME     2u
#define CT_MAP_LIBCALLS 3u

/*
 * A PROFILE block (CALLTRACE_MODE=profile) is one thread's aggregate,
 * updated in place through the shared mapping while the thread runs, so
 * the file holds it whatever ends the process.  Header fields: tid,
 * first_ticks (the thread's first call), last_ticks (the latest return
 * seen, stored at each one), flags (CT_BLOCK_LAST once the thread ended),
 * lost (0).  Payload, little-endian:
 *   struct ct_prof_head
 *   frame_cap x struct ct_prof_frame   the open frames, outermost first
 *   node_cap  x struct ct_prof_node    the call paths (node 0: the root)
 * A node is a call path: its function and its parent's node.  Its calls
 * are counted at entry, its times at return: incl (entry to return),
 * self (incl less the incl of the calls it made).  Times are in ticks and
 * raw (the bias is the reader's to subtract); off is the part of self
 * spent off the CPU, from the thread's context-switch ring.  Frames still open carry
 * their entry time and the incl of their calls already returned, so a
 * reader can close them at last_ticks (or at the file's end_ticks).  A
 * node is written whole before `nodes` counts it.  Calls beyond node_cap
 * paths or frame_cap frames are counted in over_calls, their time (that
 * of the outermost such frame) in over_ticks.
 */
#define CT_PROF_NONE UINT32_MAX  /* ct_prof_frame.node: outside the table */

struct ct_prof_head {
    uint32_t node_cap;     /* nodes the table has room for               */
    uint32_t nodes;        /* nodes written (node 0, the root, included)  */
    uint32_t frame_cap;    /* frames the open-frame array has room for    */
    uint32_t depth;        /* frames open now                            */
    uint64_t over_calls;   /* calls left outside the table               */
    uint64_t over_ticks;   /* their inclusive time                       */
    uint64_t reserved[4];
};

struct ct_prof_frame {
    uint32_t node;         /* its path, or CT_PROF_NONE                   */
    uint32_t reserved;
    uint64_t start;        /* clock at its entry                         */
    uint64_t child;        /* incl of its calls that returned            */
};

struct ct_prof_node {
    uint64_t fn;           /* function address; 0 for the root            */
    uint32_t parent;       /* the caller's path's node                    */
    uint32_t reserved;
    uint64_t calls;        /* entries                                    */
    uint64_t incl;         /* ticks from entry to return, returned calls */
    uint64_t self;         /* incl less that of the calls it made        */
    uint64_t off;          /* of self, ticks the thread was off the CPU
                              (header oncpu CT_ONCPU_SWITCH), else 0     */
};

#ifndef __cplusplus
_Static_assert(sizeof(struct ct_prof_head) == 64, "prof head");
_Static_assert(sizeof(struct ct_prof_frame) == 24, "prof frame");
_Static_assert(sizeof(struct ct_prof_node) == 48, "prof node");
#endif

/* --- varint helpers, shared so both sides agree on every byte ---------- */

static inline uint8_t *ct_put_varint(uint8_t *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    return p;
}

/* n rounded up to a multiple of a, a power of two (CT_BLOCK_ALIGN, a
 * page). */
static inline uint64_t ct_align_up(uint64_t n, uint64_t a)
{
    return (n + a - 1) & ~(a - 1);
}

/* A varint padded to 5 bytes (its low 35 bits): for a count or a length
 * known only after the bytes that follow it, which the writer fills in
 * afterwards.  Readers decode it as any other varint. */
static inline void ct_put_varint5(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 5; i++)
        p[i] = (uint8_t)(((v >> (7 * i)) & 0x7f) | (i < 4 ? 0x80 : 0));
}

static inline uint64_t ct_zigzag(int64_t v)
{
    return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t ct_unzigzag(uint64_t v)
{
    return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/*
 * Decode a varint from [*pp, end).  Returns 0 on success, -1 when the bytes
 * run out or the value is longer than 10 bytes.  Never reads past end.
 */
static inline int ct_get_varint(const uint8_t **pp, const uint8_t *end,
                                uint64_t *out)
{
    const uint8_t *p = *pp;
    uint64_t v = 0;
    unsigned shift = 0;
    while (p < end && shift < 64) {
        uint8_t b = *p++;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *pp = p;
            *out = v;
            return 0;
        }
        shift += 7;
    }
    return -1;
}

#endif /* CALLTRACE_FORMAT_H */
