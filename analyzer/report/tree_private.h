/*
 * --tree's two halves: tree.c rebuilds each thread's stack from the events
 * (the profile's rules, docs/analysis.md) and turns them into lines;
 * tree_out.c holds those lines in a short queue until each can be written
 * (a call's `f() {` waits to learn whether it is a leaf, `f();`, and
 * whether it lasts --min-duration), then prints them.
 */
#ifndef CT_TREE_PRIVATE_H
#define CT_TREE_PRIVATE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "analyzer/model/trace.h"

/* How a frame ended, when not by its own return. */
enum tmark {
    TM_NONE,
    TM_NEVER,      /* open when its thread ended: never returned          */
    TM_NO_RETURN,  /* an outer frame returned first (longjmp, exception)  */
    TM_WINDOW,     /* still open when the --time-range window ended       */
};

enum tkind { TI_OPEN, TI_CLOSE, TI_LEAF, TI_TEXT };

struct titem {
    uint8_t kind;           /* enum tkind                                 */
    uint8_t mark;           /* enum tmark, for TI_CLOSE and TI_LEAF       */
    bool inherited;         /* TI_OPEN of a frame open before the trace
                               (or the window) began                      */
    bool pending_leaf;      /* TI_OPEN: no line of its thread follows yet */
    bool pending_min;       /* TI_OPEN: not yet known to last
                               --min-duration                             */
    bool dropped;           /* taken back: part of a call too short       */
    uint32_t thread, func, depth;
    uint64_t dur, overhead; /* ticks, for TI_CLOSE and TI_LEAF            */
    uint64_t oncpu;         /* ticks of dur the thread was on a CPU       */
    char *text;             /* TI_TEXT: the comment's text, owned         */
    char *args;             /* TI_OPEN, TI_LEAF: the call's arguments as
                               text (values.h), owned, or NULL            */
    char *ret;              /* TI_CLOSE, TI_LEAF: its return value, owned */
};

/* Lines waiting to be printed, in order; items are numbered by seq. */
struct tqueue {
    struct titem *items;
    size_t cap;             /* power of two                               */
    uint64_t head, tail;    /* seqs: [head, tail) are waiting             */
    FILE *out;
    const struct ct_trace_info *info;
    bool oncpu;             /* an ON-CPU column beside the duration       */
};

/* Most lines held back at once; past it the oldest waiting call is
 * printed as open (`f() {`) whatever it turns out to be. */
#define TREE_LOOKAHEAD 65536u

void tq_init(struct tqueue *q, FILE *out, const struct ct_trace_info *info);
void tq_free(struct tqueue *q);
/* Appends an item (copied) and returns its seq. */
uint64_t tq_add(struct tqueue *q, const struct titem *it);
static inline struct titem *tq_at(struct tqueue *q, uint64_t seq)
{
    return &q->items[seq & (q->cap - 1)];
}
static inline bool tq_waiting(const struct tqueue *q, uint64_t seq)
{
    return seq >= q->head && seq < q->tail;
}
/* Prints every item up to the first one still pending. */
void tq_drain(struct tqueue *q);
/* Prints everything, pending or not (the end of the data). */
void tq_flush(struct tqueue *q);

#endif /* CT_TREE_PRIVATE_H */
