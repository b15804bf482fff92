/*
 * --dump: the trace as OpenLaszlo raw lines, "<ms> <key> <name>", in time
 * order.  docs/dump-format.md is the specification.
 *
 * The calltrace reader already merges its threads by time; other readers
 * only promise order within a thread, so lines wait in a bounded window of
 * DUMP_WINDOW events and leave it oldest first.  While events come in
 * order the window is a FIFO (a sorted array); the first one out of order
 * turns it into a heap, which a sorted array already is.  Disorder wider
 * than the window is printed as it comes and counted in a warning.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/writers/export.h"
#include "analyzer/util.h"
#include "analyzer/model/values.h"

#define DUMP_WINDOW 65536u

struct pending {
    uint64_t time, seq;
    uint32_t thread, func;  /* func for C and R lines                     */
    char key;
    char *text;             /* V lines: owned message; NULL otherwise     */
};

struct frames {
    uint32_t *f;
    size_t n, cap;
};

struct dump {
    struct ct_exporter ex;
    FILE *out;
    struct ct_trace_info *info;
    struct frames *threads;
    size_t nthreads;
    uint64_t *last;         /* per thread: its latest event               */
    bool *ended;            /* per thread: THREAD_END seen                */
    size_t nthreads_seen;
    struct pending *heap;   /* window: FIFO [head, nheap) while sorted,
                               else a heap [0, nheap)                     */
    size_t head, nheap;
    bool sorted;
    uint64_t newest;        /* latest time entered in the window          */
    uint64_t seq;
    bool have_base;
    uint64_t base;
    uint64_t last_time;     /* of the last printed line                   */
    uint64_t late;          /* lines printed after a later one            */
};

static struct frames *frames_of(struct dump *d, uint32_t thread)
{
    ct_grow_zeroed(&d->threads, &d->nthreads, thread, sizeof *d->threads);
    return &d->threads[thread];
}

static void frames_push(struct frames *s, uint32_t func)
{
    ct_grow(&s->f, &s->cap, s->n, sizeof *s->f);
    s->f[s->n++] = func;
}

static bool before(const struct pending *a, const struct pending *b)
{
    return a->time != b->time ? a->time < b->time : a->seq < b->seq;
}

