/*
 * calltrace binary reader: a flight recorder's ring (CALLTRACE_FLIGHT,
 * docs/trace-format.md).  The ring is a row of fixed slots after the file
 * header, each holding one block or nothing; the tracer empties a slot
 * header first before it writes a newer block there, so a slot is read by
 * its own header alone and never past its end: what a newer block did not
 * overwrite of an older one is never looked at.  Which blocks are the
 * newest needs no wrap point: each thread's blocks are ordered by their
 * seq, the threads by time, and a thread's older blocks that the ring
 * overwrote are a gap before its first block.  That block opens with a
 * STACK record, so the frames open then are known.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/readers/calltrace_reader.h"
#include "analyzer/util.h"

bool ctr_flight_ring(const struct ct_file_header *fh)
{
    return (fh->flags & CT_FILE_FLIGHT) && fh->flight_slots &&
           fh->flight_slot_size >= CT_BLOCK_ALIGN &&
           fh->flight_slot_size % CT_BLOCK_ALIGN == 0;
}

size_t ctr_index_ring(const struct ct_input *in,
                      const struct ct_file_header *fh, struct block **blocks,
                      size_t *n, size_t *cap)
{
    size_t off = fh->header_size;
    for (uint32_t s = 0; s < fh->flight_slots && off < in->size; s++) {
        size_t slot = fh->flight_slot_size;
        size_t left = in->size - off;
        struct ct_block_header h;
        if (left >= sizeof h) {
            memcpy(&h, in->data + off, sizeof h);
            /* Anything else is a slot never used, or one being emptied
             * for a newer block when the process stopped. */
            if (h.magic == CT_BLOCK_MAGIC &&
                h.header_size == CT_BLOCK_HEADER_SIZE && h.size &&
                h.size % CT_BLOCK_ALIGN == 0 && h.size <= slot &&
                (h.kind == CT_BLOCK_EVENTS || h.kind == CT_BLOCK_MAPS)) {
                ct_grow(blocks, cap, *n, sizeof **blocks);
                (*blocks)[(*n)++] = ctr_block_at(&h, off, left);
            }
        }
        off += slot;
    }
    return off;
}

static void format_span(char *dst, size_t cap, double ns)
{
    if (ns >= 1e9)
        snprintf(dst, cap, "%.3f s", ns / 1e9);
    else if (ns >= 1e6)
        snprintf(dst, cap, "%.3f ms", ns / 1e6);
    else
        snprintf(dst, cap, "%.3f us", ns / 1e3);
}

void ctr_flight_meta(const struct ct_file_header *fh,
                     struct ct_trace_info *info, const struct block *blocks,
                     size_t n)
{
    if (!ctr_flight_ring(fh))
        return;
    /* A thread's blocks before its oldest kept one were overwritten. */
    uint32_t *first_seq = ct_xcalloc(info->nthreads + 1, sizeof *first_seq);
    bool *seen = ct_xcalloc(info->nthreads + 1, sizeof *seen);
    uint64_t oldest = UINT64_MAX, newest = 0;
    for (size_t i = 0; i < n; i++) {
        const struct block *b = &blocks[i];
        if (b->kind != CT_BLOCK_EVENTS || b->thread >= info->nthreads)
            continue;
        if (!seen[b->thread] || b->seq < first_seq[b->thread])
            first_seq[b->thread] = b->seq;
        seen[b->thread] = true;
        if (b->first < oldest)
            oldest = b->first;
        uint64_t end = b->flags & CT_BLOCK_CLOSED ? b->last : b->first;
        if (end > newest)
            newest = end;
    }
    /* The tracer counts what it overwrote; the seqs missing before each
     * thread's first kept block say as much for a trace without the count
     * (all of a thread's blocks gone leave no gap to see). */
    uint64_t overwritten = 0;
    for (uint32_t t = 0; t < info->nthreads; t++)
        overwritten += first_seq[t];
    if (fh->flight_overwritten > overwritten)
        overwritten = fh->flight_overwritten;
    free(first_seq);
    free(seen);
    if ((fh->flags & CT_FILE_FINISHED) && fh->end_ticks > newest)
        newest = fh->end_ticks;

    char size[32], v[256];
    uint64_t kib = (uint64_t)fh->flight_slots * fh->flight_slot_size >> 10;
    if (kib % 1024 == 0)
        snprintf(size, sizeof size, "%" PRIu64 " MiB", kib >> 10);
    else
        snprintf(size, sizeof size, "%" PRIu64 " KiB", kib);
    snprintf(v, sizeof v,
             "ring of %" PRIu32 " blocks, %s; %" PRIu64 " older block%s "
             "overwritten", fh->flight_slots, size, overwritten,
             overwritten == 1 ? "" : "s");
    if (oldest != UINT64_MAX && newest >= oldest && oldest >= fh->start_ticks) {
        char span[32], from[32];
        format_span(span, sizeof span,
                    ct_ticks_to_ns(info, newest - oldest));
        format_span(from, sizeof from,
                    ct_ticks_to_ns(info, oldest - fh->start_ticks));
        size_t len = strlen(v);
        snprintf(v + len, sizeof v - len,
                 "; covers the last %s of the run, from %s after start",
                 span, from);
    }
    ct_trace_add_meta(info, "flight recorder", v);
    if (fh->flags & CT_FILE_SNAPSHOT)
        ct_trace_add_meta(info, "snapshot",
                          "taken while the process ran on (calltrace "
                          "control snapshot or CALLTRACE_FLIGHT_SIGNAL)");
}
