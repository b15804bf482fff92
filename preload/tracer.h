/*
 * Internal interface of libcalltrace.so.  Nothing here is exported: the
 * library is built with -fvisibility=hidden and only the hooks, the public
 * *_impl functions and the libc wrappers carry default visibility.
 *
 * The map of the folder, every file with one line, is preload/README.md
 * (tests/e2e/house_check.sh keeps it complete); the path from a call to a
 * report line is docs/architecture.md.
 *
 * It is split along its parts, each in the folder of the code that
 * defines it; this header includes them all, in this order, so a file of
 * the tracer includes only tracer.h:
 *   tracer_base.h                 system headers, format, attribute macros
 *   control/tracer_config.h       the settings, the environment at start
 *   hot/tracer_clock.h            the time source, ct_now
 *   hot/tracer_thread.h           thread state, hooks, slow path, encoders
 *   file/tracer_file.h            the trace file and its blocks (ct_proc)
 *   file/tracer_flight.h          the flight recorder
 *   control/tracer_control.h      the control socket
 *   file/tracer_maps.h            MAPS blocks
 *   control/tracer_lifecycle.h    start, close, exec
 *   wrap/tracer_signals.h         the signals the tracer holds
 *   wrap/tracer_wrap.h            next definitions, runpath, raw clone
 */
#ifndef CT_TRACER_H
#define CT_TRACER_H

#include "preload/tracer_base.h"

#include "preload/control/tracer_config.h"
#include "preload/hot/tracer_clock.h"
#include "preload/hot/tracer_thread.h"
#include "preload/file/tracer_file.h"
#include "preload/file/tracer_flight.h"
#include "preload/control/tracer_control.h"
#include "preload/file/tracer_maps.h"
#include "preload/control/tracer_lifecycle.h"
#include "preload/wrap/tracer_signals.h"
#include "preload/wrap/tracer_wrap.h"

#endif /* CT_TRACER_H */
