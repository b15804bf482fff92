/*
 * calltrace binary reader: the full report's events decoded on several
 * threads.  The work is cut into pieces: whole threads, and runs of a long
 * thread's blocks, each of which starts with the STACK record of the
 * frames open at its start.  Each worker decodes its pieces into profiles
 * of its own (profile.h, ct_profile_part_*), with a function table of its
 * own, and the parts are merged into the caller's profile at the end.
 *
 * Whatever the serial path would read differently is left to it: damage,
 * stack samples, objects that followed one another at one address, a
 * --time-range.  A piece of a thread begins only where the serial path
 * would carry its stack over unchanged: after a closed, complete block
 * with no losses, at the next seq, with every open frame named.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analyzer/readers/calltrace_reader.h"
#include "analyzer/model/filtered.h"
#include "analyzer/model/profile.h"
#include "analyzer/util.h"

/* Pieces smaller than this are not worth a profile of their own. */
#define MIN_PIECE_BYTES (4u << 20)

struct piece {
    uint32_t cursor;        /* index into the thread cursors              */
    uint32_t first, n;      /* its blocks in the cursor's list            */
    bool whole;             /* the thread's every block                   */
    uint64_t bytes;
    uint32_t worker;
    struct ct_profile *part; /* NULL: the worker's part for whole threads */
    uint64_t inherited;
    /* The frames open at its start (its STACK record) and at its end, by
     * address: the serial path carries the stack over from one piece to
     * the next, so they must agree (a STACK record may be cut short). */
    uint64_t *opened, *left_open;
    uint32_t nopened, nleft_open;
    bool opened_in_overhead, left_in_overhead; /* likewise */
};

struct worker {
    pthread_t tid;
    struct ctr_reading r;
    struct ct_trace_info info;
    struct ct_calltrace_stats stats;
    struct ct_profile *whole_part; /* whole threads                       */
    struct piece **pieces;
    size_t npieces;
    uint64_t load;
    uint32_t *map;          /* local function id -> the trace's           */
    double cpu;             /* CPU seconds its thread spent decoding      */
};

struct par {
    struct ctr_reading *r;           /* the serial reader's state                  */
    struct cursor *cs;
    struct piece *pieces;
    size_t npieces;
    struct worker *w;
    unsigned nw;
    struct ct_profile *profile;
};

static uint64_t block_bytes(const struct block *b)
{
    return b ? b->avail : 0;
}

/* Whether a piece may begin at blocks[i] (i > 0) of a thread. */
static bool may_cut(struct block **bl, uint32_t i)
{
    const struct block *a = bl[i - 1], *b = bl[i];
    return a && b && (a->flags & CT_BLOCK_CLOSED) && a->avail == a->size &&
           !a->lost && b->seq == a->seq + 1 && b->open_depth <= 4096 &&
           b->first == a->last && /* no time between the two pieces */
           !(a->flags & CT_BLOCK_LAST);
}

static void add_piece(struct par *pp, size_t *cap, uint32_t cursor,
                      uint32_t first, uint32_t n, bool whole, uint64_t bytes)
{
    ct_grow(&pp->pieces, cap, pp->npieces, sizeof *pp->pieces);
    pp->pieces[pp->npieces++] = (struct piece){
        .cursor = cursor, .first = first, .n = n, .whole = whole,
        .bytes = bytes};
}

/* Cuts the threads into pieces of about total / jobs bytes. */
static void cut(struct par *pp, size_t ncs, unsigned jobs)
{
    uint64_t total = 0;
    for (size_t i = 0; i < ncs; i++)
        for (uint32_t k = 0; k < pp->cs[i].nblocks; k++)
            total += block_bytes(pp->cs[i].blocks[k]);
    uint64_t target = total / jobs + 1;
    if (target < MIN_PIECE_BYTES)
        target = MIN_PIECE_BYTES;
    /* Tests cut small traces into many pieces with CT_PIECE_BYTES. */
    const char *env = getenv("CT_PIECE_BYTES");
    if (env && *env)
        target = strtoull(env, NULL, 10);
    size_t cap = 0;
    for (size_t i = 0; i < ncs; i++) {
        struct cursor *c = &pp->cs[i];
        uint32_t start = 0;
        uint64_t bytes = 0;
        for (uint32_t k = 0; k < c->nblocks; k++) {
            if (bytes >= target && may_cut(c->blocks, k)) {
                add_piece(pp, &cap, (uint32_t)i, start, k - start, false,
                          bytes);
                start = k;
                bytes = 0;
            }
            bytes += block_bytes(c->blocks[k]);
        }
        add_piece(pp, &cap, (uint32_t)i, start, c->nblocks - start,
                  start == 0, bytes);
    }
}

