/*
 * calltrace top: a flat profile of a trace that is still being written,
 * refreshed every interval.  top.c runs the loop, top_view.c lays out the
 * table, top_tty.c owns the terminal, top_find.c finds a process's trace.
 */
#ifndef CT_FE_TOP_H
#define CT_FE_TOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "analyzer/readers/calltrace_follow.h"
#include "analyzer/model/profile.h"
#include "analyzer/model/profile_live.h"
#include "analyzer/model/trace.h"

struct top_snapshot {
    struct ct_live_fstats *f;   /* per functab id                      */
    uint32_t n;
    uint64_t now;               /* latest event (ticks), 0 if none     */
};

struct top {
    const char *path;
    struct ct_trace_info info;
    struct ct_profile *prof;
    struct ct_follow *follow;
    struct top_snapshot prev, cur; /* at the previous refresh and now  */
    uint64_t first;             /* first event (ticks)                 */
    double interval_s;
    bool by_total;              /* sort by total time, not self time   */
    bool since_start;           /* figures since start, not the last
                                   interval                            */
    unsigned rows;              /* functions shown in plain mode       */
    char end_note[320];         /* why the watch ended, "" while on    */
};

/* top_view.c: the table for the current state, width columns wide (0:
 * no limit), at most rows functions; tty adds the keys line. */
void top_render(struct top *t, FILE *out, unsigned width, unsigned rows,
                bool tty);
/* Header lines top_render writes before the function rows. */
#define TOP_HEAD_LINES 5

/* top_tty.c */
bool top_tty_enter(void);
void top_tty_leave(void);
/* Waits up to ms for a key; returns it, 0 on timeout, -1 when a signal
 * asked to stop (*sig receives it). */
int top_tty_key(int ms, int *sig);
/* Sleeps up to ms (plain mode); -1 when a signal asked to stop. */
int top_wait(int ms, int *sig);
void top_catch_signals(void);
void top_tty_size(unsigned *cols, unsigned *lines);

/* top_find.c: the trace a running process writes (malloc'ed), NULL (with
 * a message unless quiet) when it has none. */
char *top_find_trace(pid_t pid, bool quiet);
/* Starts argv traced and returns its pid, -1 with a message. */
pid_t top_spawn(char **argv, bool quiet_output);

#endif /* CT_FE_TOP_H */
