/*
 * Helpers for every layer of the analyzer (util.h): allocation that never
 * returns NULL (the process stops with a message instead), arrays that
 * grow, and the one wording of errors and warnings, so that every message
 * about bad input names the file and the place.
 */
#include "analyzer/util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void out_of_memory(size_t n)
{
    fprintf(stderr, "calltrace-report: out of memory (%zu bytes)\n", n);
    exit(CT_EXIT_BAD_INPUT);
}

void *ct_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        out_of_memory(n);
    return p;
}

void *ct_xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        out_of_memory(n * size);
    return p;
}

void *ct_xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p)
        out_of_memory(n);
    return p;
}

char *ct_xstrdup(const char *s)
{
    return ct_xstrndup(s, strlen(s));
}

char *ct_xstrndup(const char *s, size_t n)
{
    char *d = ct_xmalloc(n + 1);
    memcpy(d, s, n);
    d[n] = 0;
    return d;
}

char *ct_escape_line(const char *s, size_t n)
{
    char *d = ct_xmalloc(4 * n + 1), *o = d;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        const char *esc = c == '\\' ? "\\\\" : c == '\n' ? "\\n"
                        : c == '\t' ? "\\t" : c == '\r' ? "\\r" : NULL;
        if (esc) {
            memcpy(o, esc, 2);
            o += 2;
        } else if (c < 0x20 || c == 0x7f) {
            static const char hex[] = "0123456789abcdef";
            *o++ = '\\';
            *o++ = 'x';
            *o++ = hex[c >> 4];
            *o++ = hex[c & 15];
        } else {
            *o++ = (char)c;
        }
    }
    *o = '\0';
    return d;
}

void ct_grow(void *arr, size_t *cap, size_t need, size_t elem)
{
    void **a = arr;
    if (need < *cap)
        return;
    size_t c = *cap ? *cap : 16;
    while (c <= need)
        c *= 2;
    *a = ct_xrealloc(*a, c * elem);
    *cap = c;
}

void ct_grow_zeroed(void *arr, size_t *n, size_t i, size_t elem)
{
    void **a = arr;
    if (i < *n)
        return;
    *a = ct_xrealloc(*a, (i + 1) * elem);
    memset((char *)*a + *n * elem, 0, (i + 1 - *n) * elem);
    *n = i + 1;
}

void ct_input_error(const char *file, const char *where, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "calltrace-report: %s: ", file ? file : "<input>");
    if (where)
        fprintf(stderr, "%s: ", where);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

void ct_error(const char *fmt, ...)
{
    va_list ap;
    fputs("calltrace-report: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

void ct_warn(const char *fmt, ...)
{
    va_list ap;
    fputs("calltrace-report: warning: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}
