/* The calling-context tree of stacktree.h. */
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "analyzer/model/view_opts.h"
#include "analyzer/writers/stacktree.h"
#include "analyzer/util.h"

struct st_frame {
    uint32_t node;
    uint64_t self;          /* self charged to this frame so far          */
    bool called;            /* entered by a call (not a STACK record)     */
};

struct ct_st_thread {
    struct st_frame *stack;
    size_t depth, cap;
    uint64_t cur;           /* time of the thread's previous event        */
    bool seen;
    uint32_t in_overhead;
    uint32_t root;          /* this thread's root node                    */
};

static uint32_t hash(uint32_t parent, uint32_t func)
{
    uint64_t k = ((uint64_t)parent << 32 | func) * 0x9e3779b97f4a7c15ull;
    return (uint32_t)(k >> 32);
}

static uint32_t new_node(struct ct_stacktree *t, uint32_t parent,
                         uint32_t func)
{
    if (t->nnodes == t->nodes_cap) {
        size_t cap = t->nodes_cap;
        ct_grow(&t->nodes, &cap, t->nnodes, sizeof *t->nodes);
        t->nodes_cap = (uint32_t)cap;
    }
    uint32_t id = t->nnodes++;
    t->nodes[id] = (struct ct_st_node){.func = func, .parent = parent};
    if (id != CT_ST_ROOT) {
        struct ct_st_node *p = &t->nodes[parent];
        t->nodes[id].next = p->child;
        p->child = id;
    }
    return id;
}

static void rehash(struct ct_stacktree *t)
{
    uint32_t n = t->nslots ? t->nslots * 2 : 1024;
    free(t->slots);
    t->slots = ct_xcalloc(n, sizeof *t->slots);
    t->nslots = n;
    for (uint32_t id = 1; id < t->nnodes; id++) {
        uint32_t i = hash(t->nodes[id].parent, t->nodes[id].func) & (n - 1);
        while (t->slots[i])
            i = (i + 1) & (n - 1);
        t->slots[i] = id;
    }
}

/* The node for func called from parent, made if new. */
static uint32_t child(struct ct_stacktree *t, uint32_t parent, uint32_t func)
{
    if ((uint64_t)t->nnodes * 2 >= t->nslots)
        rehash(t);
    uint32_t i = hash(parent, func) & (t->nslots - 1);
    for (uint32_t id; (id = t->slots[i]); i = (i + 1) & (t->nslots - 1))
        if (t->nodes[id].parent == parent && t->nodes[id].func == func)
            return id;
    uint32_t id = new_node(t, parent, func);
    t->slots[i] = id;
    return id;
}

static struct ct_st_thread *thread(struct ct_stacktree *t, uint32_t index)
{
    size_t had = t->nthreads;
    ct_grow_zeroed(&t->threads, &t->nthreads, index, sizeof *t->threads);
    struct ct_st_thread *th = &t->threads[index];
    if (index >= had || !th->root) {
        /* thread roots are keyed by an impossible function id per thread */
        th->root = CT_ST_ROOT;
        if (t->by_thread) {
            th->root = child(t, CT_ST_ROOT, CT_FUNC_NONE - 1 - index);
            t->nodes[th->root].thread = index;
        }
    }
    return th;
}

static uint32_t top(const struct ct_st_thread *th)
{
    return th->depth ? th->stack[th->depth - 1].node : th->root;
}

/* The window's edges in ticks, from the trace's first event, rounded
 * as the profile rounds them. */
static void set_origin(struct ct_stacktree *t, uint64_t time)
{
    t->origin_set = true;
    if (t->info->have_first_time)
        time = t->info->first_time;
    double tick = t->info->ns_per_tick > 0 ? t->info->ns_per_tick : 1.0;
    double from = (double)t->range_from_ns / tick;
    double to = (double)t->range_to_ns / tick;
    t->rfrom = time + (uint64_t)(from + 0.5);
    t->rto = t->range_to_ns == INT64_MAX || to >= 1.8e19 - (double)time
                 ? UINT64_MAX
                 : time + (uint64_t)(to + 0.5);
}

static uint64_t clip(const struct ct_stacktree *t, uint64_t time)
{
    return time < t->rfrom ? t->rfrom : time > t->rto ? t->rto : time;
}

static bool in_range(const struct ct_stacktree *t, uint64_t time)
{
    return !t->have_range || (time >= t->rfrom && time <= t->rto);
}

