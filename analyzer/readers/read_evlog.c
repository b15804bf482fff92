/*
 * EFL eina_evlog binary log: blocks of a 12-byte header (magic 0x0ffee211,
 * size, overflow) and 8-aligned items (f64 time, f64 source time, u64
 * thread, u64 object, u16 event offset, u16 detail offset, u16 item size,
 * padding, then the NUL-terminated event name and optional detail).
 *
 * "+name"/"-name" are calls and returns on the item's thread; "!name" a user
 * event; ">name"/"<name" a process-wide state, which is neither per thread
 * nor nested: each state name gets a synthetic thread ("state NAME") on
 * which it is a call, so overlapping states never mis-pair.  "*name"
 * metadata (CPUFREQ, CPUUSED) is summarised per key as last and maximum
 * value.  A block's overflow count is events the writer lost before it
 * (CT_EV_LOST on the thread of the block's first item).
 *
 * Writers on big-endian machines write every field big-endian; their magic
 * reads reversed.  Time ticks are nanoseconds; an item earlier than the one
 * before it on the same thread is clamped (and counted).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/readers/reader.h"
#include "analyzer/readers/textscan.h"
#include "analyzer/util.h"

#define EV_HEADER 12u
#define EV_ITEM 40u
#define EV_MAX_META 256

struct meta_agg {
    char key[64];
    double last, max;
    unsigned readings;
};

struct evlog {
    const uint8_t *d;
    size_t size;
    bool be;
    uint64_t *last_time;        /* by thread index */
    size_t last_cap;
    uint32_t *state_thread;     /* func -> thread + 1 */
    size_t state_cap;
    struct meta_agg *meta;
    size_t nmeta, meta_cap;
    uint64_t clamped, blocks, be_blocks;
    uint64_t cached_tid;
    uint32_t cached_thread;
    bool have_cache;
    char text[512];
};

/* An n-byte unsigned integer at o, in the writer's byte order. */
static uint64_t rd(const struct evlog *E, size_t o, int n)
{
    const uint8_t *p = E->d + o;
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v = v << 8 | p[E->be ? i : n - 1 - i];
    return v;
}

static uint16_t rd16(const struct evlog *E, size_t o)
{
    return (uint16_t)rd(E, o, 2);
}

static uint32_t rd32(const struct evlog *E, size_t o)
{
    return (uint32_t)rd(E, o, 4);
}

static uint64_t rd64(const struct evlog *E, size_t o)
{
    return rd(E, o, 8);
}