static int cmp_piece_bytes(const void *a, const void *b)
{
    const struct piece *x = *(struct piece *const *)a;
    const struct piece *y = *(struct piece *const *)b;
    if (x->bytes != y->bytes)
        return x->bytes > y->bytes ? -1 : 1;
    return x < y ? -1 : x > y;
}

/* Largest pieces first, each to the worker with the least work. */
static void assign(struct par *pp)
{
    struct piece **order = ct_xmalloc(pp->npieces * sizeof *order);
    for (size_t i = 0; i < pp->npieces; i++)
        order[i] = &pp->pieces[i];
    qsort(order, pp->npieces, sizeof *order, cmp_piece_bytes);
    for (size_t i = 0; i < pp->npieces; i++) {
        unsigned best = 0;
        for (unsigned k = 1; k < pp->nw; k++)
            if (pp->w[k].load < pp->w[best].load)
                best = k;
        struct worker *w = &pp->w[best];
        order[i]->worker = best;
        w->load += order[i]->bytes;
        w->pieces = ct_xrealloc(w->pieces,
                                (w->npieces + 1) * sizeof *w->pieces);
        w->pieces[w->npieces++] = order[i];
    }
    free(order);
}

static void init_worker(struct par *pp, struct worker *w)
{
    const struct ctr_reading *r = pp->r;
    w->info = *r->info;
    w->info.funcs = ct_functab_new();
    ct_functab_set_libcall_test(w->info.funcs, ct_symbolizer_is_libcall,
                                r->sym);
    w->info.threads =
        ct_xmalloc((r->info->nthreads + 1) * sizeof *w->info.threads);
    memcpy(w->info.threads, r->info->threads,
           r->info->nthreads * sizeof *w->info.threads);
    w->info.threads_cap = r->info->nthreads + 1;
    w->info.switches_lost = 0;
    w->info.stopped[0] = '\0';
    /* Each worker's own, moved into the trace's at the end: a shared one
     * would be grown by several threads at once. */
    w->info.filtered = NULL;
    struct ctr_reading *wr = &w->r;
    wr->in = r->in;
    wr->info = &w->info;
    wr->buf_cap = BATCH;
    wr->buf = ct_xcalloc(BATCH, sizeof *wr->buf);
    wr->sym = r->sym;
    wr->stats = &w->stats;
    wr->worker = true;
    for (size_t i = 0; i < FN_CACHE; i++)
        wr->fn_cache[i].id = CT_FUNC_NONE;
    for (size_t i = 0; i < 256; i++)
        wr->pc_cache[i].id = CT_FUNC_NONE;
    w->whole_part = ct_profile_part_new(pp->profile, &w->info);
}

static void run_piece(struct par *pp, struct worker *w, struct piece *pc)
{
    struct ctr_reading *r = &w->r;
    const struct cursor *tc = &pp->cs[pc->cursor];
    struct cursor c = {
        .state = C_NEXT,
        .thread = tc->thread,
        .blocks = tc->blocks + pc->first,
        .nblocks = pc->n,
        .npeek = pc->first + pc->n < tc->nblocks ? 1 : 0,
        .continued = pc->first > 0,
        .quiet = true,
    };
    struct ct_profile *part = w->whole_part;
    if (!pc->whole) {
        part = pc->part = ct_profile_part_new(pp->profile, &w->info);
        if (c.continued)
            ct_profile_part_resume(part, c.thread, c.blocks[0]->first);
    }
    r->sink = ct_profile_sink(part);
    r->batch = ct_sink_batch(r->sink);
    r->direct = ct_profile_of_sink(r->sink);
    r->stop = false;
    r->inherited = 0;
    r->nopened = 0;
    ctr_run(r, &c, UINT64_MAX);
    ctr_flush(r);
    free(c.iv);
    ctr_cursor_release(&c);
    pc->inherited = r->inherited;
    if (pc->whole)
        return;
    pc->nopened = r->nopened;
    /* The STACK event, and OVERHEAD_START when the block opens with the
     * tracer's work, as the previous block's last record says it does. */
    pc->opened_in_overhead = r->inherited == 2;
    pc->opened = ct_xmalloc((r->nopened + 1) * sizeof *pc->opened);
    if (r->nopened)
        memcpy(pc->opened, r->pcs, r->nopened * sizeof *pc->opened);
    bool last = pc->first + pc->n == tc->nblocks;
    if (!last) {
        size_t depth = ct_profile_part_open(part, c.thread, NULL, 0,
                                            &pc->left_in_overhead);
        uint32_t *ids = ct_xmalloc((depth + 1) * sizeof *ids);
        ct_profile_part_open(part, c.thread, ids, depth,
                             &pc->left_in_overhead);
        pc->left_open = ct_xmalloc((depth + 1) * sizeof *pc->left_open);
        for (size_t i = 0; i < depth; i++)
            pc->left_open[i] = ct_functab_get(w->info.funcs, ids[i])->addr;
        pc->nleft_open = (uint32_t)depth;
        free(ids);
    }
    ct_profile_part_end(part, last);
}

