/*
 * --info: see info.h.  The trace is read through a sink that only counts,
 * per thread, so that every figure is the one the other views are built
 * from; the file header adds what only it holds (state, settings, mode).
 * One "key: value" a line, objects and threads one a line below theirs.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "analyzer/report/info.h"
#include "analyzer/model/symbolize.h"
#include "analyzer/util.h"

struct tcount {
    uint64_t events, calls, samples, user, lost;
    uint64_t first, last;
    bool any, ended;
};

struct ct_info_counter {
    struct ct_sink sink;
    struct tcount *t;
    size_t nt;
    uint64_t events, calls, returns, samples, user, lost, other;
    uint64_t path_calls;    /* a profile's: summed per path, not records */
    uint64_t first, last;
    bool any;
};

static int count_event(struct ct_sink *self, const struct ct_event *ev)
{
    struct ct_info_counter *c = (struct ct_info_counter *)self;
    ct_grow_zeroed(&c->t, &c->nt, ev->thread, sizeof *c->t);
    struct tcount *t = &c->t[ev->thread];
    if (!t->any || ev->time < t->first)
        t->first = ev->time;
    if (!t->any || ev->time > t->last)
        t->last = ev->time;
    if (!c->any || ev->time < c->first)
        c->first = ev->time;
    if (!c->any || ev->time > c->last)
        c->last = ev->time;
    t->any = c->any = true;
    if (ev->kind == CT_EV_PATH) {  /* a profile's path: its calls */
        t->calls += ev->count;
        c->path_calls += ev->count;
        t->events += ct_event_weight(ev);
        c->events += ct_event_weight(ev);
        c->calls += ev->count;
        c->returns += ev->count;
    }
    if (!ct_event_counted(ev->kind))
        return 0;
    t->events++;
    c->events++;
    switch (ev->kind) {
    case CT_EV_CALL: t->calls++, c->calls++; break;
    case CT_EV_RETURN: c->returns++; break;
    case CT_EV_SAMPLE: t->samples += ev->count, c->samples++; break;
    case CT_EV_USER: t->user++, c->user++; break;
    case CT_EV_LOST:
        t->lost = ct_sat_add(t->lost, ev->count);
        c->lost = ct_sat_add(c->lost, ev->count);
        break;
    case CT_EV_THREAD_END: t->ended = true; c->other++; break;
    default: c->other++; break;
    }
    return 0;
}

static void put_time(FILE *out, const char *key, int64_t epoch_ns)
{
    time_t secs = (time_t)(epoch_ns / 1000000000);
    struct tm tm;
    char buf[64];
    if (!gmtime_r(&secs, &tm) ||
        !strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm))
        return;
    fprintf(out, "%-14s %s.%06" PRId64 " UTC\n", key, buf,
            epoch_ns % 1000000000 / 1000);
}

/* s with control characters escaped, so that a name from the trace
 * cannot break the lines. */
static void put_esc(FILE *out, const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            fprintf(out, "\\x%02x", (unsigned char)*s);
        else
            fputc(*s, out);
}

/* "key:" padded, then the value, escaped. */
static void put_text(FILE *out, const char *key, const char *s)
{
    fprintf(out, "%-14s ", key);
    put_esc(out, s);
    fputc('\n', out);
}

static const char *mode_of(const struct ct_file_header *h)
{
    bool calls = h->flags & CT_FILE_CALLS, samples = h->flags & CT_FILE_SAMPLED;
    if (h->flags & CT_FILE_PROFILE)
        return "profile (each call path's counts and times, not every call)";
    return calls && samples ? "both (every call, and stack samples)"
           : samples        ? "sample (stack samples, no calls)"
                            : "trace (every call and return)";
}