static double rdf64(const struct evlog *E, size_t o)
{
    uint64_t bits = rd64(E, o);
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

static uint32_t thread_of(struct evlog *E, struct ct_trace_info *info,
                          uint64_t tid)
{
    if (!E->have_cache || E->cached_tid != tid) {
        E->cached_thread = ct_trace_thread(info, tid);
        E->cached_tid = tid;
        E->have_cache = true;
    }
    return E->cached_thread;
}

static uint32_t state_thread(struct evlog *E, struct ct_trace_info *info,
                             uint32_t func)
{
    if (func >= E->state_cap) {
        size_t old = E->state_cap;
        ct_grow(&E->state_thread, &E->state_cap, func,
                sizeof *E->state_thread);
        memset(E->state_thread + old, 0,
               (E->state_cap - old) * sizeof *E->state_thread);
    }
    if (!E->state_thread[func]) {
        /* synthetic ids from the top: kernel tids and pthread_t values
         * never get there */
        uint32_t t = ct_trace_thread(info, UINT64_MAX - func);
        snprintf(info->threads[t].name, sizeof info->threads[t].name,
                 "state %.25s", ct_functab_name(info->funcs, func));
        info->threads[t].synthetic = true;
        E->state_thread[func] = t + 1;
    }
    return E->state_thread[func] - 1;
}

static void add_metric(struct evlog *E, const char *key, size_t klen,
                       const char *val)
{
    char *end;
    double v = strtod(val, &end);
    if (end == val || !isfinite(v))
        return;
    size_t i;
    for (i = 0; i < E->nmeta; i++)
        if (strlen(E->meta[i].key) == klen &&
            memcmp(E->meta[i].key, key, klen) == 0)
            break;
    if (i == E->nmeta) {
        if (E->nmeta == EV_MAX_META || klen >= sizeof E->meta[0].key)
            return;
        ct_grow(&E->meta, &E->meta_cap, E->nmeta, sizeof *E->meta);
        memset(&E->meta[i], 0, sizeof E->meta[i]);
        memcpy(E->meta[i].key, key, klen);
        E->meta[i].max = v;
        E->nmeta++;
    }
    struct meta_agg *m = &E->meta[i];
    m->last = v;
    if (v > m->max)
        m->max = v;
    m->readings++;
}

static void publish_meta(struct evlog *E, struct ct_trace_info *info)
{
    for (size_t i = 0; i < E->nmeta; i++) {
        const struct meta_agg *m = &E->meta[i];
        const char *unit = strncmp(m->key, "CPUFREQ", 7) == 0   ? " MHz"
                           : strncmp(m->key, "CPUUSED", 7) == 0 ? "%"
                                                                : "";
        char v[160];
        snprintf(v, sizeof v, "last %g%s, max %g%s (%u reading%s)", m->last,
                 unit, m->max, unit, m->readings, m->readings == 1 ? "" : "s");
        ct_trace_add_meta(info, m->key, v);
    }
    char v[96];
    if (E->clamped) {
        snprintf(v, sizeof v, "%llu item(s) earlier than the one before on "
                 "their thread, clamped", (unsigned long long)E->clamped);
        ct_trace_add_meta(info, "clock steps backwards", v);
    }
    if (E->be_blocks) {
        snprintf(v, sizeof v, "%llu of %llu block(s)",
                 (unsigned long long)E->be_blocks,
                 (unsigned long long)E->blocks);
        ct_trace_add_meta(info, "big-endian", v);
    }
}

/* Checks the item at o (inside [o, end)); returns its size or 0 with *why
 * set.  *name and *detail point into the data. */
static size_t check_item(const struct evlog *E, size_t o, size_t end,
                         const char **name, const char **detail,
                         const char **why)
{
    uint16_t ev_off = rd16(E, o + 32), det_off = rd16(E, o + 34);
    uint16_t next = rd16(E, o + 36);
    if (next < EV_ITEM + 8 || next % 8) {
        *why = "item size (event_next) is not a multiple of 8 above 40";
        return 0;
    }
    if (next > end - o) {
        *why = "item runs past the end of its block";
        return 0;
    }
    if (ev_off < EV_ITEM || ev_off >= next ||
        (det_off && (det_off <= ev_off || det_off >= next))) {
        *why = "event or detail offset outside the item";
        return 0;
    }
    const char *base = (const char *)E->d + o;
    const char *nm = base + ev_off;
    size_t name_room = (size_t)((det_off ? det_off : next) - ev_off);
    if (!memchr(nm, 0, name_room) ||
        (det_off && !memchr(base + det_off, 0, (size_t)(next - det_off)))) {
        *why = "event name or detail not NUL-terminated inside the item";
        return 0;
    }
    double tim = rdf64(E, o);
    if (!(tim >= 0 && tim < 1.8e10)) {
        *why = "time is not a number of seconds";
        return 0;
    }
    *name = nm;
    *detail = det_off ? base + det_off : NULL;
    return next;
}

static int item(struct evlog *E, struct ct_trace_info *info,
                struct ct_sink *sink, size_t o, const char *name,
                const char *detail, uint64_t *lost)
{
    uint64_t t = (uint64_t)llround(rdf64(E, o) * 1e9);
    uint64_t tid = rd64(E, o + 16);
    size_t len = strlen(name);
    struct ct_event ev = {.func = CT_FUNC_NONE};
    char kind = len ? name[0] : 0;
    if (kind == '*') {
        if (detail)
            add_metric(E, name + 1, len - 1, detail);
        return 0;
    }
    uint32_t thread;
    if (kind == '>' || kind == '<') {
        ev.func = ct_functab_intern_name(info->funcs, name + 1, len - 1);
        thread = state_thread(E, info, ev.func);
        ev.kind = kind == '>' ? CT_EV_CALL : CT_EV_RETURN;
    } else {
        thread = thread_of(E, info, tid);
        if (kind == '+' || kind == '-') {
            ev.kind = kind == '+' ? CT_EV_CALL : CT_EV_RETURN;
            ev.func = ct_functab_intern_name(info->funcs, name + 1, len - 1);
        } else {
            ev.kind = CT_EV_USER;
            const char *msg = kind == '!' ? name + 1 : name;
            int n = detail && *detail
                        ? snprintf(E->text, sizeof E->text, "%s: %s", msg,
                                   detail)
                        : snprintf(E->text, sizeof E->text, "%s", msg);
            ev.text = E->text;
            ev.text_len = n < (int)sizeof E->text ? (size_t)n
                                                  : sizeof E->text - 1;
        }
    }
    if (thread >= E->last_cap) {
        size_t old = E->last_cap;
        ct_grow(&E->last_time, &E->last_cap, thread, sizeof *E->last_time);
        memset(E->last_time + old, 0,
               (E->last_cap - old) * sizeof *E->last_time);
    }
    if (t < E->last_time[thread]) {
        t = E->last_time[thread];
        E->clamped++;
    }
    E->last_time[thread] = t;
    ev.thread = thread;
    ev.time = t;
    if (*lost) {
        struct ct_event le = {.kind = CT_EV_LOST, .thread = thread,
                              .time = t, .func = CT_FUNC_NONE,
                              .count = *lost};
        *lost = 0;
        if (sink->event(sink, &le))
            return 1;
    }
    return sink->event(sink, &ev);
}

static int read_evlog(const struct ct_input *in, struct ct_trace_info *info,
                      struct ct_sink *sink, const struct ct_read_opts *opts)
{
    struct evlog E = {.d = in->data, .size = in->size};
    info->ns_per_tick = 1.0;
    snprintf(info->clock, sizeof info->clock, "monotonic seconds (f64)");
    int status = CT_EXIT_OK;
    bool stop = false;
    size_t off = 0;
    while (off < in->size && !stop) {
        if (in->size - off < EV_HEADER) {
            snprintf(info->stopped, sizeof info->stopped,
                     "truncated at byte %zu: block header cut (%zu of 12 "
                     "bytes)", off, in->size - off);
            ct_input_error(in->path, NULL, "%s", info->stopped);
            status = CT_EXIT_BAD_INPUT;
            break;
        }
        const uint8_t *m = in->data + off;
        if (m[0] == 0x11 && m[1] == 0xe2 && m[2] == 0xfe && m[3] == 0x0f)
            E.be = false;
        else if (m[0] == 0x0f && m[1] == 0xfe && m[2] == 0xe2 && m[3] == 0x11)
            E.be = true;
        else {
            ct_bytes_bad(in->path, off, info, NULL,
                         "expected a block header (magic 0x0ffee211)");
            status = CT_EXIT_BAD_INPUT;
            break;
        }
        E.blocks++;
        E.be_blocks += E.be;
        uint64_t size = rd32(&E, off + 4);
        uint64_t lost = rd32(&E, off + 8);
        info->lost_events += lost;
        size_t start = off + EV_HEADER;
        size_t end = start + size;
        bool cut = end > in->size;
        if (cut)
            end = in->size;
        size_t o = start;
        while (end - o >= EV_ITEM) {
            const char *name, *detail, *why;
            size_t n = check_item(&E, o, end, &name, &detail, &why);
            if (!n) {
                if (cut && rd16(&E, o + 36) > end - o)
                    break;  /* the item the cut went through */
                if (ct_bytes_bad(in->path, o, info, opts, "%s (block %llu)",
                                 why, (unsigned long long)E.blocks)) {
                    status = CT_EXIT_BAD_INPUT;
                    stop = true;
                }
                break;  /* lenient: the rest of this block is lost */
            }
            if (item(&E, info, sink, o, name, detail, &lost)) {
                stop = true;
                break;
            }
            o += n;
        }
        if (cut && !stop) {
            snprintf(info->stopped, sizeof info->stopped,
                     "truncated at byte %zu (block %llu): %llu of %llu "
                     "bytes present, items after byte %zu cut",
                     in->size, (unsigned long long)E.blocks,
                     (unsigned long long)(in->size - start),
                     (unsigned long long)size, o);
            ct_input_error(in->path, NULL, "%s", info->stopped);
            status = CT_EXIT_BAD_INPUT;
            break;
        }
        off = start + size;
    }
    publish_meta(&E, info);
    free(E.last_time);
    free(E.state_thread);
    free(E.meta);
    return status;
}

static int probe(const struct ct_input *in)
{
    const uint8_t *d = in->data;
    if (in->size < 4)
        return 0;
    if ((d[0] == 0x11 && d[1] == 0xe2 && d[2] == 0xfe && d[3] == 0x0f) ||
        (d[0] == 0x0f && d[1] == 0xfe && d[2] == 0xe2 && d[3] == 0x11))
        return 95;
    return 0;
}

const struct ct_reader ct_reader_evlog = {
    "evlog", "EFL eina_evlog binary log (efl_debug_evlog-PID.log)", probe,
    read_evlog};
