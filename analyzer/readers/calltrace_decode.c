/*
 * calltrace binary reader, second pass: one thread's EVENTS blocks, in seq
 * order, decoded into events and handed to the sink in batches.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "analyzer/model/filtered.h"
#include "analyzer/model/profile_run.h"
#include "analyzer/readers/calltrace_reader.h"
#include "analyzer/readers/calltrace_record.h"
#include "analyzer/util.h"
#include "analyzer/progress.h"

/* Hands the buffered events over; false when the sink asks to stop. */
bool ctr_flush(struct ctr_reading *r)
{
    size_t n = r->nbuf;
    r->nbuf = 0;
    if (!n || r->stop)
        return !r->stop;
    if (r->batch) {
        if (r->batch->events(r->batch, r->buf, n) != 0)
            r->stop = true;
    } else {
        for (size_t i = 0; i < n && !r->stop; i++)
            if (r->sink->event(r->sink, &r->buf[i]) != 0)
                r->stop = true;
    }
    return !r->stop;
}

/* Counts the event just written at buf[*n]; a full buffer goes to the
 * sink.  False when the sink asks to stop. */
static inline __attribute__((always_inline)) bool
commit(struct ctr_reading *r, size_t *n, size_t cap)
{
    if (++*n < cap)
        return true;
    r->nbuf = *n;
    *n = 0;
    return ctr_flush(r);
}

/*
 * A rare event (anything but CALL and RETURN), handed over at once with
 * what precedes it: its stack points into buffers the next one reuses.
 */
static bool push(struct ctr_reading *r, const struct ct_event *ev)
{
    struct ct_event *slot = &r->buf[r->nbuf++];
    *slot = *ev;
    ctr_flush(r);
    *slot = (struct ct_event){0};
    return !r->stop;
}

/* An address where objects followed one another: the function of the
 * object there at time t (rare: dlclose then dlopen at one address). */
static __attribute__((noinline)) uint32_t intern_fn_at(struct ctr_reading *r,
                                                       uint64_t fn,
                                                       uint64_t t)
{
    uint32_t gen = ct_symbolizer_generation(r->sym, fn, t);
    return ct_functab_intern_addr_gen(r->info->funcs, fn, gen);
}

/* A worker's new function id: when it was first seen orders the ids of
 * the whole trace as the serial path would number them. */
static __attribute__((noinline)) void note_first_seen(struct ctr_reading *r,
                                                      uint32_t id, uint64_t t)
{
    size_t old = r->first_seen_cap;
    if (id >= old) {
        ct_grow(&r->first_seen, &r->first_seen_cap, id,
                sizeof *r->first_seen);
        for (size_t i = old; i < r->first_seen_cap; i++)
            r->first_seen[i] = UINT64_MAX;
    }
    if (t < r->first_seen[id])
        r->first_seen[id] = t;
}

static inline uint32_t intern_fn(struct ctr_reading *r, uint64_t fn, uint64_t t)
{
    if (__builtin_expect(r->generations, 0))
        return intern_fn_at(r, fn, t);
    uint32_t slot = (uint32_t)(fn >> 4 ^ fn >> 14) & (FN_CACHE - 1);
    if (r->fn_cache[slot].addr == fn && r->fn_cache[slot].id != CT_FUNC_NONE)
        return r->fn_cache[slot].id;
    uint32_t id = ct_functab_intern_addr(r->info->funcs, fn);
    if (__builtin_expect(r->worker, 0))
        note_first_seen(r, id, t);
    r->fn_cache[slot].addr = fn;
    r->fn_cache[slot].id = id;
    return id;
}

/*
 * Sampled pcs are interned as the function that contains them, so that a
 * sampled function and the same function's instrumented entries share one
 * id; the pcs themselves travel in ev->pcs for --by-line.  Callers' pcs are
 * return addresses, which may lie just past a function that ends in a call,
 * hence the lookup at pc - 1 for them.
 */
