/*
 * The run-time controls of include/calltrace.h.  The program reaches them
 * through weak references, so each one must be harmless in any state of
 * the tracer (not started, failed, thread ended).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "preload/tracer.h"

CT_API void calltrace_vevent_impl(const char *fmt, va_list ap);
CT_API void calltrace_set_enabled_impl(int on);
CT_API int calltrace_is_enabled_impl(void);
CT_API void calltrace_region_impl(int on);

size_t ct_user_message_cut(char *msg, size_t cap, size_t full)
{
    if (full < cap)
        return full;
    /* The mark's length depends on the count, which depends on where the
     * cut falls: settle both, never splitting a UTF-8 sequence. */
    size_t kept = cap - 1;
    char mark[48];
    int m;
    for (;;) {
        m = snprintf(mark, sizeof mark, CT_USER_MSG_CUT, full - kept);
        if (kept + (size_t)m <= cap - 1)
            break;
        kept = cap - 1 - (size_t)m;
        while (kept && ((unsigned char)msg[kept] & 0xC0) == 0x80)
            kept--;
    }
    memcpy(msg + kept, mark, (size_t)m + 1);
    return kept + (size_t)m;
}

CT_API void calltrace_vevent_impl(const char *fmt, va_list ap)
{
    int saved = errno;
    char msg[CT_USER_MSG_MAX];
    int n = vsnprintf(msg, sizeof msg, fmt, ap);
    if (n >= 0)
        ct_tracer_append_ext(CT_EXT_USER, msg,
                             ct_user_message_cut(msg, sizeof msg, (size_t)n));
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