/* Decimal digits of v at the end of buf; returns where they start. */
static char *put_u64(char *end, uint64_t v)
{
    do {
        *--end = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    return end;
}

/* "1503.123456": milliseconds from the trace's first event. */
static size_t format_time(struct dump *d, uint64_t t, char *out)
{
    if (!d->have_base) {
        d->have_base = true;
        d->base = d->info->have_first_time ? d->info->first_time : t;
    }
    char buf[48], *end = buf + sizeof buf, *p;
    uint64_t ticks = t >= d->base ? t - d->base : d->base - t;
    double npt = d->info->ns_per_tick;
    if (npt >= 1e6 && fmod(npt, 1e6) == 0) {
        p = put_u64(end, ticks * (uint64_t)(npt / 1e6));
    } else {
        double ns = nearbyint((double)ticks * npt);
        uint64_t n = ns >= 1.8e19 ? UINT64_MAX : (uint64_t)ns;
        p = end;
        uint64_t frac = n % 1000000;
        for (int i = 0; i < 6; i++, frac /= 10)
            *--p = (char)('0' + frac % 10);
        *--p = '.';
        p = put_u64(p, n / 1000000);
    }
    if (t < d->base)
        *--p = '-';
    memcpy(out, p, (size_t)(end - p));
    return (size_t)(end - p);
}

static void print_line(struct dump *d, const struct pending *p)
{
    if (p->time < d->last_time)
        d->late++;
    else
        d->last_time = p->time;
    char line[96], *q = line;
    q += format_time(d, p->time, q);
    *q++ = ' ';
    *q++ = p->key;
    if (p->thread) {
        char num[24], *e = num + sizeof num, *b = put_u64(e, p->thread + 1ull);
        memcpy(q, b, (size_t)(e - b));
        q += e - b;
    }
    *q++ = ' ';
    fwrite_unlocked(line, 1, (size_t)(q - line), d->out);
    const char *name = p->text;
    if (!name && (p->key == 'C' || p->key == 'R'))
        name = p->func == CT_FUNC_NONE
                   ? "?"
                   : ct_functab_name(d->info->funcs, p->func);
    if (name)
        fputs_unlocked(name, d->out);
    putc_unlocked('\n', d->out);
}

static struct pending heap_pop(struct dump *d)
{
    struct pending *h = d->heap, top = h[0], last = h[--d->nheap];
    size_t i = 0, n = d->nheap;
    for (;;) {
        size_t k = 2 * i + 1;
        if (k >= n)
            break;
        if (k + 1 < n && before(&h[k + 1], &h[k]))
            k++;
        if (!before(&h[k], &last))
            break;
        h[i] = h[k];
        i = k;
    }
    if (n)
        h[i] = last;
    return top;
}

static void emit_oldest(struct dump *d)
{
    struct pending p;
    if (d->sorted)
        p = d->heap[d->head++];
    else
        p = heap_pop(d);
    print_line(d, &p);
    free(p.text);
}

static size_t pending(const struct dump *d)
{
    return d->sorted ? d->nheap - d->head : d->nheap;
}

static void add_line(struct dump *d, uint64_t time, uint32_t thread,
                     char key, uint32_t func, char *text)
{
    if (pending(d) == DUMP_WINDOW)
        emit_oldest(d);
    struct pending it = {time, d->seq++, thread, func, key, text};
    if (d->sorted) {
        if (d->nheap == 2 * DUMP_WINDOW) { /* slide the FIFO to the front */
            memmove(d->heap, d->heap + d->head,
                    (d->nheap - d->head) * sizeof *d->heap);
            d->nheap -= d->head;
            d->head = 0;
        }
        if (time >= d->newest) {
            d->newest = time;
            d->heap[d->nheap++] = it;
            return;
        }
        /* Out of order: the sorted window becomes a heap. */
        memmove(d->heap, d->heap + d->head,
                (d->nheap - d->head) * sizeof *d->heap);
        d->nheap -= d->head;
        d->head = 0;
        d->sorted = false;
    }
    size_t i = d->nheap++;
    while (i > 0 && before(&it, &d->heap[(i - 1) / 2])) {
        d->heap[i] = d->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    d->heap[i] = it;
}

/* A message on one line: control characters become spaces. */
static char *sample_text(struct dump *d, const struct ct_event *ev)
{
    size_t cap = 64, n = 0;
    char *t = ct_xmalloc(cap);
    n = (size_t)snprintf(t, cap, "sample: ");
    for (uint32_t i = 0; i < ev->depth; i++) {
        const char *name = ct_functab_name(d->info->funcs, ev->stack[i]);
        size_t len = strlen(name);
        if (n + len + 2 > cap) {
            cap = 2 * (n + len + 2);
            t = ct_xrealloc(t, cap);
        }
        if (i)
            t[n++] = ';';
        memcpy(t + n, name, len);
        n += len;
    }
    t[n] = '\0';
    return t;
}

/* "V args: 3, \"a\"" or "V retval: 12": what a call was given or gave
 * back (the strings' control bytes are escaped already). */
static char *values_note(const struct ct_trace_info *info,
                         const struct ct_event *ev)
{
    char text[CT_VALUES_TEXT_MAX + 16];
    size_t k = (size_t)snprintf(text, 16, "%s: ",
                                ev->kind == CT_EV_ARGS ? "args" : "retval");
    ct_values_text_of(info, (const uint8_t *)ev->text, ev->text_len, text + k,
                      CT_VALUES_TEXT_MAX);
    return ct_xstrdup(text);
}

/* "V <prefix><name>": a note about a frame. */
static void add_note(struct dump *d, const struct ct_event *ev,
                     const char *prefix, uint32_t func)
{
    const char *name = func == CT_FUNC_NONE
                           ? "?"
                           : ct_functab_name(d->info->funcs, func);
    size_t a = strlen(prefix), b = strlen(name ? name : "?");
    char *text = ct_xmalloc(a + b + 1);
    memcpy(text, prefix, a);
    memcpy(text + a, name ? name : "?", b + 1);
    add_line(d, ev->time, ev->thread, 'V', CT_FUNC_NONE, text);
}

/* The thread's data ends with frames open: they never returned.  Each
 * gets a note and its R line at the thread's last event, innermost
 * first, as the profile and --tree close them. */
static void close_never_returned(struct dump *d, uint32_t thread,
                                 uint64_t time)
{
    struct frames *s = &d->threads[thread];
    struct ct_event at = {.thread = thread, .time = time};
    while (s->n) {
        uint32_t func = s->f[--s->n];
        add_note(d, &at, "never returned: ", func);
        add_line(d, time, thread, 'R', func, NULL);
    }
}

static int dump_event(struct ct_sink *self, const struct ct_event *ev)
{
    struct dump *d = (struct dump *)self;
    struct frames *s = frames_of(d, ev->thread);
    if (ev->thread >= d->nthreads_seen) {
        size_t n = d->nthreads_seen;
        ct_grow_zeroed(&d->last, &n, ev->thread, sizeof *d->last);
        n = d->nthreads_seen;
        ct_grow_zeroed(&d->ended, &n, ev->thread, sizeof *d->ended);
        d->nthreads_seen = n;
    }
    char buf[64];
    switch (ev->kind) {
    case CT_EV_CALL:
        frames_push(s, ev->func);
        add_line(d, ev->time, ev->thread, 'C', ev->func, NULL);
        break;
    case CT_EV_RETURN: {
        uint32_t func = ev->func;
        if (func == CT_FUNC_NONE) {
            if (s->n)
                func = s->f[--s->n];
        } else {
            /* Pop to the named frame, if it is open at all. */
            size_t i = s->n;
            while (i > 0 && s->f[i - 1] != func)
                i--;
            if (i > 0)
                s->n = i - 1;
        }
        add_line(d, ev->time, ev->thread, 'R', func, NULL);
        break;
    }
    case CT_EV_OVERHEAD_START:
        add_line(d, ev->time, ev->thread, 'S', CT_FUNC_NONE, NULL);
        break;
    case CT_EV_OVERHEAD_END:
        add_line(d, ev->time, ev->thread, 'E', CT_FUNC_NONE, NULL);
        break;
    case CT_EV_USER:
        add_line(d, ev->time, ev->thread, 'V', CT_FUNC_NONE,
                 ct_escape_line(ev->text ? ev->text : "", ev->text_len));
        break;
    case CT_EV_ARGS:
    case CT_EV_RETVAL:
        add_line(d, ev->time, ev->thread, 'V', CT_FUNC_NONE,
                 values_note(d->info, ev));
        break;
    case CT_EV_LOST:
        snprintf(buf, sizeof buf, "lost: %" PRIu64 " events", ev->count);
        add_line(d, ev->time, ev->thread, 'V', CT_FUNC_NONE,
                 ct_xstrdup(buf));
        break;
    case CT_EV_SAMPLE:
        add_line(d, ev->time, ev->thread, 'V', CT_FUNC_NONE,
                 sample_text(d, ev));
        break;
    case CT_EV_STACK: {
        /* Frames we hold stay; the others were left without a return
         * (lost events); the new ones were open before this thread's data
         * (a forked child's, a window's start) and are not calls. */
        size_t same = 0;
        while (same < s->n && same < ev->depth && s->f[same] == ev->stack[same])
            same++;
        while (s->n > same)
            add_line(d, ev->time, ev->thread, 'R', s->f[--s->n], NULL);
        for (uint32_t i = (uint32_t)same; i < ev->depth; i++) {
            frames_push(s, ev->stack[i]);
            add_note(d, ev, "already open: ", ev->stack[i]);
        }
        break;
    case CT_EV_OFFCPU_START:
    case CT_EV_OFFCPU_END:
    case CT_EV_CPUTIME:
    case CT_EV_PATH:   /* refused before reading (main.c) */
        /* OpenLaszlo's records have no place for them (dump-format.md) */
        break;
    }
    case CT_EV_THREAD_END:
        d->ended[ev->thread] = true;
        close_never_returned(d, ev->thread, ev->time);
        break;
    }
    if (ev->thread < d->nthreads_seen && ev->time > d->last[ev->thread])
        d->last[ev->thread] = ev->time;
    return 0;
}

static int dump_finish(struct ct_exporter *self, struct ct_profile *profile)
{
    (void)profile;
    struct dump *d = (struct dump *)self;
    /* The data ends: what is still open never returned, unless the
     * thread went on past the --time-range window (its frames returned
     * later, outside it: they stay open, without a line). */
    for (size_t i = 0; i < d->nthreads && i < d->nthreads_seen; i++)
        if (!d->ended[i] && !ct_range_past(d->ex.range, (uint32_t)i))
            close_never_returned(d, (uint32_t)i, d->last[i]);
    while (pending(d))
        emit_oldest(d);
    if (d->late)
        ct_warn("--dump: %" PRIu64 " line(s) out of time order: the input's "
                "threads were further apart than %u events",
                d->late, DUMP_WINDOW);
    return 0;
}

static void dump_free(struct ct_exporter *self)
{
    struct dump *d = (struct dump *)self;
    for (size_t i = d->sorted ? d->head : 0; i < d->nheap; i++)
        free(d->heap[i].text);
    for (size_t i = 0; i < d->nthreads; i++)
        free(d->threads[i].f);
    free(d->threads);
    free(d->last);
    free(d->ended);
    free(d->heap);
    free(d);
}

struct ct_exporter *ct_dump_new(FILE *out, struct ct_trace_info *info)
{
    struct dump *d = ct_xcalloc(1, sizeof *d);
    d->ex.sink.event = dump_event;
    d->ex.finish = dump_finish;
    d->ex.free = dump_free;
    d->out = out;
    d->info = info;
    /* Twice the window, so that the FIFO slides back once per window. */
    d->heap = ct_xmalloc(2 * DUMP_WINDOW * sizeof *d->heap);
    d->sorted = true;
    return &d->ex;
}
