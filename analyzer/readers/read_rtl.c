/*
 * OpenOffice / LibreOffice RTL_LOGFILE: three header lines (wall-clock time
 * of the log's opening, the timer value it corresponds to, the process id),
 * then "%06u %u " records (milliseconds, thread id) followed by
 * "{ scope", "} scope" or "| scope : message".
 *
 * Scopes are calls, paired per thread by name (returns carry their function).
 * A message starting with "{" or "}" opens or closes a logical sub-scope,
 * read as a call named by the rest of the message; other messages are user
 * events.  The millisecond counter is 32-bit: a drop by more than 2^31 is a
 * wrap (2^32 is added from there on); any other step backwards is clamped to
 * the previous time and counted.
 */
#include <stdlib.h>
#include <string.h>

#include "analyzer/readers/reader.h"
#include "analyzer/readers/textscan.h"
#include "analyzer/util.h"

#define WRAP (UINT64_C(1) << 32)

struct rtl {
    uint64_t epoch;         /* added to the raw counter (wraps)            */
    uint64_t last;          /* latest absolute time                        */
    bool any;
    uint64_t clamped, wraps;
    bool have_opening, have_corresponding, closed;
    uint64_t opening_ns, corresponding_ms;
    uint64_t cached_tid;
    uint32_t cached_thread;
    bool have_cache;
};

static bool header(struct rtl *R, struct ct_trace_info *info, const char *l,
                   const char *e)
{
    bool frac;
    uint64_t v;
    const char *p;
    if (ct_starts_with(l, e, "opening log file ")) {
        p = l + 17;
        if (!ct_parse_fixed(&p, e, 9, &v, &frac) ||
            !ct_starts_with(p, e, " seconds past January 1st 1970") ||
            v > INT64_MAX)
            return false;
        R->opening_ns = v;
        R->have_opening = true;
        return true;
    }
    if (ct_starts_with(l, e, "corresponding to ")) {
        p = l + 17;
        if (!ct_parse_u64(&p, e, &v) ||
            !ct_starts_with(p, e, " ms after timer start"))
            return false;
        R->corresponding_ms = v;
        R->have_corresponding = true;
        return true;
    }
    if (ct_starts_with(l, e, "Process id is ")) {
        return ct_whole_u64(l + 14, e, &info->pid);
    }
    if (ct_starts_with(l, e, "closing log file at ")) {
        R->closed = true;
        return ct_whole_u64(l + 20, e, &v);
    }
    return false;
}

/* A record of another thread written into the middle of this line:
 * " 123456 7 { " after the line's own start. */
static bool embedded_record(const char *p, const char *e)
{
    for (const char *q = p + 1; q + 1 < e; q++) {
        if ((*q != '{' && *q != '}' && *q != '|') || q[-1] != ' ' ||
            q[1] != ' ')
            continue;
        const char *d = q - 2;
        if (d < p || !ct_is_digit(*d))
            continue;
        while (d > p && ct_is_digit(d[-1]))
            d--;
        if (d - 1 <= p || d[-1] != ' ')
            continue;
        const char *t = d - 1;
        int digits = 0;
        while (t > p && ct_is_digit(t[-1]))
            t--, digits++;
        if (digits >= 6)
            return true;
    }
    return false;
}

static uint64_t absolute(struct rtl *R, uint64_t raw)
{
    uint64_t t = R->epoch + raw;
    if (R->any && t < R->last) {
        if (R->last - t > WRAP / 2) {
            R->epoch += WRAP;
            R->wraps++;
            t += WRAP;
        } else {
            R->clamped++;
            t = R->last;
        }
    }
    if (t < R->last)
        t = R->last;  /* a wrap that still lands earlier: clamp too */
    R->last = t;
    R->any = true;
    return t;
}

static uint32_t thread_of(struct rtl *R, struct ct_trace_info *info,
                          uint64_t tid)
{
    if (!R->have_cache || R->cached_tid != tid) {
        R->cached_thread = ct_trace_thread(info, tid);
        R->cached_tid = tid;
        R->have_cache = true;
    }
    return R->cached_thread;
}

static void add_notes(struct rtl *R, struct ct_trace_info *info)
{
    char v[96];
    if (R->have_opening) {
        info->start_ticks = R->corresponding_ms;
        info->start_epoch_ns = (int64_t)R->opening_ns;
    }
    if (!R->closed && R->any)
        ct_trace_add_meta(info, "log file", "not closed (no 'closing log "
                          "file' trailer: the process may have crashed)");
    if (R->wraps) {
        snprintf(v, sizeof v, "%llu (2^32 ms added each time)",
                 (unsigned long long)R->wraps);
        ct_trace_add_meta(info, "timer wraps", v);
    }
    if (R->clamped) {
        snprintf(v, sizeof v, "%llu record(s) clamped to the time before",
                 (unsigned long long)R->clamped);
        ct_trace_add_meta(info, "clock steps backwards", v);
    }
}

