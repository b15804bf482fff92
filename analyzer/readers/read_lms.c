/*
 * lms framework profiler CSV: "2,<id>,<label>" maps an id to a label,
 * "0,<id>,<delta>" begins and "1,<id>,<delta>" ends a span; deltas are
 * signed microseconds since the previous 0/1 line.  The older form
 * "<type>,<delta>,<label>" (2015) has no mapping lines.
 *
 * There is no thread id, and threads share the file, so spans may overlap
 * without nesting.  Begins are matched to ends by id.  Spans are then laid
 * out on synthetic threads: a span goes on the first thread where it nests
 * inside the innermost span still open there (or where nothing is open);
 * a span that nests nowhere opens a new thread ("interleaved N").  A file
 * whose spans all nest therefore gives one thread and the usual call graph.
 */
#include <stdlib.h>
#include <string.h>

#include "analyzer/readers/reader.h"
#include "analyzer/readers/textscan.h"
#include "analyzer/util.h"

#define LMS_MAX_ID (1u << 20)
#define LMS_MAX_THREADS 256
#define LMS_OPEN_END INT64_MAX  /* span not ended in the file */

struct span {
    int64_t begin, end;
    uint32_t func;
    uint32_t seq;           /* file order, breaks ties when sorting      */
    uint32_t prev_open;     /* next older open span of the same key      */
};

struct lms {
    struct span *spans;
    size_t nspans, cap;
    uint32_t *func_of_id;   /* mapping id -> func + 1 (0 = unmapped)     */
    size_t ids_cap;
    uint32_t *open_top;     /* key -> newest open span index + 1         */
    size_t open_cap;
    bool old_form;
    int64_t clock;          /* microseconds since the profiler started   */
};

static uint32_t *slot(uint32_t **arr, size_t *cap, uint32_t key)
{
    if (key >= *cap) {
        size_t old = *cap;
        ct_grow(arr, cap, key, sizeof **arr);
        memset(*arr + old, 0, (*cap - old) * sizeof **arr);
    }
    return &(*arr)[key];
}

static void begin_span(struct lms *L, uint32_t key, uint32_t func, int64_t t)
{
    if (L->nspans == L->cap)
        ct_grow(&L->spans, &L->cap, L->nspans, sizeof *L->spans);
    uint32_t *top = slot(&L->open_top, &L->open_cap, key);
    L->spans[L->nspans] = (struct span){t, LMS_OPEN_END, func,
                                        (uint32_t)L->nspans, *top};
    *top = (uint32_t)++L->nspans;
}

static bool end_span(struct lms *L, uint32_t key, int64_t t)
{
    uint32_t *top = slot(&L->open_top, &L->open_cap, key);
    if (!*top)
        return false;
    struct span *s = &L->spans[*top - 1];
    if (t < s->begin)
        return false;
    s->end = t;
    *top = s->prev_open;
    return true;
}

/* A begin or end line at `delta` after the previous one.  Returns false
 * to stop (error already reported). */
static bool span_line(struct lms *L, struct ct_scan *s,
                      struct ct_trace_info *info,
                      const struct ct_read_opts *opts, char type, uint32_t key,
                      uint32_t func, int64_t delta)
{
    int64_t *clock = &L->clock;
    if (__builtin_add_overflow(*clock, delta, clock) ||
        *clock <= INT64_MIN / 2 || *clock >= INT64_MAX / 2) {
        ct_scan_bad(s, info, NULL, "time out of range");
        return false;
    }
    if (type == '0') {
        if (L->nspans >= UINT32_MAX - 1) {
            ct_scan_bad(s, info, NULL, "too many spans");
            return false;
        }
        begin_span(L, key, func, *clock);
    } else if (!end_span(L, key, *clock)) {
        return !ct_scan_bad(s, info, opts, "end of a span that has no "
                            "open begin (or ends before it begins)");
    }
    return true;
}

/* Up to 18 digits, which cannot overflow: ids and deltas are short.  A
 * longer number is left to the general path and its overflow checks. */
static inline bool short_u64(const char **p, const char *end, uint64_t *v)
{
    const char *q = *p;
    const char *lim = end - q > 18 ? q + 18 : end;
    uint64_t x = 0;
    if (q >= lim || !ct_is_digit(*q))
        return false;
    do {
        x = x * 10 + (uint64_t)(*q++ - '0');
    } while (q < lim && ct_is_digit(*q));
    if (q < end && ct_is_digit(*q))
        return false;
    *p = q;
    *v = x;
    return true;
}

static inline bool short_i64(const char **p, const char *end, int64_t *v)
{
    const char *q = *p;
    bool neg = q < end && *q == '-';
    uint64_t x;
    q += neg;
    if (!short_u64(&q, end, &x))
        return false;
    *v = neg ? -(int64_t)x : (int64_t)x;
    *p = q;
    return true;
}

/* "0,<id>,<delta>\n" read straight from the buffer: most lines are this.
 * Returns 1 done, 0 not this shape (the general path takes it), -1 stop. */
