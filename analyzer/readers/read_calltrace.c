/*
 * Reader for calltrace's own binary traces (include/calltrace_format.h).
 *
 * Two passes over the mapped file.  The first reads block headers only,
 * builds a small per-block index and loads the MAPS blocks into the
 * symbolizer.  The second decodes each thread's EVENTS blocks in seq order;
 * the threads are merged by time so that every sink (--dump especially)
 * sees one time-ordered stream without buffering.  With --time-range the
 * index tells which blocks lie before the window; they are never decoded.
 * Memory grows with the number of blocks, never with the number of events.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/readers/calltrace_reader.h"
#include "analyzer/model/profile.h"
#include "analyzer/util.h"

struct ct_calltrace_stats ct_calltrace_stats;

/* --- symbolizers live as long as the process: names resolve lazily, after
 * the read returns, and ct_trace_info has no hook to release them. ------ */

static struct ct_symbolizer **symbolizers;
static size_t nsymbolizers, symbolizers_cap;

static void free_symbolizers(void)
{
    for (size_t i = 0; i < nsymbolizers; i++)
        ct_symbolizer_free(symbolizers[i]);
    free(symbolizers);
    symbolizers = NULL;
    nsymbolizers = symbolizers_cap = 0;
}

static struct ct_symbolizer *new_symbolizer(void)
{
    if (!symbolizers_cap)
        atexit(free_symbolizers);
    ct_grow(&symbolizers, &symbolizers_cap, nsymbolizers,
            sizeof *symbolizers);
    return symbolizers[nsymbolizers++] = ct_symbolizer_new();
}

/* --- the blocks a --time-range needs ------------------------------------- */

/* Narrows [*lo, *hi) of one thread's seq-ordered blocks to the window. */
static void range_blocks(struct block **bl, uint32_t *lo, uint32_t *hi,
                         uint64_t from, uint64_t to)
{
    uint32_t i = *lo;
    for (; i < *hi; i++) {
        /* An unclosed block ends no later than the next one begins. */
        uint64_t last = bl[i]->flags & CT_BLOCK_CLOSED ? bl[i]->last
                        : i + 1 < *hi                  ? bl[i + 1]->first
                                                       : UINT64_MAX;
        if (last >= from)
            break;
    }
    *lo = i;
    for (; i < *hi; i++)
        if (bl[i]->first > to) {
            i++; /* one block past the window shows time going on */
            break;
        }
    *hi = i;
}

static uint64_t ns_to_ticks(double ns_per_tick, int64_t ns, bool round_up)
{
    if (ns <= 0)
        return 0;
    double t = (double)ns / ns_per_tick;
    if (t >= 1.8e19)
        return UINT64_MAX;
    uint64_t v = (uint64_t)t;
    return round_up ? v + 1 : v;
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
    return a + b < a ? UINT64_MAX : a + b;
}

/* --- the reader ------------------------------------------------------------ */

