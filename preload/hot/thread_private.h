/*
 * What thread.c (a thread's state, the slow path, its life cycle) and
 * block.c (its blocks) share.  Private to preload/hot/.
 */
#ifndef CT_THREAD_PRIVATE_H
#define CT_THREAD_PRIVATE_H

#include <stddef.h>
#include <stdint.h>

#include "preload/hot/tracer_thread.h"

#pragma GCC visibility push(hidden)

/* Whether frame d of t is hidden (tracing off, a filtered frame). */
static inline int is_hidden(const struct ct_thread *t, uint32_t d)
{
    return d < CT_MAX_DEPTH && (t->hidden[d / 64] >> (d % 64) & 1);
}

/* Writes an EXT record at t->pos; the caller made sure it fits. */
void blk_put_ext(struct ct_thread *t, uint64_t now, uint8_t sub,
                 const void *payload, size_t len);
/* n events lost on t: in the block's header at once, in a LOST record
 * when the block closes. */
void blk_count_lost(struct ct_thread *t, uint64_t n);
/* Closes the current block, which has CT_BLOCK_RESERVE bytes left for
 * these last records; blk_close also unmaps it, or at a block switch
 * hands it to the supplier to unmap (overhead_start). */
void blk_seal(struct ct_thread *t, uint64_t now, uint32_t flags,
              int overhead_start);
void blk_close(struct ct_thread *t, uint64_t now, uint32_t flags,
               int overhead_start);
/* Where records must stop so the closing ones fit. */
uint8_t *blk_end(const struct ct_thread *t);
/* Room for need bytes of records in the current block, switching to a
 * new one if needed: 0, or -1 when no block can be had. */
int blk_ensure_room(struct ct_thread *t, size_t need);
/* Moves t to a fresh block, on the tracer's own stack: 0, or -1 (the old
 * block stays current). */
int blk_switch(struct ct_thread *t, size_t need);
/* The thread's name, when the program gave it one: a THREAD_NAME record
 * before the thread's end, into room the block has. */
void blk_put_name(struct ct_thread *t);
/* A record listing the thread's open frames, outermost first: STACK
 * (sub, at block start, dt 0) or CONTEXT (its id first, dt since the
 * previous record).  Returns the frames written. */
uint32_t blk_put_frames(struct ct_thread *t, uint8_t sub, uint64_t dt,
                        const uint8_t *id, size_t idlen);
/* The STACK record: frames open at block start, so a reader can begin
 * there. */
uint32_t blk_put_stack(struct ct_thread *t);
/* In a coroutine: the mark that the block's STACK frames are that
 * context's. */
void blk_put_context_mark(struct ct_thread *t);
/* Whether the exiting thread has ended t (ct_threads_end_others). */
int blk_thread_ended(const struct ct_thread *t);

#pragma GCC visibility pop

#endif /* CT_THREAD_PRIVATE_H */