static uint32_t intern_pc(struct ctr_reading *r, uint64_t pc, bool caller, uint64_t t)
{
    uint64_t key = pc - caller;
    if (r->generations) {
        uint32_t gen = ct_symbolizer_generation(r->sym, key, t);
        uint64_t start;
        return ct_functab_intern_addr_gen(
            r->info->funcs,
            ct_symbolizer_func_start_gen(r->sym, key, gen, &start) ? start
                                                                   : pc,
            gen);
    }
    uint32_t slot = (uint32_t)(key ^ key >> 9) & 255u;
    if (r->pc_cache[slot].addr == key && r->pc_cache[slot].id != CT_FUNC_NONE)
        return r->pc_cache[slot].id;
    uint64_t start;
    uint32_t id = ct_functab_intern_addr(
        r->info->funcs,
        ct_symbolizer_func_start(r->sym, key, &start) ? start : pc);
    r->pc_cache[slot].addr = key;
    r->pc_cache[slot].id = id;
    return id;
}

static void grow_stacks(struct ctr_reading *r, size_t depth)
{
    if (depth > r->ids_cap) {
        r->ids_cap = depth;
        r->ids = ct_xrealloc(r->ids, depth * sizeof *r->ids);
    }
    if (depth > r->pcs_cap) {
        r->pcs_cap = depth;
        r->pcs = ct_xrealloc(r->pcs, depth * sizeof *r->pcs);
    }
}

static void damage(struct ctr_reading *r, struct cursor *c, const uint8_t *at,
                   const char *what)
{
    c->state = C_DONE;
    if (r->worker) {
        r->damaged = true; /* the serial path reads it again and says so */
        return;
    }
    if (at < r->in->data || at >= r->in->data + r->in->size) {
        /* In a packed block's unpacked records. */
        size_t rel = (size_t)(at - c->base);
        ctr_set_stopped(r->info, r->in->path, c->cur->off,
                        "%s at byte %zu of the records of the packed block "
                        "at byte %zu (thread %" PRIu64 ")", what, rel,
                        c->cur->off, r->info->threads[c->thread].tid);
        return;
    }
    size_t byte = (size_t)(at - r->in->data);
    ctr_set_stopped(r->info, r->in->path, byte,
                "%s at byte %zu (block at byte %zu, thread %" PRIu64 ")",
                what, byte, c->cur->off, r->info->threads[c->thread].tid);
}

/* A cursor's decoding position, in locals while a block is decoded. */
struct decode_pos {
    const uint8_t *p;
    uint64_t time, prev_fn, prev_site;
    uint64_t nrec;
    size_t nbuf;
};

/*
 * The common records, calls and returns, while they lie wholly before
 * fast_end (so that no byte needs a bounds check) and no later than limit.
 * Stops before anything else (an EXT record, a zero byte, damage), which
 * decode_block's general loop reads.  Returns false when the sink asked
 * to stop.
 */
static inline __attribute__((always_inline)) bool
decode_hot(struct ctr_reading *r, struct decode_pos *d, const uint8_t *fast_end,
           uint64_t limit, uint32_t thread, bool prefix)
{
    struct ct_event *buf = r->buf;
    size_t buf_cap = r->buf_cap;
    while (d->p < fast_end) {
        const uint8_t *p = d->p;
        struct ctr_rec x;
        if (ctr_rec_head(&p, fast_end, prefix, true, &x) != 1)
            return true;
        uint64_t t = d->time + x.delta;
        if (t < d->time || t > limit)
            return true;
        int type = ctr_rec_body(&p, fast_end, true, &x);
        if (type != CT_REC_EXIT && type != CT_REC_ENTRY)
            return true;
        struct ct_event *e = &buf[d->nbuf];
        if (type == CT_REC_EXIT) {
            e->kind = CT_EV_RETURN;
            e->func = CT_FUNC_NONE;
            e->site = 0;
        } else {
            d->prev_fn += x.fn_delta;
            d->prev_site += x.site_delta;
            e->kind = CT_EV_CALL;
            e->func = intern_fn(r, d->prev_fn, t);
            e->site = d->prev_site;
        }
        e->thread = thread;
        e->time = t;
        d->time = t;
        d->p = p;
        d->nrec++;
        if (!commit(r, &d->nbuf, buf_cap))
            return false;
    }
    return true;
}

/* What decode_fused did. */
enum fused { FUSED_STOPPED, FUSED_CANNOT };