/* What only a calltrace trace's file header says. */
static void put_header(FILE *out, const struct ct_file_header *hp,
                       const char *state)
{
    const struct ct_file_header h = *hp;
    fprintf(out, "%-14s calltrace trace, format version %" PRIu32 "%s%s%s\n",
            "format:", h.version,
            h.flags & CT_FILE_PATCHED ? ", calls at patched entries" : "",
            h.flags & CT_FILE_FLIGHT ? ", flight recorder" : "",
            h.flags & CT_FILE_STREAM ? ", received as a stream" : "");
    put_text(out, "state:", state);
    fprintf(out, "%-14s %s", "mode:", mode_of(&h));
    if (h.sample_interval_ns)
        fprintf(out, ", a sample every %.3g ms", h.sample_interval_ns / 1e6);
    fputc('\n', out);
    /* Settings: one line per CALLTRACE_* variable the tracer was given. */
    size_t n = strnlen(h.settings, sizeof h.settings);
    if (n == sizeof h.settings)
        fprintf(out, "%-14s damaged (not terminated)\n", "settings:");
    else if (!n)
        fprintf(out, "%-14s none recorded (all defaults, or a tracer before "
                "settings were kept)\n", "settings:");
    for (const char *p = h.settings; n < sizeof h.settings && *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        char line[CT_SETTINGS_MAX];
        memcpy(line, p, len);
        line[len] = 0;
        put_text(out, "setting:", line);
        p += len + (nl != NULL);
    }
    const char *oncpu = h.oncpu == CT_ONCPU_SWITCH  ? "context switches "
                                                      "(perf_event)"
                        : h.oncpu == CT_ONCPU_CLOCK ? "per-thread CPU clock"
                                                    : "not recorded";
    fprintf(out, "%-14s %s", "on-CPU time:", oncpu);
    if (h.oncpu_errno)
        fprintf(out, " (perf_event_open refused: %s)",
                strerror((int)h.oncpu_errno));
    fputc('\n', out);
    fprintf(out, "%-14s %.1f ns per call (measured at start)\n",
            "tracer cost:", (double)h.bias_ps / 1000.0);
    if (h.bias_lib_ps)
        fprintf(out, "%-14s %.1f ns per library call (measured at start)\n",
                "", (double)h.bias_lib_ps / 1000.0);
    fprintf(out, "%-14s %" PRIu32 " bytes\n", "block size:", h.block_size);
}

static void put_objects(FILE *out, const struct ct_trace_info *info)
{
    if (info->pc_line != ct_symbolizer_line || !info->pc_line_ctx) {
        fprintf(out, "%-14s none named by this format\n", "objects:");
        return;
    }
    struct ct_symbolizer *s = info->pc_line_ctx;
    size_t n = ct_symbolizer_nobjects(s);
    fprintf(out, "%-14s %zu\n", "objects:", n);
    for (size_t i = 0; i < n; i++) {
        struct ct_object_info o;
        ct_symbolizer_object(s, i, &o);
        fputs("  object ", out);
        put_esc(out, o.path);
        fputs("\n    build-id ", out);
        for (size_t k = 0; k < o.build_id_len; k++)
            fprintf(out, "%02x", o.build_id[k]);
        if (!o.build_id_len)
            fputs("none recorded", out);
        if (!o.opened)
            fputs("; file not found or unreadable: no names\n", out);
        else
            fprintf(out, "%s; symbols: %s; lines: %s\n",
                    o.build_id_differs ? " (the file now differs)" : "",
                    o.symbols, o.lines ? "yes" : "no");
    }
}

static void put_threads(FILE *out, const struct ct_trace_info *info,
                        const struct ct_info_counter *c)
{
    fprintf(out, "%-14s %" PRIu32 "\n", "threads:", info->nthreads);
    for (uint32_t i = 0; i < info->nthreads; i++) {
        const struct ct_thread_info *ti = &info->threads[i];
        struct tcount z = {0};
        const struct tcount *t = i < c->nt ? &c->t[i] : &z;
        char label[64];
        ct_trace_thread_label(info, i, label, sizeof label);
        fprintf(out, "  thread %" PRIu64, ti->tid);
        if (ti->context)
            fprintf(out, ":%" PRIu64, ti->context);
        fputs(" name=", out);
        put_esc(out, ti->name[0] ? ti->name : "-");
        fprintf(out, " events=%" PRIu64 " calls=%" PRIu64
                " samples=%" PRIu64 " lost=%" PRIu64 " duration=%.6fs%s\n",
                t->events, t->calls,
                t->samples, t->lost,
                t->any ? ct_ticks_to_ns(info, t->last - t->first) / 1e9 : 0.0,
                t->ended || ti->tid == info->pid || t->events == t->samples
                    ? "" /* the main thread, or samples only (kernel) */
                    : " (no end recorded)");
    }
}

