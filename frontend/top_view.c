/*
 * The table of calltrace top, the same in the terminal and in plain text:
 * a few lines about the trace and the window, then the hottest functions
 * of the window (the last interval, or everything since the start).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/top.h"

struct row {
    uint32_t id;
    uint64_t calls, self, total;
};

static int by_self(const void *a, const void *b)
{
    const struct row *x = a, *y = b;
    if (x->self != y->self)
        return x->self > y->self ? -1 : 1;
    return x->total > y->total ? -1 : x->total < y->total;
}

static int by_total(const void *a, const void *b)
{
    const struct row *x = a, *y = b;
    if (x->total != y->total)
        return x->total > y->total ? -1 : 1;
    return x->self > y->self ? -1 : x->self < y->self;
}

static uint64_t minus(uint64_t a, uint64_t b)
{
    return a > b ? a - b : 0;
}

/* A duration for a column of 9: "812.3ms", "12.35s". */
static void duration(char *buf, size_t cap, double ns)
{
    if (ns >= 1e9)
        snprintf(buf, cap, "%.2fs", ns / 1e9);
    else if (ns >= 1e6)
        snprintf(buf, cap, "%.1fms", ns / 1e6);
    else if (ns >= 1e3)
        snprintf(buf, cap, "%.1fus", ns / 1e3);
    else
        snprintf(buf, cap, "%.0fns", ns);
}

static const char *writer_text(const struct top *t)
{
    const struct ct_follow_status *st = ct_follow_status(t->follow);
    if (!st->header_read)
        return "waiting for the trace header";
    switch (st->writer) {
    case CT_WRITER_DONE: return "trace closed";
    case CT_WRITER_RUNNING: return "running";
    case CT_WRITER_GONE: return "gone, trace not closed";
    case CT_WRITER_UNKNOWN: return "not on this machine";
    }
    return "";
}

/* One line, cut at width, then "clear to the end of line" on a tty. */
static void line(FILE *out, unsigned width, bool tty, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#include <stdarg.h>
static void line(FILE *out, unsigned width, bool tty, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (width && strlen(buf) > width)
        buf[width] = '\0';
    fputs(buf, out);
    fputs(tty ? "\033[K\r\n" : "\n", out);
}

void top_render(struct top *t, FILE *out, unsigned width, unsigned rows,
                bool tty)
{
    const struct ct_follow_status *st = ct_follow_status(t->follow);
    double tick = t->info.ns_per_tick > 0 ? t->info.ns_per_tick : 1.0;
    uint64_t from = t->since_start ? t->first : t->prev.now;
    if (!t->since_start && !t->prev.now)
        from = t->first;
    double span_ns = (double)minus(t->cur.now, from) * tick;
    double span_s = span_ns / 1e9;

    struct row *r = calloc(t->cur.n ? t->cur.n : 1, sizeof *r);
    size_t nr = 0;
    uint64_t sum_self = 0, sum_calls = 0;
    for (uint32_t i = 0; i < t->cur.n; i++) {
        const struct ct_live_fstats *c = &t->cur.f[i];
        struct ct_live_fstats zero = {0};
        const struct ct_live_fstats *p =
            t->since_start || i >= t->prev.n ? &zero : &t->prev.f[i];
        struct row x = {i, minus(c->calls, p->calls),
                        minus(c->self_ticks, p->self_ticks),
                        minus(c->total_ticks, p->total_ticks)};
        sum_self += x.self;
        sum_calls += x.calls;
        if (x.calls || x.self || x.total)
            r[nr++] = x;
    }
    if (r)
        qsort(r, nr, sizeof *r, t->by_total ? by_total : by_self);

    if (tty)
        fputs("\033[H", out);
    line(out, width, tty, "calltrace top  %s  pid %" PRIu64 " (%s)  %s",
         t->path, t->info.pid, writer_text(t), t->info.command);
    char span[32];
    duration(span, sizeof span, span_ns);
    line(out, width, tty,
         "window %s%s: %.0f calls/s   threads %" PRIu32 " (%" PRIu32
         " ended)   lost %" PRIu64 "   read %.1f MiB",
         t->since_start || !t->prev.now ? "since start, " : "last ", span,
         span_s > 0 ? (double)sum_calls / span_s : 0.0, st->threads,
         st->threads_ended, st->lost, (double)st->bytes / 1048576.0);
    line(out, width, tty, "sorted by %s time %s%s%s",
         t->by_total ? "total" : "self",
         t->since_start ? "since start" : "over the last interval",
         st->samples_skipped ? "; stack samples not shown" : "",
         st->damaged ? "; reading stopped at damage" : "");
    line(out, width, tty, "%s", "");
    line(out, width, tty, "%6s %9s %6s %9s %11s %10s  %s", "SELF%", "SELF",
         "TOTAL%", "TOTAL", "CALLS", "CALLS/s", "FUNCTION");
    for (size_t i = 0; i < nr && i < rows; i++) {
        char self[32], total[32];
        duration(self, sizeof self, (double)r[i].self * tick);
        duration(total, sizeof total, (double)r[i].total * tick);
        double base = sum_self ? (double)sum_self : 1.0;
        line(out, width, tty,
             "%5.1f%% %9s %5.1f%% %9s %11" PRIu64 " %10.0f  %s",
             100.0 * (double)r[i].self / base, self,
             100.0 * (double)r[i].total / base, total, r[i].calls,
             span_s > 0 ? (double)r[i].calls / span_s : 0.0,
             ct_functab_name(t->info.funcs, r[i].id));
    }
    if (tty) {
        fputs("\033[J", out);
        unsigned cols, lines;
        top_tty_size(&cols, &lines);
        /* The bottom line, with no line feed: the screen must not scroll */
        fprintf(out, "\033[%u;1H", lines);
        char keys[160];
        snprintf(keys, sizeof keys,
                 "keys: q quit   t sort by %s time   a show %s",
                 t->by_total ? "self" : "total",
                 t->since_start ? "the last interval" : "since start");
        if (width && strlen(keys) > width)
            keys[width] = '\0';
        fputs(keys, out);
        fputs("\033[K", out);
    }
    if (t->end_note[0])
        line(out, width, tty, "%s", t->end_note);
    fflush(out);
    free(r);
}
