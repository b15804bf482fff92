/*
 * The trace file of the process (struct ct_proc): its making, its
 * blocks, failure, messages, and the signals held around the tracer's own
 * calls (file.c).
 *
 * One part of tracer.h, the tracer's internal interface: the files of
 * the tracer include tracer.h, which includes every part; a part compiles
 * alone too, with the parts it needs.
 */
#ifndef CT_TRACER_FILE_H
#define CT_TRACER_FILE_H

#include "preload/tracer_base.h"
#include "preload/control/tracer_config.h"

#pragma GCC visibility push(hidden)

/* ------------------------------------------------------------------ file */

/* The fields every block header is begun with, in this order; the others
 * stay as they are: zero in a new block of the file, or cleared by the
 * caller. */
static inline void ct_block_begin(struct ct_block_header *b, uint16_t kind,
                                  uint32_t size, uint32_t tid, uint32_t seq,
                                  uint64_t first_ticks)
{
    b->magic = CT_BLOCK_MAGIC;
    b->kind = kind;
    b->header_size = CT_BLOCK_HEADER_SIZE;
    b->size = size;
    b->tid = tid;
    b->seq = seq;
    b->first_ticks = first_ticks;
}

struct ct_proc {
    struct ct_config cfg;
    int have_file;                /* the trace file exists and is ours      */
    int streaming;                /* blocks live in a window (stream.c)     */
    struct ct_file_header *hdr;   /* mapped, or NULL                        */
    char path[CT_PATH_MAX + 32];  /* the name, as messages show it          */
    /* The absolute name: a keeper started again after an exec that failed
     * opens the file by it and checks it is the same (keeper.c). */
    char reopen[CT_PATH_MAX + 4096 + 32];
    uint64_t dev, ino;
    uint64_t next_off;            /* next free offset (atomic)              */
    int count_after_failure;  /* see ct_fail                          */
    int gap_told;         /* said once: a block could not be had for now */
    int fsize_hit;        /* the file size limit (ulimit -f) refused a block */
    int fsize_told;
    uint32_t pid;
    int started;                  /* 0 no, 1 starting, 2 running            */
    int failed;
    int finished;
    int calls_off;                /* CALLTRACE_MODE=sample: no call records */
    int calls_ran;                /* an instrumented function was entered   */
    uint64_t sample_interval_ns;  /* 0 when not sampling                    */
    uint64_t lost;                /* process-wide lost events (atomic)      */
    uint32_t threads;             /* threads seen (atomic)                  */
    uint64_t bias_ps;             /* tracer cost of a call (bias.c)         */
    uint64_t bias_self_ps;        /* its part inside the callee's interval  */
    uint64_t bias_child_ps;       /* its part in the caller's self time     */
    uint64_t bias_spread_ps;      /* median - best round                    */
    uint64_t bias_lib_ps;         /* a library call's (plt_bias.c), 0 none  */
    uint64_t bias_lib_self_ps;    /* its part inside the callee's interval  */
};

extern struct ct_proc ct_proc;

/* Creates the output file and maps its header; forked_child selects the
 * naming rule for a child.  Returns 0, or -1 after reporting the failure. */
int ct_file_open(int forked_child, uint32_t ppid);
/* The same, made at the first block asked for (file.c): 0. */
int ct_file_open_lazily(int forked_child, uint32_t ppid);
/* 1 while a file made lazily is yet to be made. */
int ct_file_pending(void);
/* Makes a file opened lazily now, if it is yet to be made. */
void ct_file_make(void);
/* Reserves and maps a block of size bytes.  Returns NULL when the size
 * limit is reached (*limit_hit = CT_BLOCK_LIMIT), when a block cannot be
 * had for now and is worth trying for again later (CT_BLOCK_RETRY: no free
 * descriptor, memory or disk space, a snapshot of the flight ring being
 * made), when every slot of the flight ring holds a live thread's block
 * (CT_BLOCK_RING_FULL: the caller may free its own), or on failure
 * (tracing is stopped). */
#define CT_BLOCK_LIMIT 1
#define CT_BLOCK_RETRY 2
#define CT_BLOCK_RING_FULL 3
void *ct_file_new_block(uint32_t size, int *limit_hit);
/* Reports a write failure once and stops tracing; the events after it are
 * counted lost where the file can hold the count (file.c). */
void ct_fail(const char *what, int err);
/* The same for a trace file that is gone: nothing is counted. */
void ct_fail_gone(const char *what);
/* A library call whose entry was counted lost after a failure: its return,
 * which no hook will see, is counted too (thread.c). */
void ct_count_unseen_exit(void);
/* Writes the closing fields of the file header. */
void ct_file_finish(int clean);
/* SIGBUS at info->si_addr: when it is in a mapping of the trace file, the
 * mapping is covered with anonymous memory, tracing stops with one line,
 * and 1 is returned (the faulting store completes when the handler
 * returns); 0 for any other fault, the program's to take. */
int ct_file_fault(const siginfo_t *info);
/* Forgets the parent's file in a forked child (no writes to it). */
void ct_file_drop(void);
/* One line on standard error, as long as descriptor 2 is still the file
 * it was when ct_message_start ran (the process's start); errno kept. */
void ct_message(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void ct_message_start(void);

/* One signal held (blocked) around a call of the tracer's that may raise
 * it at the calling thread, SIGXFSZ growing a file past the file size
 * limit or SIGPIPE writing to a reader that is gone: the call fails with
 * EFBIG or EPIPE instead of ending the program, and the signal it raised
 * is taken back, not one that was pending before (file.c). */
struct ct_signal_hold {
    sigset_t old;
    int sig;
    int was_pending;
};
void ct_signal_hold(struct ct_signal_hold *h, int sig);
void ct_signal_release(const struct ct_signal_hold *h);
void ct_count_lost_global(uint64_t n);
/* Writes a MAPS block (size bytes, header included) at the file's end:
 * never in the flight ring, so names always resolve.  0, or -1 with
 * *limit_hit set when the size limit refused it. */
int ct_file_write_maps_block(const void *block, uint32_t size, int *limit_hit);
/* Reserves [*off, *off + size) of the file unless that passes the size
 * limit (-1); atomic only.  ct_file_map_at grows the file over a reserved
 * range and maps it, or stops the trace and returns NULL.  Both are safe
 * in the block supplier's process. */
int ct_file_reserve(uint32_t size, uint64_t *off);
void *ct_file_map_at(uint64_t off, uint32_t size);

#pragma GCC visibility pop

#endif /* CT_TRACER_FILE_H */