/* Ticks since the thread's previous event (0 the first time), inside the
 * window if there is one. */
static uint64_t advance(const struct ct_stacktree *t, struct ct_st_thread *th,
                        uint64_t time)
{
    if (!th->seen) {
        th->seen = true;
        th->cur = time;
        return 0;
    }
    if (time <= th->cur)
        return 0;
    uint64_t a = th->cur;
    th->cur = time;
    return t->have_range ? clip(t, time) - clip(t, a) : time - a;
}

static void charge(struct ct_stacktree *t, struct ct_st_thread *th,
                   uint64_t time)
{
    uint64_t d = advance(t, th, time);
    if (!d || th->in_overhead || !th->depth)
        return;
    struct st_frame *f = &th->stack[th->depth - 1];
    f->self += d;
    t->nodes[f->node].self += d;
}

/* Takes up to bias ticks off a frame's self so far, never below zero. */
static void unbias(struct ct_stacktree *t, struct st_frame *f, uint64_t bias)
{
    uint64_t b = f->self < bias ? f->self : bias;
    f->self -= b;
    t->nodes[f->node].self -= b;
}

/* Closes frames down to depth keep.  A call's part of the hooks comes off
 * its self when it closes, then the part outside it off its caller's self
 * so far, each never below zero: the profile's rule and order
 * (profile_run.h), so the values add up to its. */
static void close_to(struct ct_stacktree *t, struct ct_st_thread *th,
                     size_t keep)
{
    while (th->depth > keep) {
        struct st_frame *f = &th->stack[--th->depth];
        if (!f->called)
            continue;
        struct ct_call_bias cb =
            ct_call_bias(&t->bias, t->info->funcs, t->nodes[f->node].func);
        if (cb.self)
            unbias(t, f, cb.self);
        if (th->depth && cb.child)
            unbias(t, &th->stack[th->depth - 1], cb.child);
    }
}

/* The reader sets the bias before its first event. */
static void know_bias(struct ct_stacktree *t)
{
    if (t->bias_known)
        return;
    t->bias_known = true;
    if (t->subtract_bias)
        t->bias = ct_view_bias(t->info);
}

static void push(struct ct_stacktree *t, struct ct_st_thread *th,
                 uint32_t func, bool called, uint64_t time)
{
    know_bias(t);
    uint32_t node = child(t, top(th), func);
    ct_grow(&th->stack, &th->cap, th->depth, sizeof *th->stack);
    th->stack[th->depth++] = (struct st_frame){
        .node = node, .called = called};
    if (called && in_range(t, time))
        t->nodes[node].calls++;
}

static long find_open(const struct ct_st_thread *th,
                      const struct ct_stacktree *t, uint32_t func)
{
    for (size_t i = th->depth; i-- > 0;)
        if (t->nodes[th->stack[i].node].func == func)
            return (long)i;
    return -1;
}

static void on_return(struct ct_stacktree *t, struct ct_st_thread *th,
                      uint32_t func, uint64_t time)
{
    if (th->depth &&
        (func == CT_FUNC_NONE || t->nodes[top(th)].func == func)) {
        charge(t, th, time);
        close_to(t, th, th->depth - 1);
        return;
    }
    long k = func == CT_FUNC_NONE ? -1 : find_open(th, t, func);
    /* otherwise the interval is the profile's unknown: nobody's self */
    if (k < 0 && !th->depth)
        charge(t, th, time);
    else
        advance(t, th, time);
    close_to(t, th, k >= 0 ? (size_t)k : 0);
}

static void on_stack(struct ct_stacktree *t, struct ct_st_thread *th,
                     const struct ct_event *ev)
{
    size_t same = 0;
    while (same < th->depth && same < ev->depth &&
           t->nodes[th->stack[same].node].func == ev->stack[same])
        same++;
    close_to(t, th, same);
    for (size_t i = same; i < ev->depth; i++)
        if (ev->stack[i] != CT_FUNC_NONE)
            push(t, th, ev->stack[i], false, ev->time);
}

static void on_sample(struct ct_stacktree *t, const struct ct_event *ev)
{
    struct ct_st_thread *th = thread(t, ev->thread);
    uint32_t node = th->root;
    for (uint32_t i = ev->depth; i-- > 0;)
        if (ev->stack[i] != CT_FUNC_NONE)
            node = child(t, node, ev->stack[i]);
    t->nodes[node].samples += ev->count;
}