/*
 * decode_hot's loop when the sink is a profile alone (r->direct): each
 * call and return goes straight into the profile's run (profile_run.h)
 * instead of through the event buffer and the profile's batch loop, which
 * apply it by the same steps.  Stops before any record the run does not
 * take (a new function, a full stack, an EXT record, the limit...),
 * FUSED_STOPPED, for decode_block's general loop to read; FUSED_CANNOT
 * when the thread's state takes no run now, or its records run past the
 * --time-range window (the events go the buffered way).  The buffer must
 * be empty: the profile sees the events in order.
 */
static inline __attribute__((always_inline)) enum fused
decode_fused(struct ctr_reading *r, struct decode_pos *d, const uint8_t *fast_end,
             uint64_t limit, uint32_t thread, bool prefix)
{
    struct ct_prof_run x;
    if (!ct_prof_run_begin(r->direct, thread, &x))
        return FUSED_CANNOT;
    /* The profile's time must be the decoder's, so that a record's delta
     * is the ticks since the thread's previous event; records the
     * profile never saw (a thread's name...) leave them apart, and the
     * general loop's next record joins them again. */
    if (x.cur != d->time)
        return FUSED_STOPPED;
    const uint8_t *p = d->p;
    uint64_t time = d->time, prev_fn = d->prev_fn, prev_site = d->prev_site;
    uint64_t nrec = 0, calls = 0;
    uint64_t lim = limit < x.hi ? limit : x.hi, t = 0;
    while (p < fast_end) {
        const uint8_t *q = p;
        struct ctr_rec rec;
        if (ctr_rec_head(&q, fast_end, prefix, true, &rec) != 1)
            break;
        t = time + rec.delta;
        if (t < time || t > lim)
            break;
        int type = ctr_rec_body(&q, fast_end, true, &rec);
        if (type != CT_REC_EXIT && type != CT_REC_ENTRY)
            break;
        if (type == CT_REC_EXIT) {
            if (!ct_prof_run_return(&x, rec.delta))
                break;
        } else {
            uint64_t fn = prev_fn + rec.fn_delta;
            if (!ct_prof_run_call(&x, intern_fn(r, fn, t), rec.delta))
                break;
            calls++;
            prev_fn = fn;
            prev_site += rec.site_delta;
        }
        time = t;
        p = q;
        nrec++;
    }
    x.cur = time;
    x.calls = calls;
    x.returns = nrec - calls;
    ct_prof_run_close(&x);
    r->stats->fused += nrec;
    d->p = p;
    d->time = time;
    d->prev_fn = prev_fn;
    d->prev_site = prev_site;
    d->nrec += nrec;
    /* Past the window (but not the limit): the general path clips. */
    return t > x.hi && t <= limit ? FUSED_CANNOT : FUSED_STOPPED;
}

/* Whether the record at q (before lim) is an OVERHEAD_END. */
static bool overhead_end_follows(const uint8_t *q, const uint8_t *lim,
                                 bool prefix)
{
    struct ctr_rec x;
    return ctr_rec_next(&q, lim, prefix, false, &x) == CT_REC_EXT &&
           x.subtype == CT_EXT_OVERHEAD_END;
}

/* With the thread's context switches known, a context waiting for the
 * thread is off the CPU (blocked) as far as its frames go: the lane left
 * gets an OFFCPU_START, the one entered its OFFCPU_END. */
static void suspend(struct ctr_reading *r, struct cursor *c, struct ct_event *ev,
                    uint32_t from, struct ctr_lane *to)
{
    if (r->info->threads[c->thread].oncpu != CT_ONCPU_SWITCH || c->in_off)
        return;
    struct ct_event e = {.kind = CT_EV_OFFCPU_START, .thread = from,
                         .time = ev->time, .func = CT_FUNC_NONE};
    for (size_t i = 0; i < c->nlanes; i++)
        if (c->lanes[i].thread == from)
            c->lanes[i].suspended = true;
    push(r, &e);
    if (to->suspended) {
        to->suspended = false;
        e.kind = CT_EV_OFFCPU_END;
        e.thread = to->thread;
        push(r, &e);
    }
}

/* A CONTEXT record [p, end): the events go to the context's lane from
 * here; the frames it lists open the lane when it is new.  False on
 * damage. */
