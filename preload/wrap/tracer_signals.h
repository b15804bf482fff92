/*
 * The program's view of the signals the tracer holds (signals.c).
 *
 * One part of tracer.h, the tracer's internal interface: the files of
 * the tracer include tracer.h, which includes every part; a part compiles
 * alone too, with the parts it needs.
 */
#ifndef CT_TRACER_SIGNALS_H
#define CT_TRACER_SIGNALS_H

#include "preload/tracer_base.h"

#pragma GCC visibility push(hidden)

/* ---------------------------------------------------------------- signals */

/* The program's view of the signals the tracer holds (signals.c). */
#define CT_SIG_CHAIN 1  /* the tracer's handler stays, calls the program's  */
#define CT_SIG_YIELD 2  /* the program's next disposition replaces ours     */
/* Called once, by the wrapper, when a YIELD slot gives the signal up. */
typedef void (*ct_sig_yield_fn)(int sig);
/* Installs ours for sig and keeps what was there as the program's. */
int ct_sig_take(int sig, const struct sigaction *ours, int mode,
                ct_sig_yield_fn on_yield);
/* CT_SIG_CHAIN or CT_SIG_YIELD while held, else 0. */
int ct_sig_held(int sig);
/* The program's disposition of a held signal (async-signal-safe). */
void ct_sig_program(int sig, struct sigaction *out);
/* Gives a held signal its program's disposition for real (from a handler
 * too): the tracer no longer holds it. */
void ct_sig_release(int sig);
/* Calls the program's handler of sig, if it has one, as the kernel would
 * (SA_SIGINFO or not, SA_RESETHAND). */
void ct_sig_chain(int sig, siginfo_t *info, void *ctx);
/* exec keeps SIG_IGN: the program's ignored signals are put back before an
 * exec, and taken again after a failed one. */
void ct_sig_before_exec(void);
void ct_sig_exec_failed(void);
/* libc's sigaction, bypassing the wrappers. */
int ct_sig_real(int sig, const struct sigaction *act, struct sigaction *old);
/* Resolves libc's sigaction ahead of any handler's need. */
void ct_sig_resolve(void);
#pragma GCC visibility pop

#endif /* CT_TRACER_SIGNALS_H */
