/*
 * The tracer's settings: the CALLTRACE_* variables parsed into struct
 * ct_config (config.c), with their defaults and limits.  Pure functions:
 * the environment and the message sink are passed in.  Shared by the
 * tracer (preload/control/) and calltrace record, which checks its
 * options as the tracer will read them.
 */
#ifndef CT_SETTINGS_CONFIG_H
#define CT_SETTINGS_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "calltrace_format.h"

#define CT_DEFAULT_OUTPUT "calltrace-%p.raw"
#define CT_DEFAULT_BUFSIZE (1u << 20)
#define CT_MIN_BUFSIZE 4096u
#define CT_MAX_BUFSIZE (1u << 30)
/* The flight recorder's smallest ring: two threads with a block each, and
 * room to turn (calltrace record says when --flight asks for less). */
#define CT_FLIGHT_MIN_SLOTS 4u
/* Thread's first blocks are this small (thread.c); a slot holds one. */
#define CT_FLIGHT_MIN_SLOT (64u << 10)
/* A ring asked for has at least this many slots where slots of
 * CT_FLIGHT_MIN_SLOT allow it: many threads each hold a slot, and a ring
 * of a few big slots had none left for the thread that needed one. */
#define CT_FLIGHT_FEW_SLOTS 16u
/* CALLTRACE_LIBCALLS */
#define CT_LIBCALLS_NONE 0
#define CT_LIBCALLS_PLT 1     /* calls from instrumented objects (default) */
#define CT_LIBCALLS_NESTED 2  /* and calls between libraries              */

struct ct_config {
    char output[CT_PATH_MAX];
    uint32_t bufsize;     /* bytes, multiple of CT_BLOCK_ALIGN               */
    uint64_t limit;       /* largest trace file in bytes, 0 = unlimited      */
    int clock_monotonic;  /* CALLTRACE_CLOCK=monotonic                       */
    int clock_fenced;     /* CALLTRACE_CLOCK=tsc-fenced                      */
    int start_paused;
    int toggle_signal;    /* 0 = none                                        */
    int toggle_action;    /* CT_SIGACT_*: what the signal does               */
    int quiet;
    int follow;           /* CALLTRACE_FOLLOW: trace children (wrap_spawn.c) */
    int cputime;          /* CT_CPUTIME_*: CALLTRACE_CPUTIME                 */
    int libcalls;         /* CALLTRACE_LIBCALLS: CT_LIBCALLS_* (plt.h)     */
    uint64_t flight;      /* CALLTRACE_FLIGHT ring bytes, 0 = off (flight.c) */
    int flight_signal;    /* CALLTRACE_FLIGHT_SIGNAL: snapshot, 0 = none    */
    int control;          /* CALLTRACE_CONTROL: control socket (control.c)  */
    uint64_t stream_backlog;     /* CALLTRACE_STREAM_BACKLOG, bytes        */
    uint32_t stream_timeout_ms;  /* CALLTRACE_STREAM_TIMEOUT               */
    int supplier;         /* CALLTRACE_SUPPLIER: blocks mapped ahead (supply.c) */
};

/* ct_config.cputime: how on-CPU time is told from off-CPU time */
#define CT_CPUTIME_SWITCH 0   /* context-switch records, else the clock    */
#define CT_CPUTIME_CLOCK  1   /* CLOCK_THREAD_CPUTIME_ID at block bounds   */
#define CT_CPUTIME_OFF    2

/* Reads one variable; returns NULL when it is unset. */
typedef const char *(*ct_getenv_fn)(const char *name);
/* Receives one complete diagnostic line, without the newline. */
typedef void (*ct_warn_fn)(const char *line);

void ct_config_defaults(struct ct_config *c);

/* The flight recorder's ring for `want` bytes and blocks of `bufsize`:
 * returns the number of slots and puts a slot's size in *slot.  A slot is
 * bufsize, made smaller (not under CT_FLIGHT_MIN_SLOT) until the ring has
 * CT_FLIGHT_FEW_SLOTS of them; there are never fewer than
 * CT_FLIGHT_MIN_SLOTS, so a small ring may be larger than want.  The one
 * rule of the tracer (flight.c) and of calltrace record's notes. */
uint64_t ct_flight_geometry(uint64_t want, uint32_t bufsize, uint32_t *slot);
/* Fills c from the environment; every bad value produces exactly one
 * warning line and falls back to the default. */
void ct_config_load(struct ct_config *c, ct_getenv_fn get, ct_warn_fn warn);
/* "64K", "4M", "1G", "4096": 0 on success. */
int ct_parse_size(const char *s, uint64_t *out);
/* "USR2", "SIGUSR2", "12": the signal number, or -1. */
int ct_parse_signal(const char *s);
/* 1 for the signals CALLTRACE_SIGNAL may take: USR1, USR2, real-time. */
int ct_toggle_signal_allowed(int sig);
/* CALLTRACE_SIGNAL=SIG@ACTION (uftrace's --signal): toggle (the default),
 * on, off, or finish (off, and later signals change nothing). */
#define CT_SIGACT_TOGGLE 0
#define CT_SIGACT_ON     1
#define CT_SIGACT_OFF    2
#define CT_SIGACT_FINISH 3
/* "1"/"0" and yes/no/true/false/on/off, any case; "" is 0: 0 or 1, or -1. */
int ct_parse_bool(const char *s);
/* Expands %p to pid; appends ".<pid>" for a forked child when the pattern
 * has no %p.  Returns 0, or -1 when the result does not fit. */
int ct_output_name(char *dst, size_t cap, const char *pattern, long pid,
                   int forked_child);
/* Formats a size for messages: 1M, 64K, 1000. */
void ct_format_size(char *dst, size_t cap, uint64_t v);

#endif /* CT_SETTINGS_CONFIG_H */
