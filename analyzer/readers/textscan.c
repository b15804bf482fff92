/*
 * Line and number scanning shared by the text-log readers (textscan.h):
 * lines of a mapped input (a binary file refused), whole and fixed-point
 * numbers, a bad line named by its place and quoted (or counted and
 * skipped with --lenient), the probes' look at the first lines, and the
 * batching of events into the sink.
 */
#include "analyzer/readers/textscan.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/util.h"

void ct_scan_init(struct ct_scan *s, const struct ct_input *in)
{
    memset(s, 0, sizeof *s);
    s->p = (const char *)in->data;
    s->end = s->p + in->size;
    s->path = in->path;
}

void ct_scan_check(struct ct_scan *s, struct ct_trace_info *info,
                   const struct ct_read_opts *opts)
{
    s->info = info;
    s->opts = opts;
}

bool ct_scan_binary(struct ct_scan *s)
{
    if (ct_scan_bad(s, s->info, s->opts,
                    "binary bytes where a text line was expected"))
        s->failed = true;
    return s->failed;
}

bool ct_parse_i64(const char **p, const char *end, int64_t *v)
{
    const char *q = *p;
    bool neg = false;
    if (q < end && (*q == '-' || *q == '+')) {
        neg = *q == '-';
        q++;
    }
    uint64_t x;
    if (!ct_parse_u64(&q, end, &x))
        return false;
    if (neg ? x > (uint64_t)INT64_MAX + 1 : x > (uint64_t)INT64_MAX)
        return false;
    *v = neg ? (int64_t)(0 - x) : (int64_t)x;
    *p = q;
    return true;
}

bool ct_parse_fixed(const char **p, const char *end, unsigned frac_digits,
                    uint64_t *v, bool *had_fraction)
{
    static const uint64_t pow10[] = {1, 10, 100, 1000, 10000, 100000,
                                     1000000, 10000000, 100000000,
                                     1000000000};
    const char *q = *p;
    uint64_t ip;
    if (frac_digits > 9 || !ct_parse_u64(&q, end, &ip))
        return false;
    uint64_t scale = pow10[frac_digits];
    if (ip > UINT64_MAX / scale)
        return false;
    uint64_t frac = 0;
    bool had = false;
    if (q + 1 < end && *q == '.' && ct_is_digit(q[1])) {
        q++;
        had = true;
        unsigned n = 0;
        for (; q < end && ct_is_digit(*q); q++, n++) {
            if (n < frac_digits)
                frac = frac * 10 + (uint64_t)(*q - '0');
            else if (*q != '0')
                return false;
        }
        if (n < frac_digits)
            frac *= pow10[frac_digits - n];
    }
    uint64_t r = ip * scale;
    if (r > UINT64_MAX - frac)
        return false;
    *v = r + frac;
    *had_fraction = had;
    *p = q;
    return true;
}

bool ct_whole_u64(const char *p, const char *end, uint64_t *v)
{
    return ct_parse_u64(&p, end, v) && p == end;
}

bool ct_whole_i64(const char *p, const char *end, int64_t *v)
{
    return ct_parse_i64(&p, end, v) && p == end;
}

bool ct_whole_double(const char *p, const char *end, double *v)
{
    char buf[64];
    size_t n = (size_t)(end - p);
    if (n == 0 || n >= sizeof buf)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = p[i];
        if (!ct_is_digit(c) && c != '.' && c != '-' && c != '+' && c != 'e' &&
            c != 'E')
            return false;
    }
    memcpy(buf, p, n);
    buf[n] = 0;
    char *e;
    double d = strtod(buf, &e);
    if (*e || !isfinite(d))
        return false;
    *v = d;
    return true;
}

const char *ct_find_last(const char *p, const char *end, char c)
{
    return p < end ? memrchr(p, c, (size_t)(end - p)) : NULL;
}

const char *ct_find_str(const char *p, const char *end, const char *needle)
{
    size_t n = strlen(needle);
    return p < end ? memmem(p, (size_t)(end - p), needle, n) : NULL;
}

bool ct_starts_with(const char *p, const char *end, const char *prefix)
{
    size_t n = strlen(prefix);
    return (size_t)(end - p) >= n && memcmp(p, prefix, n) == 0;
}

/* The offending line, cut short and with control bytes shown as '?'. */
static void quote_line(char *buf, size_t cap, const char *l, size_t n)
{
    size_t max = cap - 4;
    size_t k = n < max ? n : max;
    for (size_t i = 0; i < k; i++) {
        unsigned char c = (unsigned char)l[i];
        buf[i] = c < 0x20 || c == 0x7f ? '?' : (char)c;
    }
    if (n > max)
        memcpy(buf + k, "...", 3), k += 3;
    buf[k] = 0;
}

bool ct_scan_bad(struct ct_scan *s, struct ct_trace_info *info,
                 const struct ct_read_opts *opts, const char *fmt, ...)
{
    if (opts && opts->lenient) {
        info->skipped_lines++;
        return false;
    }
    char msg[256], got[72], where[32];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    quote_line(got, sizeof got, s->line ? s->line : "", s->line_len);
    snprintf(where, sizeof where, "line %llu", (unsigned long long)s->lineno);
    ct_input_error(s->path, where, "%s (got '%s')", msg, got);
    snprintf(info->stopped, sizeof info->stopped, "malformed line %llu",
             (unsigned long long)s->lineno);
    return true;
}

bool ct_bytes_bad(const char *path, uint64_t offset,
                  struct ct_trace_info *info, const struct ct_read_opts *opts,
                  const char *fmt, ...)
{
    if (opts && opts->lenient) {
        info->skipped_lines++;
        return false;
    }
    char msg[200], where[40];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(where, sizeof where, "byte %llu", (unsigned long long)offset);
    ct_input_error(path, where, "%s", msg);
    snprintf(info->stopped, sizeof info->stopped, "damaged at byte %llu: %s",
             (unsigned long long)offset, msg);
    return true;
}

void ct_probe_lines(const struct ct_input *in, size_t limit_lines,
                    bool (*pred)(const char *l, size_t n, void *ctx),
                    void *ctx, struct ct_probe_tally *t)
{
    struct ct_scan s;
    ct_scan_init(&s, in);
    /* Probes look at the head only: a huge file costs nothing extra. */
    if (s.end - s.p > 65536)
        s.end = s.p + 65536;
    const char *l;
    size_t n;
    t->lines = t->matched = 0;
    while (t->lines < limit_lines && ct_scan_line(&s, &l, &n)) {
        if (n == 0)
            continue;
        if (s.p >= s.end && s.last_unterminated && s.end <
            (const char *)in->data + in->size)
            break;  /* cut by the 64 KiB window */
        t->lines++;
        if (pred(l, n, ctx))
            t->matched++;
    }
}

void ct_emit_init(struct ct_emitter *em, struct ct_sink *sink)
{
    em->sink = sink;
    em->batch = ct_sink_batch(sink);
    em->n = 0;
}

int ct_emit_flush(struct ct_emitter *em)
{
    size_t n = em->n;
    em->n = 0;
    return n && em->batch ? em->batch->events(em->batch, em->buf, n) : 0;
}
