/*
 * calltrace binary reader: what a stream adds (docs/trace-format.md
 * "Streams").  A trace captured from a connection has the header as it was
 * at the start, blocks trimmed to what they hold, snapshots of blocks that
 * were still open (STREAM PARTIAL) and, at its end, the final header
 * (STREAM TRAILER).
 */
#include <stdlib.h>
#include <string.h>

#include "analyzer/readers/calltrace_reader.h"
#include "analyzer/util.h"

/* The header of the stream's last complete TRAILER, if there is one. */
void ctr_stream_final_header(const struct ct_input *in,
                             struct ct_file_header *h)
{
    if (!(h->flags & CT_FILE_STREAM) || h->header_size > in->size)
        return;
    size_t off = h->header_size;
    while (in->size - off >= CT_BLOCK_HEADER_SIZE) {
        struct ct_block_header b;
        memcpy(&b, in->data + off, sizeof b);
        if (b.magic != CT_BLOCK_MAGIC || b.size < CT_BLOCK_ALIGN ||
            b.size % CT_BLOCK_ALIGN || b.size > in->size - off)
            return;
        if (b.kind == CT_BLOCK_STREAM && b.reserved == CT_STREAM_TRAILER &&
            b.used >= sizeof *h && b.size >= CT_BLOCK_HEADER_SIZE + sizeof *h) {
            struct ct_file_header t;
            memcpy(&t, in->data + off + CT_BLOCK_HEADER_SIZE, sizeof t);
            if (memcmp(t.magic, CT_FILE_MAGIC, CT_FILE_MAGIC_LEN) == 0 &&
                t.header_size == h->header_size)
                *h = t;
        }
        off += b.size;
    }
}

static int cmp_tid_seq_first_off(const void *a, const void *b)
{
    const struct block *x = *(struct block *const *)a;
    const struct block *y = *(struct block *const *)b;
    if (x->tid != y->tid)
        return x->tid < y->tid ? -1 : 1;
    if (x->seq != y->seq)
        return x->seq < y->seq ? -1 : 1;
    if (x->first != y->first)
        return x->first < y->first ? -1 : 1;
    return x->off < y->off ? -1 : x->off > y->off;
}

static uint32_t stream_kind(const struct ct_input *in, const struct block *b)
{
    struct ct_block_header h;
    memcpy(&h, in->data + b->off, sizeof h);
    return h.reserved;
}

/*
 * A PARTIAL snapshot stands for its EVENTS block only when no later block
 * of the same thread and number follows (the stream was cut, or the
 * program is still running); then it reads as an unclosed block.  The
 * same block has the same first_ticks: a later thread that reuses the
 * tid starts again at seq 0 with later ones, and supersedes nothing.
 */
void ctr_stream_resolve(const struct ct_input *in, struct block *blocks,
                        size_t n)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (blocks[i].kind == CT_BLOCK_STREAM &&
            stream_kind(in, &blocks[i]) == CT_STREAM_PARTIAL)
            m++;
    if (!m)
        return;
    struct block **v = ct_xmalloc(n * sizeof *v);
    m = 0;
    for (size_t i = 0; i < n; i++)
        if (blocks[i].kind == CT_BLOCK_EVENTS ||
            (blocks[i].kind == CT_BLOCK_STREAM &&
             stream_kind(in, &blocks[i]) == CT_STREAM_PARTIAL))
            v[m++] = &blocks[i];
    qsort(v, m, sizeof *v, cmp_tid_seq_first_off);
    for (size_t i = 0; i < m; i++) {
        struct block *b = v[i];
        bool last = i + 1 == m || v[i + 1]->tid != b->tid ||
                    v[i + 1]->seq != b->seq || v[i + 1]->first != b->first;
        if (b->kind == CT_BLOCK_STREAM && last) {
            b->kind = CT_BLOCK_EVENTS;
            b->flags &= ~CT_BLOCK_CLOSED;
        }
    }
    free(v);
}