static const char *const expected_record =
    "expected '<ms> <thread> { scope', '} scope' or '| scope : message'";

static int read_rtl(const struct ct_input *in, struct ct_trace_info *info,
                    struct ct_sink *sink, const struct ct_read_opts *opts)
{
    struct rtl R = {0};
    struct ct_scan s;
    ct_scan_init(&s, in);
    ct_scan_check(&s, info, opts);
    info->ns_per_tick = 1e6;
    snprintf(info->clock, sizeof info->clock, "milliseconds (32-bit timer)");
    const char *l;
    size_t n;
    int status = CT_EXIT_OK;
    while (ct_scan_line(&s, &l, &n)) {
        const char *e = l + n, *p = l;
        if (n == 0)
            continue;
        uint64_t raw, tid;
        if (!ct_is_digit(*l)) {
            if (header(&R, info, l, e))
                continue;
        } else if (ct_parse_u64(&p, e, &raw) && raw < WRAP && p < e &&
                   *p++ == ' ' && ct_parse_u64(&p, e, &tid) && p + 1 < e &&
                   *p == ' ' && (p[1] == '{' || p[1] == '}' || p[1] == '|') &&
                   (p + 2 == e || p[2] == ' ') && !embedded_record(p + 1, e)) {
            char key = p[1];
            const char *rest = p + 2 < e ? p + 3 : e;
            struct ct_event ev = {.thread = thread_of(&R, info, tid),
                                  .func = CT_FUNC_NONE};
            if (key == '|') {
                const char *sep = ct_starts_with(rest, e, ": ") ||
                                  (e - rest == 1 && *rest == ':')
                                      ? rest - 1
                                      : ct_find_str(rest, e, " : ");
                if (!sep && e - rest >= 2 && e[-1] == ':' && e[-2] == ' ')
                    sep = e - 2;
                if (!sep)
                    goto bad;
                const char *msg = sep + 3 < e ? sep + 3 : e;
                if (msg < e && (*msg == '{' || *msg == '}')) {
                    key = *msg;
                    rest = msg + 1;
                    while (rest < e && *rest == ' ')
                        rest++;
                } else {
                    ev.kind = CT_EV_USER;
                    ev.text = msg < e ? msg : rest;
                    ev.text_len = (size_t)(e - ev.text);
                    if (msg >= e)  /* no message: the scope says what */
                        ev.text_len = (size_t)(sep > rest ? sep - rest : 0);
                }
            }
            if (key != '|') {
                ev.kind = key == '{' ? CT_EV_CALL : CT_EV_RETURN;
                ev.func = ct_functab_intern_name(info->funcs, rest,
                                                 (size_t)(e - rest));
            }
            ev.time = absolute(&R, raw);
            if (sink->event(sink, &ev))
                break;
            continue;
        }
    bad:
        if (ct_scan_bad(&s, info, opts, "%s", expected_record)) {
            status = CT_EXIT_BAD_INPUT;
            break;
        }
    }
    if (s.failed)
        status = CT_EXIT_BAD_INPUT;
    add_notes(&R, info);
    return status;
}

static bool rtl_line(const char *l, size_t n, void *ctx)
{
    (void)ctx;
    const char *e = l + n;
    uint64_t v;
    if (ct_starts_with(l, e, "opening log file ") ||
        ct_starts_with(l, e, "corresponding to ") ||
        ct_starts_with(l, e, "Process id is "))
        return true;
    if (!ct_parse_u64(&l, e, &v) || l >= e || *l++ != ' ' ||
        !ct_parse_u64(&l, e, &v))
        return false;
    return l + 1 < e && *l == ' ' &&
           (l[1] == '{' || l[1] == '}' || l[1] == '|');
}

static int probe(const struct ct_input *in)
{
    const char *d = (const char *)in->data;
    bool opening = ct_starts_with(d, d + in->size, "opening log file ");
    struct ct_probe_tally t;
    ct_probe_lines(in, 64, rtl_line, NULL, &t);
    if (opening)
        return 90;
    if (t.lines && t.matched == t.lines)
        return 50;
    return 0;
}

const struct ct_reader ct_reader_rtl = {
    "rtl", "OpenOffice/LibreOffice RTL_LOGFILE profiling log", probe,
    read_rtl};
