/* Small helpers shared by the analyzer: allocation that never returns NULL,
 * and the one way errors about input are worded. */
#ifndef CT_UTIL_H
#define CT_UTIL_H

#include <stddef.h>
#include <stdint.h>

void *ct_xmalloc(size_t n);
void *ct_xcalloc(size_t n, size_t size);
void *ct_xrealloc(void *p, size_t n);
char *ct_xstrdup(const char *s);
char *ct_xstrndup(const char *s, size_t n);
/* A user message as one line: n bytes of s with a backslash written \\,
 * newline, tab and carriage return \n \t \r, other control bytes \xNN
 * (docs/dump-format.md).  Every view that prints messages uses it. */
char *ct_escape_line(const char *s, size_t n);

/* Makes index i valid in *arr, a table of *n elements of size elem (one
 * per thread, say): the elements added are zeroed and *n becomes i + 1. */
void ct_grow_zeroed(void *arr, size_t *n, size_t i, size_t elem);

/* Grow *arr (element size elem) so that index `need` fits. */
void ct_grow(void *arr, size_t *cap, size_t need, size_t elem);

/*
 * "calltrace-report: FILE: WHERE: MESSAGE" on stderr.  WHERE is a place in
 * the input such as "line 12" or "byte 4096"; pass NULL when there is none.
 */
void ct_input_error(const char *file, const char *where, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* "calltrace-report: MESSAGE" on stderr. */
void ct_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void ct_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* a + b, UINT64_MAX where it would wrap: counts read from a trace (lost
 * events) are summed so, or 32 damaged counts of 2^63 would sum to 0. */
static inline uint64_t ct_sat_add(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* More lost events than this no trace can have counted (2^56: at one
 * event every 5 ns, eleven years of dropping in one thread): a larger
 * count is damage, and the report says so. */
#define CT_LOST_MAX_PLAUSIBLE (1ull << 56)

/* Exit statuses of calltrace-report. */
#define CT_EXIT_OK 0
#define CT_EXIT_USAGE 1
#define CT_EXIT_BAD_INPUT 2

#endif /* CT_UTIL_H */
