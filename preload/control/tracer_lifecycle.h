/*
 * Start, clean close and exec of the traced process (lifecycle.c).
 *
 * One part of tracer.h, the tracer's internal interface: the files of
 * the tracer include tracer.h, which includes every part; a part compiles
 * alone too, with the parts it needs.
 */
#ifndef CT_TRACER_LIFECYCLE_H
#define CT_TRACER_LIFECYCLE_H

#include "preload/tracer_base.h"

#pragma GCC visibility push(hidden)

/* ------------------------------------------------------------- lifecycle */

/* Starts tracing: configuration, clock, file, MAPS, bias, handlers. */
void ct_process_start(void);
/* Clean close at exit: closes this thread's block, finalizes the header. */
void ct_process_finish(void);
/* Before exec: finalize the header; after a failed exec: resume. */
void ct_exec_prepare(void);
void ct_exec_failed(void);

/* Set by init.c: the first event may start the tracer lazily. */
extern const int ct_autostart __attribute__((weak));

#pragma GCC visibility pop

#endif /* CT_TRACER_LIFECYCLE_H */
