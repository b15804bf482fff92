/*
 * What every part of tracer.h starts from: the system headers and the
 * trace format they use, and the tracer's attribute macros.  Each part
 * declares hidden symbols only (#pragma GCC visibility), so the hot path
 * reaches the globals directly instead of through the GOT.
 */
#ifndef CT_TRACER_BASE_H
#define CT_TRACER_BASE_H

#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <x86intrin.h>

#include "calltrace_format.h"

#define CT_API __attribute__((visibility("default")))
#define CT_COLD __attribute__((noinline, cold))
#define ct_likely(x) __builtin_expect(!!(x), 1)
#define ct_unlikely(x) __builtin_expect(!!(x), 0)
/* Keeps the compiler from moving stores across it; enough against a signal
 * handler on the same thread, which is the only concurrency a thread's
 * state sees. */
#define ct_signal_fence() __atomic_signal_fence(__ATOMIC_SEQ_CST)

#endif /* CT_TRACER_BASE_H */
