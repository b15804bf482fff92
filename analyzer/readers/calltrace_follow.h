/*
 * Following a calltrace trace while it is written (calltrace top, and the
 * report of a file that was not closed).  docs/live.md says what a reader
 * may rely on while the tracer runs; in short: block headers appear in
 * file order, records are stored in order, and an unclosed block of a
 * running writer is read up to its last record that is followed by a
 * non-zero byte (the next record has begun, so this one is whole).
 */
#ifndef CT_CALLTRACE_FOLLOW_H
#define CT_CALLTRACE_FOLLOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "calltrace_format.h"
#include "analyzer/readers/reader.h"
#include "analyzer/model/trace.h"

/* Who is writing the trace, as far as this machine can tell. */
enum ct_writer {
    CT_WRITER_DONE,     /* closed cleanly (CT_FILE_FINISHED)               */
    CT_WRITER_RUNNING,  /* not closed, and its process is running here     */
    CT_WRITER_GONE,     /* not closed, and its process is gone: it crashed
                           or was killed (or the file is a copy)           */
    CT_WRITER_UNKNOWN,  /* not closed, and its process cannot be looked up
                           here (a stream received from another machine)  */
};

/* The writer of a trace with this header, looked up on this machine:
 * the pid must be alive and must have started no later than the trace. */
enum ct_writer ct_writer_state(const struct ct_file_header *h);

/* A line for the summary: what an unclosed trace's state means. */
void ct_writer_describe(enum ct_writer w, uint32_t pid, char *buf,
                        size_t cap);

/* Bytes of an unclosed block's payload [p, p + n) that hold whole records
 * while the writer may still be storing its latest one: up to the last
 * record followed by a non-zero byte.  prefix: the file's heads are
 * written by prefix code (CT_FILE_HEAD_PREFIX). */
size_t ct_follow_complete_len(const uint8_t *p, size_t n, bool prefix);

struct ct_follow_status {
    enum ct_writer writer;  /* as of the latest poll                       */
    bool header_read;       /* the file header was there and valid         */
    bool caught_up;         /* DONE or GONE and every byte decoded: the
                               trace will not grow any more                */
    bool damaged;           /* a bad record or block header: see
                               info->stopped                               */
    uint64_t bytes;         /* file size at the latest poll                */
    uint64_t blocks;        /* block headers indexed                       */
    uint64_t records;       /* records decoded                             */
    uint64_t lost;          /* lost events: header or block headers        */
    uint64_t samples_skipped; /* SAMPLE records (not in the live view)     */
    uint32_t threads;       /* threads seen                                */
    uint32_t threads_ended; /* threads whose last block was read           */
    uint64_t last_time;     /* latest record time decoded (ticks)          */
};

struct ct_follow;

/* A follower that pushes the events of info's trace into sink.  The
 * trace info gets its header fields at the first poll that finds it. */
struct ct_follow *ct_follow_new(struct ct_trace_info *info,
                                struct ct_sink *sink);
void ct_follow_free(struct ct_follow *f);

/*
 * Decodes what is new in the whole file as it is now (in: the file's
 * bytes, which must extend those of the previous call), given who writes
 * it.  Only blocks and bytes not yet decoded are read.  Returns
 * CT_EXIT_OK, or CT_EXIT_BAD_INPUT after one message naming the place.
 */
int ct_follow_feed(struct ct_follow *f, const struct ct_input *in,
                   enum ct_writer writer);

/* Maps path as it is now, finds its writer and feeds it. */
int ct_follow_poll(struct ct_follow *f, const char *path);

const struct ct_follow_status *ct_follow_status(const struct ct_follow *f);

#endif /* CT_CALLTRACE_FOLLOW_H */