static bool context_record(struct ctr_reading *r, struct cursor *c,
                           struct ct_event *ev, const uint8_t *p,
                           const uint8_t *end)
{
    uint64_t id, depth, fn;
    if (r->worker) {
        r->damaged = true; /* lanes are the serial path's */
        r->stop = true;
        return true;
    }
    if (ct_get_varint(&p, end, &id) != 0)
        return false;
    uint32_t from = ctr_context_leave(r, c)->thread;
    struct ctr_lane *l = ctr_context_enter(r, c, id);
    ev->thread = l->thread;
    if (p == end) /* a block's mark: the STACK record's lane */
        return true;
    if (l->thread != from)
        suspend(r, c, ev, from, l);
    if (ct_get_varint(&p, end, &depth) != 0 || depth > (uint64_t)(end - p))
        return false;
    grow_stacks(r, depth);
    for (uint64_t i = 0; i < depth; i++) {
        if (ct_get_varint(&p, end, &fn) != 0)
            return false;
        r->ids[i] = intern_fn(r, fn, ev->time);
    }
    if (l->known || depth == 0) {
        l->known = true;
        return true;
    }
    l->known = true;
    ev->kind = CT_EV_STACK;
    ev->stack = r->ids;
    ev->depth = (uint32_t)depth;
    push(r, ev);
    ev->stack = NULL;
    ev->depth = 0;
    return true;
}

int ctr_ext_event(unsigned subtype, const uint8_t *p, size_t len,
                  struct ct_event *ev)
{
    const uint8_t *end = p + len;
    uint64_t a;
    switch (subtype) {
    case CT_EXT_OVERHEAD_START:
        ev->kind = CT_EV_OVERHEAD_START;
        return 1;
    case CT_EXT_OVERHEAD_END:
        ev->kind = CT_EV_OVERHEAD_END;
        return 1;
    case CT_EXT_USER:
    case CT_EXT_ARGS:
    case CT_EXT_RETVAL:
        ev->kind = subtype == CT_EXT_USER   ? CT_EV_USER
                   : subtype == CT_EXT_ARGS ? CT_EV_ARGS
                                            : CT_EV_RETVAL;
        ev->text = (const char *)p;
        ev->text_len = len;
        return 1;
    case CT_EXT_LOST:
    case CT_EXT_CPUTIME:
        if (ct_get_varint(&p, end, &a) != 0)
            return -1;
        ev->kind = subtype == CT_EXT_LOST ? CT_EV_LOST : CT_EV_CPUTIME;
        ev->count = a;
        return 1;
    case CT_EXT_THREAD_END:
        ev->kind = CT_EV_THREAD_END;
        return 1;
    default:
        return 0;
    }
}

void ctr_thread_name(struct ct_thread_info *t, const uint8_t *p, size_t len)
{
    size_t n = len < sizeof t->name ? len : sizeof t->name - 1;
    memcpy(t->name, p, n);
    t->name[n] = '\0';
}

/* STACK: the frames open at a block's start (only where the thread's
 * frames are not known from its previous block).  False on damage. */
static bool stack_record(struct ctr_reading *r, struct cursor *c, struct ct_event *ev,
                         const uint8_t *p, size_t len)
{
    const uint8_t *end = p + len;
    uint64_t a, b;
    if (!c->need_stack)
        return true; /* the frames are known from the previous block */
    c->need_stack = false;
    if (c->continued)
        r->inherited++; /* not an event the serial path sees */
    /* The tracer opens every block with STACK and then OVERHEAD_END:
     * from the block's start to that end it was at work (setting up
     * the thread, or switching blocks after an OVERHEAD_START at the
     * end of a block not read here).  Say so, or the time would be
     * charged to the frames below. */
    if (overhead_end_follows(end, c->end, c->cur->prefix)) {
        ev->kind = CT_EV_OVERHEAD_START;
        push(r, ev);
        if (c->continued)
            r->inherited++;
    }
    if (ct_get_varint(&p, end, &a) != 0 || a > len)
        return false;
    grow_stacks(r, a);
    for (uint64_t i = 0; i < a; i++) {
        if (ct_get_varint(&p, end, &b) != 0)
            return false;
        r->ids[i] = intern_fn(r, b, ev->time);
        r->pcs[i] = b;
    }
    if (c->continued)
        r->nopened = (uint32_t)a; /* checked against the last piece */
    /* In a coroutine: the frames are that context's (its mark follows
     * the OVERHEAD_END). */
    if (ctr_context_ahead(end, c->end, c->cur->prefix, &b)) {
        if (r->worker) {
            r->damaged = true; /* lanes are the serial path's */
            r->stop = true;
            return true;
        }
        ctr_context_enter(r, c, b)->known = true;
        ev->thread = ctr_lane_thread(c);
    } else if (c->lane) {
        ctr_context_enter(r, c, 0)->known = true;
        ev->thread = c->thread;
    } else {
        c->own_known = true;
    }
    ev->kind = CT_EV_STACK;
    ev->stack = r->ids;
    ev->depth = (uint32_t)a;
    push(r, ev);
    ev->stack = NULL;
    ev->depth = 0;
    return true;
}

