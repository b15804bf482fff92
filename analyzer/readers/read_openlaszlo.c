/*
 * OpenLaszlo call profiler raw form: "<timestamp> <key> <name>" a line,
 * keys C (call), R (return), S/E (profiler overhead), V (user event).
 *
 * The profiler dumps its hash tables in hash order: all C lines of a dump,
 * then all R, then all V.  Records are therefore collected, sorted by time
 * (at equal time C/R/S/E before V, otherwise in file order) and pushed
 * afterwards.  The sort is a natural merge sort: a raw file is a few long
 * ascending runs per dump and a sorted file is one run, so it costs little
 * more than a linear pass.
 *
 * Timestamps are milliseconds, possibly fractional in old versions.  When
 * any timestamp has a fraction, ticks are nanoseconds (the decimals are
 * parsed exactly); otherwise ticks are milliseconds.
 *
 * calltrace's --dump writes the same form; keys of threads other than the
 * first carry the thread index ("C2"), and "V lost: N events" records lost
 * events.
 */
#include <stdlib.h>
#include <string.h>

#include "analyzer/readers/reader.h"
#include "analyzer/readers/textscan.h"
#include "analyzer/util.h"

enum { K_C, K_R, K_S, K_E, K_V };

struct olrec {
    uint64_t time;      /* nanoseconds while reading                      */
    uint64_t off;       /* V: payload offset in the input                 */
    uint32_t arg;       /* C/R: func id; V: payload length                */
    uint32_t kt;        /* kind | thread << 3                             */
};

struct olvec {
    struct olrec *r;
    size_t n, cap;
};

/* a goes no later than b */
static inline bool rec_le(const struct olrec *a, const struct olrec *b)
{
    if (a->time != b->time)
        return a->time < b->time;
    return (a->kt & 7) != K_V || (b->kt & 7) == K_V;
}

static void merge(struct olrec *a, size_t lo, size_t mid, size_t hi,
                  struct olrec *tmp)
{
    if (rec_le(&a[mid - 1], &a[mid]))
        return;  /* already in order: consecutive dumps usually are */
    size_t nl = mid - lo;
    memcpy(tmp, a + lo, nl * sizeof *a);
    size_t i = 0, j = mid, k = lo;
    while (i < nl && j < hi)
        a[k++] = rec_le(&tmp[i], &a[j]) ? tmp[i++] : a[j++];
    while (i < nl)
        a[k++] = tmp[i++];
}

static void sort_records(struct olvec *v)
{
    if (v->n < 2)
        return;
    size_t *runs = NULL, nruns = 0, cap = 0;
    for (size_t i = 0; i < v->n; i++) {
        if (i == 0 || !rec_le(&v->r[i - 1], &v->r[i])) {
            ct_grow(&runs, &cap, nruns + 1, sizeof *runs);
            runs[nruns++] = i;
        }
    }
    if (nruns > 1) {
        runs[nruns] = v->n;
        struct olrec *tmp = ct_xmalloc(v->n * sizeof *tmp);
        while (nruns > 1) {
            size_t k = 0;
            for (size_t i = 0; i < nruns; i += 2) {
                if (i + 1 < nruns)
                    merge(v->r, runs[i], runs[i + 1], runs[i + 2], tmp);
                runs[k++] = runs[i];
            }
            runs[k] = v->n;
            nruns = k;
        }
        free(tmp);
    }
    free(runs);
}

/* "Key: value" header lines become metadata; indented ones are qualified
 * by the section line above them ("LPS" + "Version: 4.3.0"). */
static void header_line(struct ct_trace_info *info, const char *l, size_t n,
                        char *section, size_t section_cap)
{
    const char *e = l + n;
    bool indented = n && (*l == ' ' || *l == '\t');
    while (l < e && (*l == ' ' || *l == '\t'))
        l++;
    if (l == e || ct_starts_with(l, e, "<xml>") ||
        ct_starts_with(l, e, "</xml>"))
        return;
    const char *colon = ct_find_str(l, e, ": ");
    if (!colon) {
        if (!indented)
            snprintf(section, section_cap, "%.*s", (int)(e - l), l);
        return;
    }
    if (!indented)
        section[0] = 0;
    char key[128], value[1024];
    snprintf(key, sizeof key, "%s%s%.*s", indented ? section : "",
             indented && section[0] ? " " : "", (int)(colon - l), l);
    snprintf(value, sizeof value, "%.*s", (int)(e - colon - 2), colon + 2);
    ct_trace_add_meta(info, key, value);
    if (strcmp(key, "Profiling URL") == 0 || strcmp(key, "Program") == 0)
        snprintf(info->program, sizeof info->program, "%s", value);
    else if (strcmp(key, "Command") == 0)
        snprintf(info->command, sizeof info->command, "%s", value);
}

struct parse_state {
    bool any_fraction;
    bool seen_record;
    bool seen_header;       /* "<xml>" or "Profile version:"              */
    uint64_t records;
    char section[64];
    uint64_t last_tidx;     /* thread lookups are cached: few threads */
    uint32_t last_thread;
    struct ct_name_cache names;
};