static int fast_line(struct lms *L, struct ct_scan *s,
                     struct ct_trace_info *info,
                     const struct ct_read_opts *opts)
{
    const char *p = s->p, *end = s->end;
    uint64_t id;
    int64_t delta;
    if (end - p < 6 || (p[0] != '0' && p[0] != '1') || p[1] != ',')
        return 0;
    const char *q = p + 2;
    if (!short_u64(&q, end, &id) || q >= end || *q++ != ',' ||
        !short_i64(&q, end, &delta) || q >= end || *q != '\n' ||
        id >= L->ids_cap || !L->func_of_id[id])
        return 0;
    s->p = q + 1;
    s->lineno++;
    s->line = p;
    s->line_len = (size_t)(q - p);
    return span_line(L, s, info, opts, p[0], (uint32_t)id,
                     L->func_of_id[id] - 1, delta) ? 1 : -1;
}

/* Parses the file into spans.  Returns true to go on, false on a fatal
 * malformed line (already reported). */
static bool parse(struct lms *L, const struct ct_input *in,
                  struct ct_trace_info *info, const struct ct_read_opts *opts)
{
    struct ct_scan s;
    ct_scan_init(&s, in);
    ct_scan_check(&s, info, opts);
    const char *l;
    size_t n;
    bool decided = false;
    for (;;) {
        if (decided && !L->old_form) {
            int r = fast_line(L, &s, info, opts);
            if (r < 0)
                return false;
            if (r > 0)
                continue;
        }
        if (!ct_scan_line(&s, &l, &n))
            return !s.failed;
        const char *e = l + n;
        if (n == 0)
            continue;
        const char *c1 = ct_find(l, e, ',');
        const char *c2 = c1 ? ct_find(c1 + 1, e, ',') : NULL;
        if (!c2 || c1 != l + 1 || (*l != '0' && *l != '1' && *l != '2')) {
            if (ct_scan_bad(&s, info, opts,
                            "expected '<0|1|2>,<id>,<delta or label>'"))
                return false;
            continue;
        }
        if (!decided) {
            /* Mapping lines come before the first use of an id; a file
             * that starts with a begin or end is the older form. */
            L->old_form = *l != '2';
            decided = true;
        }
        if (*l == '2') {
            uint64_t id;
            if (L->old_form || !ct_whole_u64(c1 + 1, c2, &id) ||
                id >= LMS_MAX_ID) {
                if (ct_scan_bad(&s, info, opts, "expected '2,<id>,<label>' "
                                "with an id below %u", LMS_MAX_ID))
                    return false;
                continue;
            }
            uint32_t f = ct_functab_intern_name(info->funcs, c2 + 1,
                                                (size_t)(e - c2 - 1));
            *slot(&L->func_of_id, &L->ids_cap, (uint32_t)id) = f + 1;
            continue;
        }
        int64_t delta;
        uint32_t key, func;
        if (L->old_form) {
            if (!ct_whole_i64(c1 + 1, c2, &delta)) {
                if (ct_scan_bad(&s, info, opts,
                                "expected '<0|1>,<delta>,<label>'"))
                    return false;
                continue;
            }
            func = ct_functab_intern_name(info->funcs, c2 + 1,
                                          (size_t)(e - c2 - 1));
            key = func;
        } else {
            uint64_t id;
            if (!ct_whole_u64(c1 + 1, c2, &id) ||
                !ct_whole_i64(c2 + 1, e, &delta)) {
                if (ct_scan_bad(&s, info, opts,
                                "expected '<0|1>,<id>,<delta>'"))
                    return false;
                continue;
            }
            if (id >= L->ids_cap || !L->func_of_id[id]) {
                if (ct_scan_bad(&s, info, opts, "id %llu used before a "
                                "'2,%llu,<label>' line maps it",
                                (unsigned long long)id,
                                (unsigned long long)id))
                    return false;
                continue;
            }
            key = (uint32_t)id;
            func = L->func_of_id[id] - 1;
        }
        if (!span_line(L, &s, info, opts, *l, key, func, delta))
            return false;
    }
    return true;
}

