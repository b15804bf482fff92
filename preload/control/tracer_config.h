/*
 * The settings: the CALLTRACE_* variables parsed into struct ct_config
 * (config.c) and the environment captured at start (env.c).
 *
 * One part of tracer.h, the tracer's internal interface: the files of
 * the tracer include tracer.h, which includes every part; a part compiles
 * alone too, with the parts it needs.
 */
#ifndef CT_TRACER_CONFIG_H
#define CT_TRACER_CONFIG_H

#include "preload/tracer_base.h"

#pragma GCC visibility push(hidden)

/* ---------------------------------------------------------------- config */

#define CT_DEFAULT_OUTPUT "calltrace-%p.raw"
#define CT_DEFAULT_BUFSIZE (1u << 20)
#define CT_MIN_BUFSIZE 4096u
#define CT_MAX_BUFSIZE (1u << 30)
/* The flight recorder's smallest ring: two threads with a block each, and
 * room to turn (calltrace record says when --flight asks for less). */
#define CT_FLIGHT_MIN_SLOTS 4u
/* Thread's first blocks are this small (thread.c); a slot holds one. */
#define CT_FLIGHT_MIN_SLOT (64u << 10)
/* calltrace_event messages: longer ones keep their first bytes and end in
 * CT_USER_MSG_CUT with the count of bytes left out. */
#define CT_USER_MSG_MAX 1024
#define CT_USER_MSG_CUT "...[%zu more bytes]"

struct ct_config {
    char output[CT_PATH_MAX];
    uint32_t bufsize;     /* bytes, multiple of CT_BLOCK_ALIGN               */
    uint64_t limit;       /* largest trace file in bytes, 0 = unlimited      */
    int clock_monotonic;  /* CALLTRACE_CLOCK=monotonic                       */
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

/* The environment the tracer started with (env.c).  ct_env_capture runs
 * first thing at start, before libc may have set `environ`. */
void ct_env_capture(void);
/* A setting: getenv once libc has the environment, else the captured
 * copy (CALLTRACE_* only). */
const char *ct_env_get(const char *name);
/* The captured CALLTRACE_* entries, "NAME=value". */
size_t ct_env_count(void);
const char *ct_env_entry(size_t i);
/* This library's file: absolute when it was loaded by a path with a
 * slash, else the bare name it was loaded by; "" when unknown.  Name: as
 * the loader has it. */
const char *ct_env_self_path(void);
const char *ct_env_self_name(void);
/* msg holds the first cap - 1 bytes (NUL-terminated) of a message of full
 * bytes; marks a cut visibly.  Returns the length to record. */
size_t ct_user_message_cut(char *msg, size_t cap, size_t full);

#pragma GCC visibility pop

#endif /* CT_TRACER_CONFIG_H */
