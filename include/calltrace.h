/*
 * calltrace.h - the public interface for programs traced by calltrace.
 *
 * Build the program with -finstrument-functions and run it as
 *     LD_PRELOAD=libcalltrace.so ./app
 * Everything here is optional.  A program that includes this header builds,
 * links and runs unchanged without the preload: the library's functions are
 * weak references, and every call below does nothing when they are absent.
 * No link flag is needed.  Works from C and C++.
 *
 * Leaving code out of the trace, from coarsest to finest:
 *   - at compile time, whole files or functions:
 *       -finstrument-functions-exclude-file-list=src/vendor/,util.h
 *       -finstrument-functions-exclude-function-list=hash_step,inline_min
 *       __attribute__((no_instrument_function)) on one function
 *     (CALLTRACE_NO_TRACE below is that attribute);
 *   - at run time, for a range of code (the OpenLaszlo `#pragma
 *     'profile=false'` ... `'profile=true'` habit), per thread:
 *       CALLTRACE_OFF();  ...not traced...  CALLTRACE_ON();
 *   - at run time, for the whole process: calltrace_disable() and
 *     calltrace_enable(), or the signal named by CALLTRACE_SIGNAL.
 * Calls made while tracing is off are not recorded at either end, so the
 * trace stays properly nested.
 */
#ifndef CALLTRACE_H
#define CALLTRACE_H

#include <stdarg.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CALLTRACE_NO_TRACE __attribute__((no_instrument_function))

/* Implemented by libcalltrace.so; null when it is not loaded. */
extern void calltrace_vevent_impl(const char *fmt, va_list ap)
    __attribute__((weak));
extern void calltrace_set_enabled_impl(int on) __attribute__((weak));
extern int calltrace_is_enabled_impl(void) __attribute__((weak));
extern void calltrace_region_impl(int on) __attribute__((weak));

/* Record a user event (a V record), printf-style, with the current time,
 * thread and function. */
static inline CALLTRACE_NO_TRACE __attribute__((format(printf, 1, 2)))
void calltrace_event(const char *fmt, ...)
{
    if (calltrace_vevent_impl) {
        va_list ap;
        va_start(ap, fmt);
        calltrace_vevent_impl(fmt, ap);
        va_end(ap);
    }
}

/* Switch tracing on or off for the whole process. */
static inline CALLTRACE_NO_TRACE void calltrace_enable(void)
{
    if (calltrace_set_enabled_impl)
        calltrace_set_enabled_impl(1);
}

static inline CALLTRACE_NO_TRACE void calltrace_disable(void)
{
    if (calltrace_set_enabled_impl)
        calltrace_set_enabled_impl(0);
}

/* 1 when calls are being recorded, 0 when tracing is off or the preload is
 * absent. */
static inline CALLTRACE_NO_TRACE int calltrace_is_enabled(void)
{
    return calltrace_is_enabled_impl ? calltrace_is_enabled_impl() : 0;
}

/* Region toggle for the calling thread.  Regions nest: tracing resumes at
 * the CALLTRACE_ON() matching the outermost CALLTRACE_OFF(). */
#define CALLTRACE_OFF()                                                       \
    do {                                                                      \
        if (calltrace_region_impl)                                            \
            calltrace_region_impl(0);                                         \
    } while (0)

#define CALLTRACE_ON()                                                        \
    do {                                                                      \
        if (calltrace_region_impl)                                            \
            calltrace_region_impl(1);                                         \
    } while (0)

#ifdef __cplusplus
}
#endif

#endif /* CALLTRACE_H */