static double thread_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *work(void *arg)
{
    void **a = arg;
    struct par *pp = a[0];
    struct worker *w = a[1];
    double t0 = thread_cpu();
    for (size_t i = 0; i < w->npieces && !w->r.damaged; i++)
        run_piece(pp, w, w->pieces[i]);
    ct_profile_part_end(w->whole_part, true);
    w->cpu += thread_cpu() - t0;
    return NULL;
}

struct first_seen {
    uint64_t time;
    uint32_t worker, id;
};

static int cmp_first_seen(const void *a, const void *b)
{
    const struct first_seen *x = a, *y = b;
    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    if (x->worker != y->worker)
        return x->worker < y->worker ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* The workers' functions into the trace's table, in the order they were
 * first seen, as the serial path numbers them. */
static void map_functions(struct par *pp)
{
    size_t n = 0;
    for (unsigned k = 0; k < pp->nw; k++)
        n += ct_functab_count(pp->w[k].info.funcs);
    struct first_seen *fs = ct_xmalloc((n + 1) * sizeof *fs);
    size_t m = 0;
    for (unsigned k = 0; k < pp->nw; k++) {
        struct worker *w = &pp->w[k];
        uint32_t count = ct_functab_count(w->info.funcs);
        w->map = ct_xmalloc((count + 1) * sizeof *w->map);
        for (uint32_t id = 0; id < count; id++)
            fs[m++] = (struct first_seen){
                id < w->r.first_seen_cap ? w->r.first_seen[id] : UINT64_MAX,
                k, id};
    }
    qsort(fs, m, sizeof *fs, cmp_first_seen);
    for (size_t i = 0; i < m; i++) {
        struct worker *w = &pp->w[fs[i].worker];
        const struct ct_func *f = ct_functab_get(w->info.funcs, fs[i].id);
        w->map[fs[i].id] = ct_functab_intern_addr(pp->r->info->funcs, f->addr);
    }
    free(fs);
}

static int cmp_piece_order(const void *a, const void *b)
{
    const struct piece *x = *(struct piece *const *)a;
    const struct piece *y = *(struct piece *const *)b;
    if (x->cursor != y->cursor)
        return x->cursor < y->cursor ? -1 : 1;
    return x->first < y->first ? -1 : x->first > y->first;
}

/* What the record-time filters left out, as the worker's records said
 * it, into the trace's (its functions numbered as the trace's). */
static void move_filtered(struct ct_trace_info *info, struct worker *w)
{
    struct ct_filtered *f = w->info.filtered;
    if (!f)
        return;
    for (size_t i = 0; i < f->nrules; i++)
        ct_filtered_rules(info, f->rules[i].gen, f->rules[i].text,
                          strlen(f->rules[i].text));
    for (size_t i = 0; i < f->nunmatched; i++)
        ct_filtered_unmatched(info, f->unmatched[i].gen,
                              f->unmatched[i].index);
    for (size_t i = 0; i < f->nleft; i++)
        ct_filtered_left(info, f->left[i].gen, f->left[i].reason,
                         w->map[f->left[i].func], f->left[i].count);
    ct_filtered_free(f);
    w->info.filtered = NULL;
}

static void merge(struct par *pp)
{
    struct ctr_reading *r = pp->r;
    map_functions(pp);
    for (unsigned k = 0; k < pp->nw; k++) {
        struct worker *w = &pp->w[k];
        uint64_t inherited = 0;
        for (size_t i = 0; i < w->npieces; i++)
            if (w->pieces[i]->whole)
                inherited += w->pieces[i]->inherited;
        ct_profile_merge(pp->profile, w->whole_part, w->map, inherited);
    }
    /* A thread's pieces in order: its clock carries over. */
    struct piece **order = ct_xmalloc(pp->npieces * sizeof *order);
    size_t n = 0;
    for (size_t i = 0; i < pp->npieces; i++)
        if (!pp->pieces[i].whole)
            order[n++] = &pp->pieces[i];
    qsort(order, n, sizeof *order, cmp_piece_order);
    for (size_t i = 0; i < n; i++)
        ct_profile_merge(pp->profile, order[i]->part,
                         pp->w[order[i]->worker].map, order[i]->inherited);
    free(order);
    /* What the decoding learnt about the threads and the trace. */
    for (unsigned k = 0; k < pp->nw; k++) {
        struct worker *w = &pp->w[k];
        for (uint32_t t = 0; t < r->info->nthreads; t++) {
            struct ct_thread_info *to = &r->info->threads[t];
            const struct ct_thread_info *from = &w->info.threads[t];
            if (strcmp(to->name, from->name) && from->name[0])
                memcpy(to->name, from->name, sizeof to->name);
            if (from->oncpu != CT_ONCPU_NONE)
                to->oncpu = from->oncpu;
        }
        r->info->switches_lost += w->info.switches_lost;
        move_filtered(r->info, w);
        r->stats->records += w->stats.records;
        r->stats->fused += w->stats.fused;
        r->stats->blocks_decoded += w->stats.blocks_decoded;
    }
}

/* Whether each piece begins with the frames its predecessor left open. */
static bool pieces_agree(struct par *pp)
{
    for (size_t i = 0; i < pp->npieces; i++) {
        const struct piece *a = &pp->pieces[i];
        if (a->whole || a->first + a->n == pp->cs[a->cursor].nblocks)
            continue;
        /* cut() adds a thread's pieces one after another */
        const struct piece *b = &pp->pieces[i + 1];
        if (b->cursor != a->cursor || b->first != a->first + a->n ||
            a->nleft_open != b->nopened ||
            a->left_in_overhead != b->opened_in_overhead ||
            (a->nleft_open && memcmp(a->left_open, b->opened,
                                     a->nleft_open * sizeof *a->left_open)))
            return false;
    }
    return true;
}

static void free_par(struct par *pp)
{
    for (size_t i = 0; i < pp->npieces; i++) {
        ct_profile_free(pp->pieces[i].part);
        free(pp->pieces[i].opened);
        free(pp->pieces[i].left_open);
    }
    for (unsigned k = 0; k < pp->nw; k++) {
        struct worker *w = &pp->w[k];
        ct_profile_free(w->whole_part);
        ct_functab_free(w->info.funcs);
        ct_filtered_free(w->info.filtered);
        free(w->info.threads);
        free(w->r.buf);
        free(w->r.ids);
        free(w->r.pcs);
        free(w->r.first_seen);
        free(w->pieces);
        free(w->map);
    }
    free(pp->w);
    free(pp->pieces);
}

bool ctr_parallel(struct ctr_reading *r, struct cursor *cs, size_t ncs,
                  const struct ct_read_opts *opts, uint32_t file_flags)
{
    if (!opts || !opts->profile || opts->jobs < 2 || opts->have_range ||
        r->generations || (file_flags & CT_FILE_SAMPLED) || !ncs)
        return false;
    struct par pp = {.r = r, .cs = cs, .profile = opts->profile};
    cut(&pp, ncs, opts->jobs);
    if (pp.npieces < 2) {
        free(pp.pieces);
        return false;
    }
    pp.nw = opts->jobs < pp.npieces ? opts->jobs : (unsigned)pp.npieces;
    pp.w = ct_xcalloc(pp.nw, sizeof *pp.w);
    for (unsigned k = 0; k < pp.nw; k++)
        init_worker(&pp, &pp.w[k]);
    assign(&pp);
    void *(*args)[2] = ct_xmalloc(pp.nw * sizeof *args);
    for (unsigned k = 0; k < pp.nw; k++) {
        args[k][0] = &pp;
        args[k][1] = &pp.w[k];
    }
    unsigned started = 0;
    for (unsigned k = 1; k < pp.nw; k++) {
        if (pthread_create(&pp.w[k].tid, NULL, work, args[k]) != 0)
            break;
        started = k;
    }
    work(args[0]);
    /* A worker that could not start does its work here. */
    for (unsigned k = started + 1; k < pp.nw; k++)
        work(args[k]);
    bool damaged = pp.w[0].r.damaged;
    for (unsigned k = 1; k < pp.nw; k++) {
        if (k <= started)
            pthread_join(pp.w[k].tid, NULL);
        damaged |= pp.w[k].r.damaged;
    }
    free(args);
    bool ok = !damaged && pieces_agree(&pp);
    if (ok) {
        merge(&pp);
        r->stats->pieces = pp.npieces;
        /* Tests: the parallel path ran; benchmarks: each worker's CPU
         * time, whose largest bounds the wall time on idle cores. */
        if (getenv("CT_PIECE_BYTES") || getenv("CT_JOBS_TIMES")) {
            fprintf(stderr, "calltrace-report: %zu pieces on %u threads",
                    pp.npieces, pp.nw);
            for (unsigned k = 0; k < pp.nw; k++)
                fprintf(stderr, " %.3f", pp.w[k].cpu);
            fputs(" s\n", stderr);
        }
    }
    free_par(&pp);
    return ok;
}