/* A profile's call path (CT_EV_PATH): its calls and its self time, the
 * bias taken off as profile_paths.c takes it. */
static void on_path(struct ct_stacktree *t, const struct ct_event *ev)
{
    struct ct_st_thread *th = thread(t, ev->thread);
    know_bias(t);
    uint32_t node = th->root;
    for (uint32_t i = 0; i < ev->depth; i++)
        if (ev->stack[i] != CT_FUNC_NONE)
            node = child(t, node, ev->stack[i]);
    t->nodes[node].calls += ev->count;
    t->nodes[node].self +=
        ev->path_self - ct_path_bias(&t->bias, t->info->funcs, ev);
}

static int st_event(struct ct_sink *self, const struct ct_event *ev)
{
    struct ct_stacktree *t = (struct ct_stacktree *)self;
    if (ev->kind == CT_EV_SAMPLE) {
        on_sample(t, ev);
        return 0;
    }
    if (ev->kind == CT_EV_PATH) {
        on_path(t, ev);
        return 0;
    }
    if (!t->origin_set && t->have_range)
        set_origin(t, ev->time);
    struct ct_st_thread *th = thread(t, ev->thread);
    switch (ev->kind) {
    case CT_EV_CALL:
        charge(t, th, ev->time);
        if (ev->func != CT_FUNC_NONE)
            push(t, th, ev->func, true, ev->time);
        break;
    case CT_EV_RETURN:
        on_return(t, th, ev->func, ev->time);
        break;
    case CT_EV_OVERHEAD_START:
        charge(t, th, ev->time);
        th->in_overhead++;
        break;
    case CT_EV_OVERHEAD_END:
        charge(t, th, ev->time);
        if (th->in_overhead)
            th->in_overhead--;
        break;
    case CT_EV_STACK:
        charge(t, th, ev->time);
        on_stack(t, th, ev);
        break;
    case CT_EV_THREAD_END:
        charge(t, th, ev->time);
        close_to(t, th, 0);
        break;
    case CT_EV_LOST:
        t->lost = ct_sat_add(t->lost, ev->count);
        charge(t, th, ev->time);
        break;
    default:
        charge(t, th, ev->time);
        break;
    }
    return 0;
}

void ct_stacktree_init(struct ct_stacktree *t,
                       const struct ct_trace_info *info, bool by_thread,
                       bool subtract_bias)
{
    *t = (struct ct_stacktree){
        .sink = {st_event},
        .info = info,
        .by_thread = by_thread,
        .subtract_bias = subtract_bias,
    };
    new_node(t, CT_ST_ROOT, CT_FUNC_NONE);
}

void ct_stacktree_finish(struct ct_stacktree *t)
{
    for (size_t i = 0; i < t->nthreads; i++)
        close_to(t, &t->threads[i], 0);
}

void ct_stacktree_free(struct ct_stacktree *t)
{
    for (size_t i = 0; i < t->nthreads; i++)
        free(t->threads[i].stack);
    free(t->threads);
    free(t->nodes);
    free(t->slots);
    *t = (struct ct_stacktree){0};
}

uint64_t *ct_stacktree_totals(const struct ct_stacktree *t, int which)
{
    uint64_t *sum = ct_xcalloc(t->nnodes ? t->nnodes : 1, sizeof *sum);
    /* children have larger ids than their parent: one backward pass */
    for (uint32_t id = t->nnodes; id-- > 0;) {
        sum[id] += ct_st_value(&t->nodes[id], which);
        if (id != CT_ST_ROOT)
            sum[t->nodes[id].parent] += sum[id];
    }
    return sum;
}

int ct_stacktree_walk(const struct ct_stacktree *t,
                      int (*fn)(void *ctx, uint32_t node, uint32_t depth),
                      void *ctx)
{
    struct item {
        uint32_t node, depth;
    } *todo = NULL;
    size_t n = 0, cap = 0;
    int r = 0;
    ct_grow(&todo, &cap, n, sizeof *todo);
    todo[n++] = (struct item){CT_ST_ROOT, 0};
    while (n && !r) {
        struct item it = todo[--n];
        r = fn(ctx, it.node, it.depth);
        /* the sibling list is newest first: pushed as it comes, the
         * oldest is taken first */
        for (uint32_t c = t->nodes[it.node].child; c; c = t->nodes[c].next) {
            ct_grow(&todo, &cap, n, sizeof *todo);
            todo[n++] = (struct item){c, it.depth + 1};
        }
    }
    free(todo);
    return r;
}