/* SAMPLE, SAMPLE_OF: a stack sample, of the writing thread or of the
 * one named.  False on damage. */
static bool sample_record(struct ctr_reading *r, struct ct_event *ev,
                          unsigned subtype, const uint8_t *p, size_t len)
{
    const uint8_t *end = p + len;
    uint64_t a, b;
    uint64_t weight, tid = 0;
    /* A sample the sampler's thread wrote for another thread: the
     * sampled thread's, in every view (per thread, --tid). */
    if (subtype == CT_EXT_SAMPLE_OF && ct_get_varint(&p, end, &tid) != 0)
        return false;
    if (r->worker) {
        r->damaged = true; /* the symbolizer is not shared */
        r->stop = true;
        return true;
}
if (ct_get_varint(&p, end, &weight) != 0 ||
    ct_get_varint(&p, end, &a) != 0 || a > len)
    return false;
grow_stacks(r, a);
for (uint64_t i = 0; i < a; i++) {
    if (ct_get_varint(&p, end, &b) != 0)
        return false;
    r->pcs[i] = b;
    r->ids[i] = intern_pc(r, b, i > 0, ev->time);
}
uint32_t own = ev->thread;
if (subtype == CT_EXT_SAMPLE_OF)
    ev->thread = ctr_sample_thread(r, tid, ev->time);
ev->kind = CT_EV_SAMPLE;
ev->count = weight;
ev->stack = r->ids;
ev->pcs = r->pcs;
ev->depth = (uint32_t)a;
push(r, ev);
ev->thread = own;
ev->count = 0;
ev->stack = NULL;
ev->pcs = NULL;
ev->depth = 0;
return true;
}

/* FILTER_SPEC, FILTER_UNMATCHED, FILTER_DROPS: the record-time rules and
 * what they left out.  False on damage. */
static bool filter_record(struct ctr_reading *r, struct ct_event *ev,
                          unsigned subtype, const uint8_t *p, size_t len)
{
    const uint8_t *end = p + len;
    uint64_t a, b;
    switch (subtype) {
    case CT_EXT_FILTER_SPEC:
        if (ct_get_varint(&p, end, &a) != 0)
            return false;
        ct_filtered_rules(r->info, a, (const char *)p, (size_t)(end - p));
        return true;
    case CT_EXT_FILTER_UNMATCHED: {
        uint64_t n, idx;
        if (ct_get_varint(&p, end, &a) != 0 ||
            ct_get_varint(&p, end, &n) != 0)
            return false;
        for (uint64_t i = 0; i < n; i++) {
            if (ct_get_varint(&p, end, &idx) != 0 || idx > UINT32_MAX)
                return false;
            ct_filtered_unmatched(r->info, a, (uint32_t)idx);
        }
        return true;
    }
    case CT_EXT_FILTER_DROPS: {
        uint64_t n, reason, count;
        if (ct_get_varint(&p, end, &a) != 0 ||
            ct_get_varint(&p, end, &n) != 0)
            return false;
        for (uint64_t i = 0; i < n; i++) {
            if (ct_get_varint(&p, end, &reason) != 0 ||
                ct_get_varint(&p, end, &b) != 0 ||
                ct_get_varint(&p, end, &count) != 0 || reason > UINT32_MAX)
                return false;
            ct_filtered_left(r->info, a, (uint32_t)reason,
                             intern_fn(r, b, ev->time), count);
        }
        return true;
    }
    default:
        return true;
    }
}