static int by_begin(const void *a, const void *b)
{
    const struct span *x = a, *y = b;
    if (x->begin != y->begin)
        return x->begin < y->begin ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

struct lane {
    uint32_t *stack;    /* span indices, innermost last */
    size_t depth, cap;
    uint32_t thread;
};

static int emit(struct ct_emitter *sink, enum ct_ev_kind kind,
                uint32_t thread, uint64_t t, uint32_t func)
{
    return ct_emit_plain(sink, kind, thread, t, func);
}

/* Ends the spans of lane that end by `until`; innermost first. */
static int close_until(struct lane *ln, const struct span *spans,
                       int64_t until, int64_t base, struct ct_emitter *sink)
{
    while (ln->depth) {
        const struct span *s = &spans[ln->stack[ln->depth - 1]];
        if (s->end > until)
            break;
        ln->depth--;
        if (s->end != LMS_OPEN_END &&
            emit(sink, CT_EV_RETURN, ln->thread, (uint64_t)(s->end - base),
                 s->func))
            return 1;
    }
    return 0;
}

static int lay_out(struct lms *L, struct ct_trace_info *info,
                   struct ct_emitter *sink)
{
    struct span *sp = L->spans;
    int64_t base = 0;
    bool sorted = true;
    for (size_t i = 0; i < L->nspans; i++) {
        if (sp[i].begin < base)
            base = sp[i].begin;
        if (i && sp[i].begin < sp[i - 1].begin)
            sorted = false;
    }
    if (!sorted)
        qsort(sp, L->nspans, sizeof *sp, by_begin);

    struct lane lanes[LMS_MAX_THREADS];
    uint32_t nlanes = 0;
    int r = 0;
    for (size_t i = 0; i < L->nspans && !r; i++) {
        uint32_t k;
        for (k = 0; k < nlanes; k++) {
            struct lane *ln = &lanes[k];
            if ((r = close_until(ln, sp, sp[i].begin, base, sink)))
                break;
            if (!ln->depth || sp[ln->stack[ln->depth - 1]].end >= sp[i].end)
                break;
        }
        if (r)
            break;
        if (k == nlanes) {
            if (nlanes == LMS_MAX_THREADS) {
                ct_input_error(info->path, NULL, "more than %d spans overlap "
                               "without nesting; cannot lay them out",
                               LMS_MAX_THREADS);
                snprintf(info->stopped, sizeof info->stopped,
                         "too many interleaved spans");
                r = -1;
                break;
            }
            lanes[k] = (struct lane){.thread = ct_trace_thread(info, k)};
            if (k) {
                struct ct_thread_info *ti = &info->threads[lanes[k].thread];
                snprintf(ti->name, sizeof ti->name, "interleaved %u", k);
                ti->synthetic = true;
            }
            nlanes++;
        }
        struct lane *ln = &lanes[k];
        ct_grow(&ln->stack, &ln->cap, ln->depth, sizeof *ln->stack);
        ln->stack[ln->depth++] = (uint32_t)i;
        r = emit(sink, CT_EV_CALL, ln->thread, (uint64_t)(sp[i].begin - base),
                 sp[i].func);
    }
    for (uint32_t k = 0; k < nlanes; k++) {
        if (!r)
            r = close_until(&lanes[k], sp, LMS_OPEN_END, base, sink);
        free(lanes[k].stack);
    }
    /* what was laid out, also before a layout error */
    int f = ct_emit_flush(sink);
    if (!r)
        r = f;
    return r < 0 ? CT_EXIT_BAD_INPUT : CT_EXIT_OK;
}

static int read_lms(const struct ct_input *in, struct ct_trace_info *info,
                    struct ct_sink *sink, const struct ct_read_opts *opts)
{
    struct lms L = {0};
    info->ns_per_tick = 1000.0;
    snprintf(info->clock, sizeof info->clock, "lms microseconds");
    bool ok = parse(&L, in, info, opts);
    if (L.old_form)
        ct_trace_add_meta(info, "lms form", "type,diff,label (no mapping "
                          "lines)");
    struct ct_emitter *em = ct_xmalloc(sizeof *em);
    ct_emit_init(em, sink);
    int r = lay_out(&L, info, em);
    free(em);
    if (info->nthreads > 1) {
        char v[64];
        snprintf(v, sizeof v, "%u synthetic threads (spans overlap without "
                 "nesting)", info->nthreads);
        ct_trace_add_meta(info, "lms threads", v);
    }
    free(L.spans);
    free(L.func_of_id);
    free(L.open_top);
    return ok && r == CT_EXIT_OK ? CT_EXIT_OK : CT_EXIT_BAD_INPUT;
}

static bool lms_line(const char *l, size_t n, void *ctx)
{
    (void)ctx;
    const char *e = l + n;
    if (n < 5 || (l[0] != '0' && l[0] != '1' && l[0] != '2') || l[1] != ',')
        return false;
    const char *c2 = ct_find(l + 2, e, ',');
    if (!c2 || c2 == l + 2)
        return false;
    if (l[0] == '2')
        return ct_whole_u64(l + 2, c2, &(uint64_t){0});
    int64_t v;
    /* "0,id,delta" or the older "0,delta,label" */
    return ct_whole_i64(l + 2, c2, &v) &&
           (ct_whole_i64(c2 + 1, e, &v) || c2 + 1 < e);
}

static int probe(const struct ct_input *in)
{
    struct ct_probe_tally t;
    ct_probe_lines(in, 64, lms_line, NULL, &t);
    if (!t.lines || t.matched < t.lines)
        return t.lines && t.matched * 10 >= t.lines * 9 ? 30 : 0;
    return 60;
}

const struct ct_reader ct_reader_lms = {
    "lms", "lms framework profiler CSV (0/1/2,id,delta|label)", probe,
    read_lms};
