/*
 * Line and number scanning shared by the text-log readers (openlaszlo, lms,
 * rtl, samplingprof).  Lines are found with memchr and numbers parsed by
 * hand: the readers must keep up with hundreds of megabytes a second.
 */
#ifndef CT_TEXTSCAN_H
#define CT_TEXTSCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "analyzer/readers/reader.h"

struct ct_scan {
    const char *p, *end;    /* what is left of the input                  */
    const char *path;
    uint64_t lineno;        /* number of the line last returned (1-based) */
    const char *line;       /* the line last returned, for messages       */
    size_t line_len;
    bool last_unterminated; /* the last line had no newline               */
    /* set by ct_scan_check: lines with control bytes are malformed */
    struct ct_trace_info *info;
    const struct ct_read_opts *opts;
    bool failed;            /* such a line stopped the scan (not --lenient) */
};

void ct_scan_init(struct ct_scan *s, const struct ct_input *in);

/* From now on a line holding control bytes other than tab (binary data,
 * a wrong --format) is malformed: ct_scan_bad reports it, and the scan
 * either skips it (--lenient) or ends there with s->failed set and
 * info->stopped naming the line. */
void ct_scan_check(struct ct_scan *s, struct ct_trace_info *info,
                   const struct ct_read_opts *opts);

/* Whether [b, e) holds a byte below 0x20 other than tab, or 0x7f.  Eight
 * bytes at a time: text logs are read at hundreds of MB a second. */
static inline bool ct_has_control(const char *b, const char *e)
{
    const uint64_t ones = 0x0101010101010101ull, highs = ones * 0x80;
    while (e - b >= 8) {
        uint64_t x;
        memcpy(&x, b, 8);
        /* a byte below 0x20, or 0x7f (x + 1 overflows into 0x80) */
        if (((x - ones * 0x20) & ~x & highs) || ((x + ones) & ~x & highs))
            break;  /* maybe: the loop below decides */
        b += 8;
    }
    for (; b < e; b++) {
        unsigned char c = (unsigned char)*b;
        if ((c < 0x20 && c != '\t') || c == 0x7f)
            return true;
    }
    return false;
}

/* Reports the line last read as binary; true: stop the scan. */
bool ct_scan_binary(struct ct_scan *s);

/* The next line without its '\n'.  A trailing '\r' and NUL bytes on either
 * end are dropped (old socket captures put a NUL after every line).  Returns
 * false at the end of the input. */
static inline bool ct_scan_line(struct ct_scan *s, const char **line,
                                size_t *len)
{
    for (;;) {
        if (s->p >= s->end)
            return false;
        const char *b = s->p;
        const char *nl = memchr(b, '\n', (size_t)(s->end - b));
        const char *e = nl ? nl : s->end;
        s->p = nl ? nl + 1 : s->end;
        s->last_unterminated = !nl;
        while (b < e && *b == 0)
            b++;
        while (e > b && (e[-1] == '\r' || e[-1] == 0))
            e--;
        s->lineno++;
        s->line = b;
        s->line_len = (size_t)(e - b);
        if (s->info && ct_has_control(b, e)) {
            if (ct_scan_binary(s)) {
                s->p = s->end;
                return false;
            }
            continue;  /* --lenient: counted, on to the next line */
        }
        *line = b;
        *len = (size_t)(e - b);
        return true;
    }
}

static inline bool ct_is_digit(char c)
{
    return (unsigned char)(c - '0') < 10;
}

/* Unsigned decimal at *p (at least one digit, no sign).  Advances *p.
 * False on no digit or overflow. */
static inline bool ct_parse_u64(const char **p, const char *end, uint64_t *v)
{
    const char *q = *p;
    uint64_t x = 0;
    if (q >= end || !ct_is_digit(*q))
        return false;
    do {
        unsigned d = (unsigned)(*q - '0');
        if (x > (UINT64_MAX - d) / 10)
            return false;
        x = x * 10 + d;
        q++;
    } while (q < end && ct_is_digit(*q));
    *p = q;
    *v = x;
    return true;
}

/* Optional '-' or '+' then decimal digits, within int64_t. */
bool ct_parse_i64(const char **p, const char *end, int64_t *v);

/*
 * A non-negative decimal such as "1183755012345.01" as an exact integer in
 * units of 10^-frac_digits (frac_digits <= 9).  Fraction digits beyond
 * frac_digits must be zeros (nothing is rounded away silently).  *had_fraction
 * tells whether a '.' with digits was present.
 */
bool ct_parse_fixed(const char **p, const char *end, unsigned frac_digits,
                    uint64_t *v, bool *had_fraction);

/* The whole [p, end) is an unsigned / signed decimal. */
bool ct_whole_u64(const char *p, const char *end, uint64_t *v);
bool ct_whole_i64(const char *p, const char *end, int64_t *v);

/* A number such as "1012.337" or "40" or "2.5e3", as a double.  False if
 * [p, end) is not entirely a number. */