/* An EXT record's payload [p, p + len).  Returns false on damage. */
static bool ext_record(struct ctr_reading *r, struct cursor *c, struct ct_event *ev,
                       unsigned subtype, const uint8_t *p, size_t len)
{
    int simple = ctr_ext_event(subtype, p, len, ev);
    if (simple < 0)
        return false;
    if (simple) {
        if (ev->kind == CT_EV_LOST)
            c->lost_told = ct_sat_add(c->lost_told, ev->count);
        else if (ev->kind == CT_EV_CPUTIME)
            r->info->threads[c->thread].oncpu = CT_ONCPU_CLOCK;
        push(r, ev);
        ev->text = NULL;
        ev->text_len = 0;
        ev->count = 0;
        return true;
    }
    switch (subtype) {
    case CT_EXT_STACK:
        return stack_record(r, c, ev, p, len);
    case CT_EXT_SAMPLE_OF:
    case CT_EXT_SAMPLE:
        return sample_record(r, ev, subtype, p, len);
    case CT_EXT_THREAD_NAME:
        ctr_thread_name(&r->info->threads[c->thread], p, len);
        return true;
    case CT_EXT_CONTEXT:
        return context_record(r, c, ev, p, p + len);
    case CT_EXT_FILTER_SPEC:
    case CT_EXT_FILTER_UNMATCHED:
    case CT_EXT_FILTER_DROPS:
        return filter_record(r, ev, subtype, p, len);
    default:
        /* CT_EXT_TOGGLE and subtypes of later versions: nothing to tell. */
        return true;
    }
}

/*
 * Decodes records of c->cur while their time is <= limit.  Returns 1 when
 * it stopped at the limit, 0 at the end of the block's data, -1 when the
 * thread or the whole read must stop.
 */
