/*
 * The profile mode (CALLTRACE_MODE=profile, profile_mode.c): each thread keeps
 * a table of its call paths with their counts and times inside a PROFILE
 * block of the trace file, instead of a record per call.  The slow path
 * of thread.c calls in here where the trace mode writes a record.
 */
#ifndef CT_PROFILE_MODE_H
#define CT_PROFILE_MODE_H

#include <stdint.h>

struct ct_thread;
struct ct_bias_figures;

/* CT_STOP_PROFILE while the profile mode is on, else 0: every thread's
 * stop word carries it, so each call reaches the slow path. */
extern uint32_t ct_profile_stop;

/* At start, before the file is opened: the mode, CALLTRACE_PROFILE_PATHS. */
void ct_profile_start(void);
/* A call of fn enters (the thread is inside the slow path, busy). */
void ct_profile_enter(struct ct_thread *t, uintptr_t fn);
/* The innermost frame the profile entered returns. */
void ct_profile_exit(struct ct_thread *t);
/* The calling thread closes the file (exit, exec, a crash): its table
 * takes the off-CPU time since its latest call and this time as its
 * last; it may go on. */
void ct_profile_close(struct ct_thread *t);
/* The thread ends: its block is marked ended and let go. */
void ct_profile_thread_end(struct ct_thread *t);
/* In a forked child: the parent's tables are let go (never written); the
 * calling thread's open frames go on in a table of the child's file. */
void ct_profile_after_fork(struct ct_thread *t, int self);
/* The thread went over to another context: its open frames are now those
 * of the shadow stack it switched to. */
void ct_profile_switch(struct ct_thread *t);

/* The tracer's cost per call in the profile mode, measured at start as
 * bias.c measures the trace mode's (profile_bias.c), into ct_proc.bias_*. */
void ct_profile_measure_bias(void);
/* Rounds of calls of `call` (one call of a function the profile records,
 * or a library call through a stub) under the profile's path, on a
 * scratch thread state with a table of its own: 0, or -1 without the
 * scratch memory. */
int ct_profile_bias_measure(uintptr_t (*call)(uintptr_t),
                            struct ct_bias_figures *f);
/* For it: a table of t's own in memory, the clock reads of the latest
 * call's entry and return, the table let go. */
int ct_profile_bias_begin(struct ct_thread *t);
void ct_profile_bias_stamps(const struct ct_thread *t, uint64_t *enter,
                            uint64_t *exit);
void ct_profile_bias_end(struct ct_thread *t);

#endif /* CT_PROFILE_MODE_H */