static void put_lost(FILE *out, const struct ct_trace_info *info,
                     const struct ct_info_counter *c)
{
    uint64_t lost = c->lost > info->lost_events ? c->lost : info->lost_events;
    fprintf(out, "%-14s %" PRIu64 "\n", "lost events:", lost);
    if (c->lost)
        fprintf(out, "  %" PRIu64 " told where they were lost (the tracer "
                "could not record them; per thread above)\n", c->lost);
    if (info->lost_events > c->lost)
        fprintf(out, "  %" PRIu64 " counted by the process only (threads that "
                "could not record, or the trace's end)\n",
                info->lost_events - c->lost);
    if (info->switches_lost)
        fprintf(out, "  %" PRIu64 " context-switch records dropped by the "
                "kernel (ring full)\n", info->switches_lost);
}

/* What the reader noted of the input (flight recorder, writer state, a
 * text log's header lines), and where reading stopped. */
static void put_notes(FILE *out, const struct ct_trace_info *info)
{
    for (size_t i = 0; i < info->nmeta; i++) {
        char line[512];
        snprintf(line, sizeof line, "%s: %s", info->meta[i].key,
                 info->meta[i].value);
        put_text(out, "note:", line);
    }
    if (info->stopped[0])
        put_text(out, "damaged:", info->stopped);
}

struct ct_info_counter *ct_info_counter_new(void)
{
    struct ct_info_counter *c = ct_xcalloc(1, sizeof *c);
    c->sink.event = count_event;
    return c;
}

struct ct_sink *ct_info_counter_sink(struct ct_info_counter *c)
{
    return &c->sink;
}

void ct_info_counter_free(struct ct_info_counter *c)
{
    if (c)
        free(c->t);
    free(c);
}

void ct_info_print(FILE *out, const char *path, size_t size,
                   const struct ct_trace_info *info,
                   const struct ct_info_counter *counter,
                   const struct ct_file_header *h, const char *state)
{
    const struct ct_info_counter c = *counter;
    put_text(out, "file:", path);
    /* A trace is a sparse file: pages reserved and never written take
     * no room on disk. */
    struct stat st;
    fprintf(out, "%-14s %zu bytes", "size:", size);
    if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
        fprintf(out, ", %llu on disk",
                (unsigned long long)st.st_blocks * 512ull);
    fputc('\n', out);
    if (h)
        put_header(out, h, state);
    else
        fprintf(out, "%-14s %s\n", "format:", info->format);
    put_text(out, "program:", info->program[0] ? info->program : "unknown");
    put_text(out, "command line:", info->command[0] ? info->command
                                                     : "unknown");
    if (info->pid)
        fprintf(out, "%-14s %" PRIu64 " (parent %" PRIu64 ")\n", "pid:",
                info->pid, info->ppid);
    else
        fprintf(out, "%-14s unknown\n", "pid:");
    /* one trace, one process: a recording's folder has one trace each,
     * which `calltrace info FOLDER` describes in turn */
    fprintf(out, "%-14s 1\n", "processes:");
    if (info->start_epoch_ns) {
        double off = c.any ? ((double)c.first - (double)info->start_ticks) *
                                 info->ns_per_tick
                           : 0;
        put_time(out, "start:", info->start_epoch_ns + (int64_t)off);
    }
    fprintf(out, "%-14s %.6fs (first event to last)\n", "duration:",
            c.any ? ct_ticks_to_ns(info, c.last - c.first) / 1e9 : 0.0);
    fprintf(out, "%-14s %s, %.6g ns per tick\n", "clock:", info->clock,
            info->ns_per_tick);
    put_threads(out, info, &c);
    fprintf(out, "%-14s %" PRIu64 " (calls %" PRIu64 ", returns %" PRIu64
            ", samples %" PRIu64 ", user events %" PRIu64 ", lost records "
            "and others %" PRIu64 ")\n", "events:", c.events, c.calls,
            c.returns, c.samples, c.user,
            c.events - c.calls - c.returns - c.samples - c.user);
    if (info->profile_mode)
        fprintf(out, "%-14s %" PRIu64 " (a profile: each call path's count, "
                "not records)\n", "calls:", c.path_calls);
    put_lost(out, info, &c);
    put_notes(out, info);
    put_objects(out, info);
}