bool ct_whole_double(const char *p, const char *end, double *v);

/* First occurrence of the byte c in [p, end), or NULL. */
static inline const char *ct_find(const char *p, const char *end, char c)
{
    return p < end ? memchr(p, c, (size_t)(end - p)) : NULL;
}

/* Last occurrence of c in [p, end), or NULL. */
const char *ct_find_last(const char *p, const char *end, char c);

/* First occurrence of the string needle in [p, end), or NULL. */
const char *ct_find_str(const char *p, const char *end, const char *needle);

bool ct_starts_with(const char *p, const char *end, const char *prefix);

/*
 * A malformed line.  In --lenient mode counts it in info->skipped_lines and
 * returns false (skip the line and go on).  Otherwise prints one error
 * "FILE: line N: MESSAGE (got '...')", records where reading stopped in
 * info->stopped and returns true: the caller pushes what it has and returns
 * CT_EXIT_BAD_INPUT.
 */
bool ct_scan_bad(struct ct_scan *s, struct ct_trace_info *info,
                 const struct ct_read_opts *opts, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Same for binary formats: "FILE: byte N: MESSAGE". */
bool ct_bytes_bad(const char *path, uint64_t offset,
                  struct ct_trace_info *info, const struct ct_read_opts *opts,
                  const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/*
 * A small direct-mapped cache in front of ct_functab_intern_name: log lines
 * repeat a few names over and over, and a hit costs one short hash and one
 * memcmp instead of a full lookup.
 */
#define CT_NAME_CACHE 1024
struct ct_name_cache {
    struct {
        const char *name;   /* the table's copy (stable) */
        uint32_t len, func;
    } slot[CT_NAME_CACHE];
};

static inline uint32_t ct_intern_cached(struct ct_name_cache *c,
                                        struct ct_functab *tab,
                                        const char *name, size_t len)
{
    uint64_t a = 0, b = 0;
    memcpy(&a, name, len < 8 ? len : 8);
    if (len > 8)
        memcpy(&b, name + len - 8, 8);
    uint64_t h = (a ^ (b * 0x9e3779b97f4a7c15ull) ^ len) * 0xff51afd7ed558ccdull;
    uint32_t i = (uint32_t)(h >> 54) & (CT_NAME_CACHE - 1);
    if (c->slot[i].name && c->slot[i].len == len &&
        memcmp(c->slot[i].name, name, len) == 0)
        return c->slot[i].func;
    uint32_t f = ct_functab_intern_name(tab, name, len);
    if (len < UINT32_MAX) {
        c->slot[i].name = ct_functab_name(tab, f);
        c->slot[i].len = (uint32_t)len;
        c->slot[i].func = f;
    }
    return f;
}

/* How many of the first `limit` lines of the input satisfy pred; lines that
 * are empty are not counted either way.  For the probes. */
struct ct_probe_tally {
    unsigned lines, matched;
};
void ct_probe_lines(const struct ct_input *in, size_t limit_lines,
                    bool (*pred)(const char *l, size_t n, void *ctx),
                    void *ctx, struct ct_probe_tally *t);

/*
 * Events on their way to a sink: a batch sink (trace.h) gets them in
 * arrays, any other sink one by one as they come.  The events' text must
 * outlive ct_emit_flush (the readers point it into the input); they carry
 * no stacks.
 */
#define CT_EMIT_BATCH 256
struct ct_emitter {
    struct ct_sink *sink;
    struct ct_batch_sink *batch;   /* NULL: sink takes events one by one */
    size_t n;
    struct ct_event buf[CT_EMIT_BATCH];
};

void ct_emit_init(struct ct_emitter *em, struct ct_sink *sink);
/* Hands the gathered events over; the sink's answer (non-zero: stop). */
int ct_emit_flush(struct ct_emitter *em);

/* Returns non-zero when the sink asked to stop. */
static inline int ct_emit(struct ct_emitter *em, const struct ct_event *ev)
{
    if (!em->batch)
        return em->sink->event(em->sink, ev);
    em->buf[em->n++] = *ev;
    return em->n == CT_EMIT_BATCH ? ct_emit_flush(em) : 0;
}

/* An event with no text, count or stack.  Written in place: a copy of
 * a freshly built event would stall on its partly forwarded stores. */
static inline int ct_emit_plain(struct ct_emitter *em, enum ct_ev_kind kind,
                                uint32_t thread, uint64_t time, uint32_t func)
{
    if (!em->batch) {
        struct ct_event ev = {.kind = kind, .thread = thread, .time = time,
                              .func = func};
        return em->sink->event(em->sink, &ev);
    }
    em->buf[em->n++] = (struct ct_event){.kind = kind, .thread = thread,
                                         .time = time, .func = func};
    return em->n == CT_EMIT_BATCH ? ct_emit_flush(em) : 0;
}

#endif /* CT_TEXTSCAN_H */