static int decode_block(struct ctr_reading *r, struct cursor *c, uint64_t limit)
{
    const uint8_t *p = c->p, *end = c->end;
    const uint8_t *fast_end = end - p > 32 ? end - 32 : p;
    uint64_t time = c->time, prev_fn = c->prev_fn, prev_site = c->prev_site;
    uint64_t nrec = 0;
    int status = 0;
    struct ct_event ev = {.thread = ctr_lane_thread(c),
                          .func = CT_FUNC_NONE};
    struct ct_event *buf = r->buf;
    size_t nbuf = r->nbuf, buf_cap = r->buf_cap;
    uint32_t thread = ev.thread;
    bool need_stack = c->need_stack;
    bool prefix = c->cur->prefix;
    bool fuse = r->direct != NULL;

    while (p < end) {
        if (p < fast_end) {
            struct decode_pos d = {p, time, prev_fn, prev_site, nrec, nbuf};
            bool go = true;
            enum fused f = FUSED_CANNOT;
            if (fuse) {
                if (nbuf) {
                    r->nbuf = nbuf;
                    go = ctr_flush(r);
                    d.nbuf = 0;
                }
                /* Each encoding gets a loop of its own. */
                if (go)
                    f = prefix ? decode_fused(r, &d, fast_end, limit, thread,
                                              true)
                               : decode_fused(r, &d, fast_end, limit, thread,
                                              false);
                fuse = f == FUSED_STOPPED;
            }
            if (go && f == FUSED_CANNOT)
                go = prefix ? decode_hot(r, &d, fast_end, limit, thread, true)
                            : decode_hot(r, &d, fast_end, limit, thread, false);
            if (d.nrec != nrec)
                need_stack = false;
            p = d.p;
            time = d.time;
            prev_fn = d.prev_fn;
            prev_site = d.prev_site;
            nrec = d.nrec;
            nbuf = d.nbuf;
            if (!go)
                goto stop;
        }
        /* One record of any kind, with every check. */
        const uint8_t *rec = p;
        if (*p == 0)
            break; /* the end of what an unclosed block holds */
        struct ctr_rec x;
        int got = ctr_rec_head(&p, end, prefix, false, &x);
        if (got != 1)
            goto short_or_bad;
        uint64_t t = time + x.delta;
        if (t < time)
            goto bad;
        if (t > limit) {
            p = rec; /* read again when the merge gets there */
            status = 1;
            break;
        }
        time = t; /* a record cut short still tells its time */
        nrec++;
        got = ctr_rec_body(&p, end, false, &x);
        if (got <= 0)
            goto short_or_bad;
        switch (got) {
        case CT_REC_EXIT: {
            struct ct_event *e = &buf[nbuf];
            e->kind = CT_EV_RETURN;
            e->thread = thread;
            e->time = t;
            e->func = CT_FUNC_NONE;
            e->site = 0;
            if (!commit(r, &nbuf, buf_cap))
                goto stop;
            break;
        }
        case CT_REC_ENTRY: {
            prev_fn += x.fn_delta;
            prev_site += x.site_delta;
            struct ct_event *e = &buf[nbuf];
            e->kind = CT_EV_CALL;
            e->thread = thread;
            e->time = t;
            e->func = intern_fn(r, prev_fn, t);
            e->site = prev_site;
            if (!commit(r, &nbuf, buf_cap))
                goto stop;
            break;
        }
        default: { /* CT_REC_EXT: ctr_rec_next returns no other type */
            ev.time = t;
            c->need_stack = need_stack;
            r->nbuf = nbuf;
            bool ok = ext_record(r, c, &ev, x.subtype, x.payload, x.len);
            nbuf = r->nbuf;
            thread = ev.thread; /* a CONTEXT record moves to another lane */
            if (!ok)
                goto bad;
            if (r->stop)
                goto stop;
            /* It may end what kept the thread from a run (an overhead
             * interval, the thread's first event). */
            fuse = r->direct != NULL;
            break;
        }
        }
        /* Only a block's leading STACK record describes its open frames. */
        need_stack = false;
        continue;
    short_or_bad:
        if (got == CTR_REC_SHORT && c->partial_ok) {
            p = end; /* the writer stopped inside this record */
            break;
        }
    bad:
        r->stats->records += nrec;
        r->nbuf = nbuf;
        damage(r, c, rec, "bad record");
        return -1;
    stop:
        r->stop = true;
        status = -1;
        break;
    }
    r->stats->records += nrec;
    r->nbuf = nbuf;
    c->need_stack = need_stack;
    c->p = p;
    c->time = time;
    c->prev_fn = prev_fn;
    c->prev_site = prev_site;
    return status;
}

/*
 * Maps a block's pages in one call before it is read: a fault per few
 * pages of a mapped trace costs more than the decoding of what they hold.
 * Only blocks that are decoded are touched (--time-range reads few).
 * Kernels without MADV_POPULATE_READ (before 5.14) fault as before.
 */
static void populate(const uint8_t *from, const uint8_t *to)
{
#ifdef MADV_POPULATE_READ
    uintptr_t page = 4096, a = (uintptr_t)from & ~(page - 1);
    if (to > from)
        (void)madvise((void *)a, (uintptr_t)to - a, MADV_POPULATE_READ);
#else
    (void)from;
    (void)to;
#endif
}

/* Moves c to its next block; C_DONE when there is none. */
static void open_next(struct ctr_reading *r, struct cursor *c)
{
    if (c->next >= c->nblocks) {
        c->state = C_DONE;
        ctr_cursor_release(c); /* a thread's records held no longer */
        return;
    }
    struct block *b = c->blocks[c->next++];
    c->cur = b;
    uint64_t first = b->first;
    if (c->next > 1 && first < c->time) {
        /* A thread's last block may be the exiting thread's, written for
         * a thread still running at exit() (ct_threads_end_others) and
         * stamped then, while that thread went on a moment in the block
         * before: its records are taken at the thread's last time. */
        if (!(b->flags & CT_BLOCK_LAST)) {
            damage(r, c, r->in->data + b->off, "block goes back in time");
            return;
        }
        first = c->time;
    }
    if (c->next == 1 || b->seq != c->expect_seq)
        c->need_stack = true;
    if (b->seq == 0)
        c->own_known = true; /* the thread's start: nothing open before */
    c->expect_seq = b->seq + 1;
    size_t len;
    const uint8_t *data = ctr_cursor_payload(r->in, c, b, &len,
                                             &c->partial_ok);
    if (!data) {
        damage(r, c, r->in->data + b->off, "packed block does not unpack");
        return;
    }
    c->base = c->p = data;
    c->end = data + len;
    if (!b->packed && !b->moved)
        populate(data, c->end);
    c->time = first;
    c->prev_fn = c->prev_site = 0;
    c->lost_told = 0;
    c->state = C_DATA;
    /* This block's off-CPU intervals, and those the next one tells late. */
    ctr_offcpu_collect(r, c, c->next - 1);
    ctr_offcpu_collect(r, c, c->next);
    r->stats->blocks_decoded++;
}

