/*
 * The control socket (control_socket.c).
 *
 * One part of tracer.h, the tracer's internal interface: the files of
 * the tracer include tracer.h, which includes every part; a part compiles
 * alone too, with the parts it needs.
 */
#ifndef CT_TRACER_CONTROL_H
#define CT_TRACER_CONTROL_H

#include "preload/tracer_base.h"

#pragma GCC visibility push(hidden)

/* --------------------------------------------------------------- control */

/* CALLTRACE_CONTROL (control_socket.c): the socket and its thread, at start, in
 * a forked child, and at the end. */
void ct_control_start(void);
void ct_control_after_fork(void);
void ct_control_stop(void);
/* The socket of process pid of user uid; -1 if it does not fit. */
int ct_control_path(char *dst, size_t cap, unsigned uid, unsigned pid);

#pragma GCC visibility pop

#endif /* CT_TRACER_CONTROL_H */