static const char *const expected_record =
    "expected '<timestamp> <C|R|S|E|V> <name>'";

/* Returns false to stop (fatal error already reported). */
static bool parse(const struct ct_input *in, struct ct_trace_info *info,
                  const struct ct_read_opts *opts, struct olvec *v,
                  struct parse_state *ps)
{
    struct ct_scan s;
    ct_scan_init(&s, in);
    ct_scan_check(&s, info, opts);
    const char *l;
    size_t n;
    while (ct_scan_line(&s, &l, &n)) {
        const char *e = l + n;
        if (n == 0)
            continue;
        if (!ct_is_digit(*l)) {
            /* A header is followed by records; once they began, only
             * another dump's header may come ("<xml>", "Profile
             * version:"), never free text. */
            if (ps->seen_record && !ct_starts_with(l, e, "<xml>") &&
                !ct_starts_with(l, e, "</xml>") &&
                !ct_starts_with(l, e, "Profile version:")) {
                if (ct_scan_bad(&s, info, opts, "%s", expected_record))
                    return false;
                continue;
            }
            if (ct_starts_with(l, e, "<xml>") ||
                ct_starts_with(l, e, "Profile version:")) {
                ps->seen_header = true;
                ps->seen_record = false;  /* a new dump's header */
            }
            if (!ps->seen_record)
                header_line(info, l, n, ps->section, sizeof ps->section);
            continue;
        }
        const char *p = l;
        uint64_t t;
        bool frac;
        if (!ct_parse_fixed(&p, e, 6, &t, &frac)) {
            if (ct_scan_bad(&s, info, opts, "timestamp out of range or with "
                            "more than 6 decimals"))
                return false;
            continue;
        }
        int kind = -1;
        if (p + 1 < e && *p == ' ') {
            switch (p[1]) {
            case 'C': kind = K_C; break;
            case 'R': kind = K_R; break;
            case 'S': kind = K_S; break;
            case 'E': kind = K_E; break;
            case 'V': kind = K_V; break;
            }
            p += 2;
        }
        uint64_t tidx = 0;
        if (kind >= 0 && p < e && ct_is_digit(*p) &&
            (!ct_parse_u64(&p, e, &tidx) || tidx >= (1u << 28)))
            kind = -1;
        if (kind < 0 || (p < e && *p != ' ')) {
            if (ct_scan_bad(&s, info, opts, "%s", expected_record))
                return false;
            continue;
        }
        const char *name = p < e ? p + 1 : e;
        ps->any_fraction |= frac;
        ps->seen_record = true;
        ps->records++;
        if (tidx != ps->last_tidx || info->nthreads == 0) {
            ps->last_thread = ct_trace_thread(info, tidx);
            ps->last_tidx = tidx;
        }
        ct_grow(&v->r, &v->cap, v->n, sizeof *v->r);
        struct olrec *r = &v->r[v->n++];
        r->time = t;
        r->kt = (uint32_t)kind | ps->last_thread << 3;
        r->off = 0;
        r->arg = 0;
        if (kind == K_C || kind == K_R)
            r->arg = ct_intern_cached(&ps->names, info->funcs, name,
                                      (size_t)(e - name));
        else if (kind == K_V) {
            r->off = (uint64_t)(name - (const char *)in->data);
            size_t len = (size_t)(e - name);
            r->arg = len > UINT32_MAX ? UINT32_MAX : (uint32_t)len;
        }
    }
    if (s.failed)
        return false;
    /* Free text and no record is not an OpenLaszlo log (--format forced
     * on something else): say so rather than print an empty profile. */
    if (!ps->records && !ps->seen_header && in->size) {
        s.lineno = 1;
        ct_scan_init(&s, in);
        ct_scan_line(&s, &l, &n);
        s.info = info;
        if (ct_scan_bad(&s, info, NULL, "%s (no record and no OpenLaszlo "
                        "header in the file)", expected_record))
            return false;
    }
    return true;
}

/* The next ",calls:" or ",returns:" in [p, e); *is_call says which. */
static const char *next_merged(const char *p, const char *e, bool *is_call)
{
    const char *c = ct_find_str(p, e, ",calls:");
    const char *r = ct_find_str(p, e, ",returns:");
    if (c && (!r || c < r)) {
        *is_call = true;
        return c;
    }
    *is_call = false;
    return r;
}

static int emit(struct ct_emitter *sink, struct ct_event *ev)
{
    return ct_emit(sink, ev);
}

/* A V payload: the message, then calls/returns merged into it when the
 * clock had not ticked.  "undefined" before a merge means no message. */