static int read_calltrace(const struct ct_input *in,
                          struct ct_trace_info *info, struct ct_sink *sink,
                          const struct ct_read_opts *opts)
{
    memset(&ct_calltrace_stats, 0, sizeof ct_calltrace_stats);
    struct ct_file_header h;
    int status = ctr_read_header(in, info, &h);
    if (status != CT_EXIT_OK)
        return status;

    size_t nblocks;
    struct block *blocks = ctr_index_blocks(in, info, &h, &nblocks);
    ctr_live_trim(in, &h, blocks, nblocks);

    struct ctr_reading *r = ct_xcalloc(1, sizeof *r);
    r->in = in;
    r->info = info;
    r->sink = sink;
    r->stats = &ct_calltrace_stats;
    r->batch = ct_sink_batch(sink);
    r->direct = ct_profile_of_sink(sink);
    r->buf_cap = r->batch ? BATCH : 1;
    r->buf = ct_xcalloc(r->buf_cap, sizeof *r->buf);
    r->sym = new_symbolizer();
    for (size_t i = 0; i < FN_CACHE; i++)
        r->fn_cache[i].id = CT_FUNC_NONE;
    for (size_t i = 0; i < 256; i++)
        r->pc_cache[i].id = CT_FUNC_NONE;

    /* Loaded objects, oldest view first: later ones win where no time
     * is known, and each is a snapshot of its time (symbolize.h). */
    struct block **order = ct_xmalloc((nblocks + 1) * sizeof *order);
    size_t nmaps = 0, nev = 0;
    for (size_t i = 0; i < nblocks; i++)
        if (blocks[i].kind == CT_BLOCK_MAPS)
            order[nmaps++] = &blocks[i];
    qsort(order, nmaps, sizeof *order, ctr_cmp_maps_time);
    for (size_t i = 0; i < nmaps; i++)
        ctr_read_maps(r->sym, in, order[i]);
    r->generations = ct_symbolizer_has_generations(r->sym);
    ct_functab_set_resolver(info->funcs, ct_symbolizer_resolve, r->sym);
    ct_functab_set_libcall_test(info->funcs, ct_symbolizer_is_libcall, r->sym);
    info->pc_line = ct_symbolizer_line;   /* samples' lines, for --by-line */
    info->pc_line_ctx = r->sym;
    info->addr_name = ct_symbolizer_name_at;  /* &callback among values */
    info->addr_name_ctx = r->sym;

    ctr_register_threads(info, blocks, nblocks);
    ctr_profile_threads(info, blocks, nblocks);
    ctr_sample_tids(r, blocks, nblocks);
    ctr_flight_meta(&h, info, blocks, nblocks);
    uint64_t lost = 0;
    for (size_t i = 0; i < nblocks; i++)
        if (blocks[i].kind == CT_BLOCK_EVENTS) {
            order[nev++] = &blocks[i];
            lost = ct_sat_add(lost, blocks[i].lost);
        }
    info->lost_events = h.lost > lost ? h.lost : lost;
    qsort(order, nev, sizeof *order, ctr_cmp_thread_seq);

    /* One cursor per thread, over its blocks without duplicate seqs. */
    struct cursor *cs = ct_xcalloc(info->nthreads + 1, sizeof *cs);
    size_t ncs = 0;
    uint64_t first = UINT64_MAX;
    for (size_t i = 0; i < nev;) {
        size_t j = i, k = i;
        for (; j < nev && order[j]->thread == order[i]->thread; j++)
            if (j == i || order[j]->seq != order[k - 1]->seq)
                order[k++] = order[j];
        struct cursor *c = &cs[ncs++];
        c->thread = order[i]->thread;
        c->blocks = &order[i];
        c->nblocks = (uint32_t)(k - i);
        c->state = C_NEXT;
        uint64_t t = ctr_first_record_time(in, order[i]);
        if (t < first)
            first = t;
        /* Blocks dropped as duplicates leave holes that are never read. */
        for (; k < j; k++)
            order[k] = NULL;
        i = j;
    }
    if (first != UINT64_MAX) {
        info->have_first_time = true;
        info->first_time = first;
    }

    if (opts && opts->have_range && first != UINT64_MAX) {
        uint64_t from = add_sat(first, ns_to_ticks(info->ns_per_tick,
                                                   opts->range_from_ns, false));
        uint64_t to = opts->range_to_ns == INT64_MAX
                          ? UINT64_MAX
                          : add_sat(first, ns_to_ticks(info->ns_per_tick,
                                                       opts->range_to_ns,
                                                       true));
        for (size_t i = 0; i < ncs; i++) {
            uint32_t lo = 0, hi = cs[i].nblocks;
            range_blocks(cs[i].blocks, &lo, &hi, from, to);
            cs[i].blocks += lo;
            cs[i].nblocks = hi - lo;
        }
    }

    if (!ctr_parallel(r, cs, ncs, opts, h.flags)) {
        ctr_merge(r, cs, ncs);
        ctr_flush(r);
    }
    ctr_profile_read(r, blocks, nblocks, &h);

    /* Benchmarks: how much of the trace a --time-range decoded. */
    if (getenv("CT_READ_STATS"))
        fprintf(stderr, "calltrace-report: %" PRIu64 " blocks, %" PRIu64
                " decoded, %" PRIu64 " records (%" PRIu64 " fused)\n",
                ct_calltrace_stats.blocks, ct_calltrace_stats.blocks_decoded,
                ct_calltrace_stats.records, ct_calltrace_stats.fused);
    for (size_t i = 0; i < ncs; i++) {
        free(cs[i].iv);
        free(cs[i].lanes);
        ctr_cursor_release(&cs[i]);
    }
    free(cs);
    free(order);
    free(blocks);
    free(r->ids);
    free(r->pcs);
    free(r->tids);
    free(r->buf);
    free(r);
    return info->stopped[0] ? CT_EXIT_BAD_INPUT : CT_EXIT_OK;
}

const struct ct_reader ct_reader_calltrace = {
    "calltrace",
    "calltrace's own binary trace (LD_PRELOAD=libcalltrace.so)",
    ctr_probe,
    read_calltrace,
};