/*
 * The block's records are done.  The tracer counts losses in the block
 * header as they happen (so that they survive a crash) and writes a LOST
 * record when it can; what the records did not tell comes now.
 */
static void finish_block(struct cursor *c)
{
    if (!c->quiet)
        ct_progress_advance(c->cur->avail);
    if (c->cur->lost > c->lost_told) {
        /* At the last record: last_ticks could break the thread's time
         * order if the header was damaged. */
        c->lost_time = c->time;
        c->state = C_LOST;
    } else {
        c->state = C_NEXT;
    }
}

/* Hands on the start or end of c's current off-CPU interval at time t. */
static void offcpu_event(struct ctr_reading *r, struct cursor *c, uint64_t t,
                         bool start)
{
    struct ctr_interval *iv = &c->iv[c->iv_next];
    struct ct_event ev = {.kind = start ? CT_EV_OFFCPU_START
                                        : CT_EV_OFFCPU_END,
                          .thread = ctr_lane_thread(c), .time = t,
                          .func = CT_FUNC_NONE,
                          .count = start && iv->preempted};
    if (start) {
        c->in_off = true;
    } else {
        c->in_off = false;
        c->iv_next++;
    }
    push(r, &ev);
}

/* Pushes c's events up to time limit. */
void ctr_run(struct ctr_reading *r, struct cursor *c, uint64_t limit)
{
    while (!r->stop) {
        switch (c->state) {
        case C_DATA: {
            bool start = false;
            uint64_t b = ctr_offcpu_next(c, &start);
            int s = decode_block(r, c, b < limit ? b : limit);
            if (s < 0)
                return;
            if (s == 1) {
                if (b > limit || b == UINT64_MAX)
                    return;
                offcpu_event(r, c, b, start);
                break;
            }
            finish_block(c);
            break;
        }
        case C_LOST: {
            if (c->lost_time > limit)
                return;
            struct ct_event ev = {.kind = CT_EV_LOST, .thread = c->thread,
                                  .time = c->lost_time, .func = CT_FUNC_NONE,
                                  .count = c->cur->lost - c->lost_told};
            c->time = c->lost_time;
            c->state = C_NEXT;
            push(r, &ev);
            break;
        }
        case C_NEXT:
            open_next(r, c);
            break;
        case C_DONE:
            /* The thread's records end inside an interval: it ends too. */
            if (c->in_off)
                offcpu_event(r, c, c->time, false);
            return;
        }
    }
}

/* Time of c's next event, UINT64_MAX when it has none. */
uint64_t ctr_next_time(struct ctr_reading *r, struct cursor *c)
{
    for (;;) {
        switch (c->state) {
        case C_DATA: {
            const uint8_t *p = c->p;
            if (p < c->end && *p) {
                bool start;
                uint64_t b = ctr_offcpu_next(c, &start);
                struct ctr_rec x;
                if (ctr_rec_head(&p, c->end, c->cur->prefix, false, &x) == 1 &&
                    c->time + x.delta >= c->time) {
                    uint64_t t = c->time + x.delta;
                    return b < t ? b : t;
                }
                return c->time; /* damage: decode_block will say so */
            }
            finish_block(c);
            break;
        }
        case C_LOST:
            return c->lost_time;
        case C_NEXT:
            open_next(r, c);
            break;
        case C_DONE:
            return c->in_off ? c->time : UINT64_MAX;
        }
    }
}
