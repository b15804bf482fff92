/*
 * The run-time controls of include/calltrace.h.  The program reaches them
 * through weak references, so each one must be harmless in any state of
 * the tracer (not started, failed, thread ended).
 */
#include <errno.h>
#include <stdio.h>

#include "tracer.h"

CT_API void calltrace_vevent_impl(const char *fmt, va_list ap);
CT_API void calltrace_set_enabled_impl(int on);
CT_API int calltrace_is_enabled_impl(void);
CT_API void calltrace_region_impl(int on);

CT_API void calltrace_vevent_impl(const char *fmt, va_list ap)
{
    int saved = errno;
    char msg[CT_USER_MSG_MAX];
    int n = vsnprintf(msg, sizeof msg, fmt, ap);
    if (n >= 0) {
        size_t len = (size_t)n < sizeof msg ? (size_t)n : sizeof msg - 1;
        ct_tracer_append_ext(CT_EXT_USER, msg, len);
    }
    errno = saved;
}

CT_API void calltrace_set_enabled_impl(int on)
{
    __atomic_store_n(&ct_enabled, on ? 1 : 0, __ATOMIC_RELAXED);
    ct_global_update();
}

CT_API int calltrace_is_enabled_impl(void)
{
    return !(__atomic_load_n(&ct_global_word, __ATOMIC_RELAXED) & 1);
}

CT_API void calltrace_region_impl(int on)
{
    int saved = errno;
    ct_thread_region(on);
    errno = saved;
}
