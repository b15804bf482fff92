/*
 * Checking an incoming stream, byte by byte as it arrives (recv_parse.h).
 * Everything a block header says is checked before its body is taken, so
 * an absurd size ends the stream at once rather than after a gigabyte.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "frontend/recv_parse.h"

void ct_recv_init(struct ct_recv_parser *p)
{
    memset(p, 0, sizeof *p);
}

/* Errors name the byte where the bad header starts. */
static size_t fail(struct ct_recv_parser *p, size_t taken, const char *fmt,
                   uint64_t a)
{
    p->failed = true;
    char what[120];
    snprintf(what, sizeof what, fmt, a);
    snprintf(p->error, sizeof p->error, "%s at byte %" PRIu64, what,
             p->header_done ? p->block_start : p->offset);
    return taken;
}

static int check_header(struct ct_recv_parser *p)
{
    const struct ct_file_header *h = (const void *)p->header;
    p->offset = 0;  /* errors name the byte of the header they are in */
    if (memcmp(h->magic, CT_FILE_MAGIC, CT_FILE_MAGIC_LEN) != 0) {
        fail(p, 0, "not a calltrace stream (no CALLTRC magic)%.0" PRIu64, 0);
        return -1;
    }
    p->offset = 8;
    if (h->version == 0 || h->version > CT_FORMAT_VERSION) {
        fail(p, 0, "format version %" PRIu64 " unknown", h->version);
        return -1;
    }
    p->offset = 12;
    if (h->header_size != CT_FILE_HEADER_SIZE) {
        fail(p, 0, "header size %" PRIu64 ", expected 4096", h->header_size);
        return -1;
    }
    p->offset = CT_FILE_HEADER_SIZE;
    p->pid = h->pid;
    p->header_done = true;
    return 0;
}

static int check_block(struct ct_recv_parser *p)
{
    struct ct_block_header b;
    memcpy(&b, p->bhead, sizeof b);
    if (b.magic != CT_BLOCK_MAGIC) {
        fail(p, 0, "bad block magic 0x%08" PRIx64, b.magic);
        return -1;
    }
    if (b.header_size != CT_BLOCK_HEADER_SIZE) {
        fail(p, 0, "block header size %" PRIu64 ", expected 64",
             b.header_size);
        return -1;
    }
    if (b.size < CT_BLOCK_ALIGN || b.size % CT_BLOCK_ALIGN ||
        b.size > CT_RECV_MAX_BLOCK) {
        fail(p, 0, "block size %" PRIu64
             " (expected a multiple of 4096, at most 1G)", b.size);
        return -1;
    }
    if (b.kind == 0 || b.kind > 15) {
        fail(p, 0, "block kind %" PRIu64 " unknown", b.kind);
        return -1;
    }
    if ((b.flags & CT_BLOCK_CLOSED) && b.used > b.size - CT_BLOCK_HEADER_SIZE) {
        fail(p, 0, "block uses %" PRIu64 " bytes, more than its size",
             b.used);
        return -1;
    }
    p->trailer_seen = b.kind == CT_BLOCK_STREAM &&
                      b.reserved == CT_STREAM_TRAILER;
    p->body_left = b.size - CT_BLOCK_HEADER_SIZE;
    p->blocks++;
    return 0;
}

size_t ct_recv_feed(struct ct_recv_parser *p, const uint8_t *buf, size_t n)
{
    size_t i = 0;
    while (i < n && !p->failed) {
        if (!p->header_done) {
            size_t k = CT_FILE_HEADER_SIZE - p->offset;
            if (k > n - i)
                k = n - i;
            memcpy(p->header + p->offset, buf + i, k);
            i += k;
            p->offset += k;
            if (p->offset == CT_FILE_HEADER_SIZE && check_header(p) < 0)
                return 0;  /* nothing of a bad stream is kept */
            continue;
        }
        if (p->body_left) {
            uint64_t k = p->body_left < n - i ? p->body_left : n - i;
            i += k;
            p->offset += k;
            p->body_left -= k;
            continue;
        }
        if (p->bhave == 0)
            p->block_start = p->offset;
        size_t k = CT_BLOCK_HEADER_SIZE - p->bhave;
        if (k > n - i)
            k = n - i;
        memcpy(p->bhead + p->bhave, buf + i, k);
        p->bhave += k;
        if (p->bhave < CT_BLOCK_HEADER_SIZE) {
            i += k;
            p->offset += k;
            continue;
        }
        p->bhave = 0;
        if (check_block(p) < 0)
            return i;  /* the bad header is not kept */
        i += k;
        p->offset += k;
    }
    return p->failed ? i : n;
}

const char *ct_recv_end(const struct ct_recv_parser *p)
{
    if (p->failed)
        return p->error;
    if (!p->header_done)
        return p->offset ? "the stream ended inside its header"
                         : "the stream ended before its header";
    if (p->bhave || p->body_left)
        return "the stream ended inside a block (kept: readable up to the "
               "last complete record)";
    if (!p->trailer_seen)
        return "the stream ended without its trailer (the sender stopped "
               "early: the program is still running, or its sender was "
               "killed)";
    return NULL;
}