static int emit_user(struct ct_trace_info *info, struct ct_emitter *sink,
                     struct ct_event *ev, const char *p, const char *e)
{
    bool is_call;
    const char *m = next_merged(p, e, &is_call);
    const char *msg_end = m ? m : e;
    uint64_t lost;
    const char *q = p + 6;
    if (ct_starts_with(p, msg_end, "lost: ") &&
        ct_parse_u64(&q, msg_end, &lost) &&
        msg_end - q == 7 && memcmp(q, " events", 7) == 0) {
        ev->kind = CT_EV_LOST;
        ev->count = lost;
        info->lost_events += lost;
        if (emit(sink, ev))
            return 1;
        ev->count = 0;
    } else if (!(m && msg_end - p == 9 && memcmp(p, "undefined", 9) == 0)) {
        ev->kind = CT_EV_USER;
        ev->text = p;
        ev->text_len = (size_t)(msg_end - p);
        if (emit(sink, ev))
            return 1;
        ev->text = NULL;
        ev->text_len = 0;
    }
    while (m) {
        const char *name = m + (is_call ? 7 : 9);
        bool next_is_call;
        const char *nm = next_merged(name, e, &next_is_call);
        const char *name_end = nm ? nm : e;
        ev->kind = is_call ? CT_EV_CALL : CT_EV_RETURN;
        ev->func = ct_functab_intern_name(info->funcs, name,
                                          (size_t)(name_end - name));
        if (emit(sink, ev))
            return 1;
        ev->func = CT_FUNC_NONE;
        m = nm;
        is_call = next_is_call;
    }
    return 0;
}

static void push_all(const struct ct_input *in, struct ct_trace_info *info,
                     struct ct_emitter *sink, struct olvec *v, bool ns_ticks)
{
    static const enum ct_ev_kind kinds[] = {CT_EV_CALL, CT_EV_RETURN,
                                            CT_EV_OVERHEAD_START,
                                            CT_EV_OVERHEAD_END};
    const char *base = (const char *)in->data;
    for (size_t i = 0; i < v->n; i++) {
        const struct olrec *r = &v->r[i];
        struct ct_event ev = {
            .thread = r->kt >> 3,
            .time = ns_ticks ? r->time : r->time / 1000000,
            .func = CT_FUNC_NONE,
        };
        unsigned k = r->kt & 7;
        if (k == K_V) {
            if (emit_user(info, sink, &ev, base + r->off,
                          base + r->off + r->arg))
                return;
            continue;
        }
        if (ct_emit_plain(sink, kinds[k], ev.thread, ev.time,
                          k == K_C || k == K_R ? r->arg : CT_FUNC_NONE))
            return;
    }
}

static int read_openlaszlo(const struct ct_input *in,
                           struct ct_trace_info *info, struct ct_sink *sink,
                           const struct ct_read_opts *opts)
{
    struct olvec v = {0};
    struct parse_state *ps = ct_xcalloc(1, sizeof *ps);  /* 16 KiB cache */
    bool ok = parse(in, info, opts, &v, ps);
    sort_records(&v);
    info->ns_per_tick = ps->any_fraction ? 1.0 : 1e6;
    snprintf(info->clock, sizeof info->clock, "%s",
             ps->any_fraction ? "milliseconds with decimals (ns ticks)"
                             : "milliseconds");
    if (!info->nthreads)
        ct_trace_thread(info, 0);
    struct ct_emitter *em = ct_xmalloc(sizeof *em);
    ct_emit_init(em, sink);
    push_all(in, info, em, &v, ps->any_fraction);
    ct_emit_flush(em);
    free(em);
    free(v.r);
    free(ps);
    return ok ? CT_EXIT_OK : CT_EXIT_BAD_INPUT;
}

struct probe_ctx {
    unsigned digit_lines, records, headers;
};

static bool probe_line(const char *l, size_t n, void *vctx)
{
    struct probe_ctx *c = vctx;
    const char *e = l + n;
    if (ct_starts_with(l, e, "<xml>") ||
        ct_starts_with(l, e, "Profile version:"))
        c->headers++;
    if (!ct_is_digit(*l))
        return false;
    c->digit_lines++;
    uint64_t t;
    bool frac;
    if (!ct_parse_fixed(&l, e, 6, &t, &frac) || l + 1 >= e || *l != ' ' ||
        !strchr("CRSEV", l[1]))
        return false;
    l += 2;
    while (l < e && ct_is_digit(*l))
        l++;
    if (l < e && *l != ' ')
        return false;
    c->records++;
    return true;
}

static int probe(const struct ct_input *in)
{
    struct probe_ctx c = {0};
    struct ct_probe_tally t;
    ct_probe_lines(in, 200, probe_line, &c, &t);
    if (c.headers && (c.records || c.digit_lines == 0))
        return 80;
    if (c.records && c.records * 10 >= c.digit_lines * 9)
        return c.records == c.digit_lines ? 70 : 40;
    return 0;
}

const struct ct_reader ct_reader_openlaszlo = {
    "openlaszlo", "OpenLaszlo call profiler raw log (<ms> <C|R|S|E|V> name)",
    probe, read_openlaszlo};
