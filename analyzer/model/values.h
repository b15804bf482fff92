/*
 * The values of ARGS and RETVAL records (include/calltrace_format.h,
 * CT_VAL_*) as text, in uftrace's spelling: `3, "GET /", 0x7f00`.
 * Readers pass the payload on untouched (CT_EV_ARGS, CT_EV_RETVAL); each
 * view formats it here when it shows it.
 */
#ifndef CT_VALUES_H
#define CT_VALUES_H

#include <stddef.h>
#include <stdint.h>

/* Longest text ct_values_text writes, NUL included. */
#define CT_VALUES_TEXT_MAX 2048u

/* Writes the values of payload [p, p + len) into out (cap bytes, at most
 * CT_VALUES_TEXT_MAX used), separated by ", ", NUL-terminated; returns
 * the length.  Damage or an unknown tag ends the text with `?`; a text
 * longer than cap ends with `...`. */
size_t ct_values_text(const uint8_t *p, size_t len, char *out, size_t cap);

/* The same, a pointer at the start of a function read as `&name` where
 * info can name it (ct_trace_info.addr_name): what every view shows. */
struct ct_trace_info;
size_t ct_values_text_of(const struct ct_trace_info *info, const uint8_t *p,
                         size_t len, char *out, size_t cap);

#endif /* CT_VALUES_H */
