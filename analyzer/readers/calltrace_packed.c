/*
 * PACKED blocks (calltrace_format.h): an EVENTS block's records as one
 * zstd frame, written by `calltrace pack`.  Every reader takes a block's
 * records through ctr_payload, which hands out the mapped bytes of a plain
 * block and unpacks a packed one into a buffer the caller keeps, so the
 * decoders never see the difference.  Only the blocks being read are
 * unpacked: a trace is never unpacked whole into memory.
 */
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "analyzer/readers/calltrace_reader.h"
#include "analyzer/util.h"

/* Whether a packed block's header is whole: its frame inside its size. */
bool ctr_packed_header_ok(const struct ct_block_header *h)
{
    return h->size % CT_PACKED_ALIGN == 0 &&
           h->size >= CT_BLOCK_HEADER_SIZE &&
           h->reserved <= h->size - CT_BLOCK_HEADER_SIZE;
}

struct ct_block_header ctr_packed_header(const struct ct_block_header *h,
                                         size_t used, size_t zlen)
{
    struct ct_block_header ph = *h;
    size_t whole = CT_BLOCK_HEADER_SIZE + zlen;
    ph.kind = CT_BLOCK_PACKED;
    ph.flags &= ~CT_BLOCK_MOVED;
    ph.size = (uint32_t)((whole + CT_PACKED_ALIGN - 1) / CT_PACKED_ALIGN *
                         CT_PACKED_ALIGN);
    ph.used = (uint32_t)used;
    ph.reserved = (uint32_t)zlen;
    return ph;
}

ZSTD_CCtx *ctr_pack_context(int level)
{
    ZSTD_CCtx *z = ZSTD_createCCtx();
    if (z && (ZSTD_isError(ZSTD_CCtx_setParameter(z, ZSTD_c_compressionLevel,
                                                  level)) ||
              ZSTD_isError(ZSTD_CCtx_setParameter(z, ZSTD_c_checksumFlag,
                                                  1)))) {
        ZSTD_freeCCtx(z);
        z = NULL;
    }
    return z;
}

/* Room for n bytes of records in u's buffer: what it held is gone, so it
 * names no block until it is filled. */
static void room_for(struct ctr_unpacked *u, size_t n)
{
    u->off = 0;
    if (u->cap < n) {
        free(u->buf);
        u->cap = n;
        u->buf = ct_xmalloc(u->cap ? u->cap : 1);
    }
}

const uint8_t *ctr_payload(const struct ct_input *in, const struct block *b,
                           struct ctr_unpacked *u, size_t *len,
                           bool *partial_ok)
{
    const uint8_t *data = in->data + b->off + CT_BLOCK_HEADER_SIZE;
    if (b->moved) {
        *partial_ok = false;
        return ctr_side_payload(in->path, b, u, len);
    }
    if (!b->packed) {
        *len = ctr_payload_len(b, partial_ok);
        if (!b->may_move)
            return data;
        /* The live packer writes the block to the side file, then sets
         * MOVED in its header (whose page stays), then frees its other
         * pages.  A copy of the records followed by a header still without
         * MOVED was taken before the pages went; else the side file has
         * them. */
        if (u->off == b->off) {
            *len = u->len;
            return u->buf;
        }
        room_for(u, *len);
        memcpy(u->buf, data, *len);
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        const struct ct_block_header *h =
            (const struct ct_block_header *)(in->data + b->off);
        if (__atomic_load_n(&h->flags, __ATOMIC_RELAXED) & CT_BLOCK_MOVED) {
            *partial_ok = false;
            return ctr_side_payload(in->path, b, u, len);
        }
        u->off = b->off;
        u->len = *len;
        return u->buf;
    }
    /* An unclosed block's records end at a zero head or inside a record
     * cut short, as they did before it was packed. */
    *partial_ok = !(b->flags & CT_BLOCK_CLOSED);
    *len = 0;
    if (u->off == b->off) {
        *len = u->len;
        return u->buf;
    }
    if (b->avail < b->size)
        return NULL; /* cut: the frame is not all there */
    return ctr_unpack_into(u, b->off, data, b->zlen, b->used, len);
}

const uint8_t *ctr_unpack_into(struct ctr_unpacked *u, size_t off,
                               const uint8_t *frame, size_t zlen,
                               size_t used, size_t *len)
{
    *len = 0;
    room_for(u, used);
    /* One context for all the blocks u unpacks: made once, not per call. */
    if (!u->dctx && !(u->dctx = ZSTD_createDCtx()))
        return NULL;
    size_t n = ZSTD_decompressDCtx(u->dctx, u->buf, used, frame, zlen);
    if (ZSTD_isError(n) || n != used)
        return NULL;
    u->off = off;
    u->len = n;
    *len = n;
    return u->buf;
}

void ctr_unpacked_free(struct ctr_unpacked *u)
{
    free(u->buf);
    ZSTD_freeDCtx(u->dctx);
    memset(u, 0, sizeof *u);
}

const uint8_t *ctr_cursor_payload(const struct ct_input *in, struct cursor *c,
                                  const struct block *b, size_t *len,
                                  bool *partial_ok)
{
    /* The slot that holds b, else the one not holding the current block. */
    struct ctr_unpacked *u = &c->unpacked[0];
    size_t cur = c->cur ? c->cur->off : 0;
    if (c->unpacked[1].off == b->off ||
        (c->unpacked[0].off != b->off && c->unpacked[0].off == cur &&
         cur != b->off))
        u = &c->unpacked[1];
    return ctr_payload(in, b, u, len, partial_ok);
}

void ctr_cursor_release(struct cursor *c)
{
    ctr_unpacked_free(&c->unpacked[0]);
    ctr_unpacked_free(&c->unpacked[1]);
}