const char *ct_stacktree_name(const struct ct_stacktree *t, uint32_t n,
                              char *buf, size_t len)
{
    const struct ct_st_node *node = &t->nodes[n];
    if (n == CT_ST_ROOT)
        return "all";
    if (!t->by_thread || node->parent != CT_ST_ROOT)
        return ct_functab_name(t->info->funcs, node->func);
    const struct ct_thread_info *th = node->thread < t->info->nthreads
                                          ? &t->info->threads[node->thread]
                                          : NULL;
    int w;
    if (th && th->name[0])
        w = snprintf(buf, len, "thread %llu (%s)",
                     (unsigned long long)th->tid, th->name);
    else
        w = snprintf(buf, len, "thread %llu",
                     (unsigned long long)(th ? th->tid : node->thread));
    /* a tid reused by a later thread: a root frame of its own */
    uint32_t rank = ct_trace_thread_rank(t->info, node->thread);
    if (rank && w >= 0 && (size_t)w < len)
        w += snprintf(buf + w, len - (size_t)w, " #%u", (unsigned)rank + 1);
    /* a coroutine's stack: a root frame of its own */
    if (th && th->context && w >= 0 && (size_t)w < len)
        snprintf(buf + w, len - (size_t)w, " context %llu",
                 (unsigned long long)th->context);
    return buf;
}

int ct_stacktree_measure(const struct ct_stacktree *t, bool want_calls,
                         const char *format)
{
    bool traced = false, sampled = false;
    for (uint32_t i = 1; i < t->nnodes; i++) {
        traced |= t->nodes[i].self || t->nodes[i].calls;
        sampled |= t->nodes[i].samples != 0;
    }
    if (!traced && !sampled && t->info->nsample_counts) {
        ct_error("%s: %s input has per-function sample counts but no "
                 "stacks: no %s export can be drawn from it",
                 t->info->path, t->info->format, format);
        return -1;
    }
    if (!traced && sampled)
        return CT_ST_SAMPLES;
    return want_calls ? CT_ST_CALLS : CT_ST_SELF;
}

uint64_t ct_ns_round(struct ct_ns_rounder *r, uint64_t ticks)
{
    r->ticks += ticks;
    double npt = r->ns_per_tick > 0 ? r->ns_per_tick : 1;
    uint64_t ns = (uint64_t)llround((double)r->ticks * npt);
    uint64_t d = ns - r->ns;
    r->ns = ns;
    return d;
}

void ct_stacktree_set_opts(struct ct_stacktree *t,
                           const struct ct_view_opts *opts)
{
    t->by_thread = opts && opts->per_thread;
    t->subtract_bias = opts && opts->subtract_bias;
    if (opts && opts->have_range) {
        t->have_range = true;
        t->range_from_ns = opts->range_from_ns;
        t->range_to_ns = opts->range_to_ns;
    }
}

static int stack_writer_event(struct ct_sink *self, const struct ct_event *ev)
{
    struct ct_stack_writer *w = (struct ct_stack_writer *)self;
    if (!w->started) {
        w->started = true;
        ct_stacktree_set_opts(&w->tree, w->ex.opts);
    }
    return w->tree.sink.event(&w->tree.sink, ev);
}

void ct_stack_writer_init(struct ct_stack_writer *w, FILE *out,
                          struct ct_trace_info *info,
                          const struct ct_view_opts *opts,
                          int (*finish)(struct ct_exporter *,
                                        struct ct_profile *),
                          void (*free_fn)(struct ct_exporter *))
{
    w->ex.sink.event = stack_writer_event;
    w->ex.finish = finish;
    w->ex.free = free_fn;
    w->ex.opts = opts;
    w->ex.clips_range = true;  /* the tree clips to --time-range itself */
    w->out = out;
    w->info = info;
    ct_stacktree_init(&w->tree, info, false, false);
}

int ct_stack_writer_close(struct ct_stack_writer *w, bool want_calls,
                          const char *format)
{
    ct_stacktree_finish(&w->tree);
    return ct_stacktree_measure(&w->tree, want_calls, format);
}
