/*
 * Packing while the program runs (`calltrace record --pack`): each closed
 * EVENTS block of a trace is packed into its side file TRACE.packed, then
 * marked MOVED and its pages after the first punched out of the trace, so
 * the disk holds about the packed size of the run so far rather than all
 * of its records (calltrace_side.c says how readers find them).  Only
 * closed blocks are touched, which the tracer never writes again but for a
 * lost count in the header, a page that stays.  The steps keep every
 * record readable at every moment:
 *   1. the frame is written to the side file, then its header: a reader
 *      never meets a header whose frame is not there;
 *   2. the MOVED flag is set in the trace's block header (one 4-byte
 *      write): until then the block is read from the trace, after it from
 *      the side file, both whole;
 *   3. then the pages are punched out.
 * Where the file system cannot punch holes, the first block is left moved
 * and unpunched and packing stops for that trace (nothing would be saved);
 * the final `calltrace pack` still packs it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "analyzer/readers/calltrace_follow.h"
#include "analyzer/readers/calltrace_pack.h"
#include "analyzer/readers/calltrace_reader.h"
#include "analyzer/util.h"

/* Blocks larger than this are left to the final pack (a 1G --bufsize would
 * otherwise take a buffer of that size here). */
#define LIVE_MAX_BLOCK (64u << 20)

struct ctr_live {
    char *path;
    int fd, side;           /* the trace (read-write), its side file      */
    uint64_t scan;          /* next block header to look at; 0 none yet  */
    uint64_t side_end;
    size_t *pending;        /* EVENTS blocks not closed yet               */
    size_t npending, cap;
    ZSTD_CCtx *z;           /* made at the first block to move           */
    int level;
    uint8_t *buf, *frame;
    size_t buf_cap, frame_cap;
    bool stopped;
    bool done;              /* its writer is gone and nothing is left     */
    struct ctr_live_stats st;
};

struct ctr_live *ctr_live_open(const char *trace, int level)
{
    struct ctr_live *l = ct_xcalloc(1, sizeof *l);
    l->path = ct_xstrdup(trace);
    l->fd = open(trace, O_RDWR | O_CLOEXEC);
    l->side = -1;
    l->level = level;
    if (l->fd < 0) {
        ctr_live_close(l);
        return NULL;
    }
    return l;
}

/* zstd's context, made at the first block to move: a process that never
 * fills a block (most in a test suite) costs no more than its descriptor. */
static bool compressor(struct ctr_live *l)
{
    if (l->z)
        return true;
    l->z = ctr_pack_context(l->level);
    return l->z != NULL;
}

void ctr_live_close(struct ctr_live *l)
{
    if (!l)
        return;
    if (l->fd >= 0)
        close(l->fd);
    if (l->side >= 0)
        close(l->side);
    ZSTD_freeCCtx(l->z);
    free(l->pending);
    free(l->buf);
    free(l->frame);
    free(l->path);
    free(l);
}

const struct ctr_live_stats *ctr_live_stats(const struct ctr_live *l)
{
    return &l->st;
}

static int stop(struct ctr_live *l, char *err, size_t errlen,
                const char *why)
{
    if (!l->stopped)
        snprintf(err, errlen, "%s: %s: packed no further while the program "
                 "runs (%s)", l->path, why, strerror(errno));
    l->stopped = true;
    return -1;
}

static bool read_header(struct ctr_live *l, uint64_t off,
                        struct ct_block_header *h)
{
    return pread(l->fd, h, sizeof *h, (off_t)off) == (ssize_t)sizeof *h;
}

static bool grow(uint8_t **b, size_t *cap, size_t need)
{
    if (need <= *cap)
        return true;
    uint8_t *n = realloc(*b, need);
    if (!n)
        return false;
    *b = n;
    *cap = need;
    return true;
}

/* Steps 1 to 3 for the closed block at off: 1 done, 0 left as it is (too
 * large, or not readable now), -1 when packing this trace must stop. */
static int move_block(struct ctr_live *l, uint64_t off, char *err,
                      size_t errlen)
{
    /* Read again once CLOSED is seen: the tracer stores `used` before the
     * flag, and a copy of the header may have taken them in either order. */
    struct ct_block_header h;
    if (!read_header(l, off, &h) || h.size < CT_BLOCK_ALIGN ||
        h.used > h.size - CT_BLOCK_HEADER_SIZE || h.used > LIVE_MAX_BLOCK)
        return 0;
    /* The frame's room, and the padding to CT_PACKED_ALIGN after it. */
    size_t bound = ZSTD_compressBound(h.used);
    if (!compressor(l) || !grow(&l->buf, &l->buf_cap, h.used ? h.used : 1) ||
        !grow(&l->frame, &l->frame_cap, bound + CT_PACKED_ALIGN))
        return 0;
    if (pread(l->fd, l->buf, h.used, (off_t)(off + CT_BLOCK_HEADER_SIZE)) !=
        (ssize_t)h.used)
        return 0;
    size_t z = ZSTD_compress2(l->z, l->frame, bound, l->buf, h.used);
    if (ZSTD_isError(z))
        return 0;
    struct ct_block_header ph = ctr_packed_header(&h, h.used, z);
    size_t whole = ph.size;
    if (whole + CT_BLOCK_ALIGN > h.size)
        return 0; /* nothing to gain */
    if (l->side < 0) {
        char side[4096];
        struct stat st;
        snprintf(side, sizeof side, "%s.packed", l->path);
        mode_t mode = fstat(l->fd, &st) == 0 ? st.st_mode & 0777 : 0600;
        l->side = open(side, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
        if (l->side < 0)
            return stop(l, err, errlen, "no side file");
    }
    /* 1. */
    memset(l->frame + z, 0, whole - CT_BLOCK_HEADER_SIZE - z);
    if (pwrite(l->side, l->frame, whole - CT_BLOCK_HEADER_SIZE,
               (off_t)(l->side_end + CT_BLOCK_HEADER_SIZE)) !=
            (ssize_t)(whole - CT_BLOCK_HEADER_SIZE) ||
        pwrite(l->side, &ph, sizeof ph, (off_t)l->side_end) !=
            (ssize_t)sizeof ph)
        return stop(l, err, errlen, "writing the side file");
    l->side_end += whole;
    /* 2. */
    uint32_t flags = h.flags | CT_BLOCK_MOVED;
    if (pwrite(l->fd, &flags, sizeof flags,
               (off_t)(off + offsetof(struct ct_block_header, flags))) !=
        (ssize_t)sizeof flags)
        return stop(l, err, errlen, "marking a block moved");
    /* 3. */
    if (fallocate(l->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
                  (off_t)(off + CT_BLOCK_ALIGN),
                  (off_t)(h.size - CT_BLOCK_ALIGN)) != 0)
        return stop(l, err, errlen, "its file system punches no holes");
    l->st.moved++;
    l->st.freed += h.size - CT_BLOCK_ALIGN;
    l->st.side_bytes += whole;
    return 1;
}

/* What the block at off is: 1 a closed EVENTS block to move, 2 one still
 * open, 0 any other; -1 no whole header there (yet). */
static int classify(struct ctr_live *l, uint64_t off,
                    struct ct_block_header *h)
{
    if (!read_header(l, off, h))
        return -1;
    if (h->magic == 0)
        return -1;
    /* A header being stored may show some fields before others. */
    if (h->magic != CT_BLOCK_MAGIC || h->header_size != CT_BLOCK_HEADER_SIZE ||
        h->size < CT_BLOCK_ALIGN || h->size % CT_BLOCK_ALIGN)
        return -1;
    if (h->kind != CT_BLOCK_EVENTS || (h->flags & CT_BLOCK_MOVED))
        return 0;
    return (h->flags & CT_BLOCK_CLOSED) ? 1 : 2;
}

/* The file header: where blocks begin, and whether this trace is one to
 * pack while it is written. */
static int start(struct ctr_live *l, char *err, size_t errlen)
{
    struct ct_file_header fh;
    if (pread(l->fd, &fh, sizeof fh, 0) != (ssize_t)sizeof fh ||
        memcmp(fh.magic, CT_FILE_MAGIC, CT_FILE_MAGIC_LEN) != 0)
        return 0; /* not written yet */
    if (fh.version != CT_FORMAT_VERSION || fh.header_size < sizeof fh ||
        fh.header_size % CT_BLOCK_ALIGN) {
        errno = EINVAL;
        return stop(l, err, errlen, "an unknown file header");
    }
    if (fh.flags & (CT_FILE_FLIGHT | CT_FILE_STREAM | CT_FILE_PROFILE)) {
        l->stopped = true; /* rings and tables are rewritten in place */
        return -1;
    }
    l->scan = fh.header_size;
    return 1;
}

/* Whether the trace's writer has finished or is gone, so that no block
 * will close any more (an unclosed one stays so). */
static bool writer_done(struct ctr_live *l)
{
    struct ct_file_header fh;
    return pread(l->fd, &fh, sizeof fh, 0) == (ssize_t)sizeof fh &&
           ct_writer_state(&fh) != CT_WRITER_RUNNING;
}

int ctr_live_step(struct ctr_live *l, char *err, size_t errlen)
{
    if (l->stopped || l->done)
        return -1;
    /* Looked at before the scan: a block closed before the writer ended
     * is then found by this step. */
    bool ending = l->scan && writer_done(l);
    if (!l->scan) {
        int s = start(l, err, errlen);
        if (s <= 0)
            return s;
    }
    int moved = 0;
    /* Blocks seen open before: closed since? */
    size_t kept = 0;
    for (size_t i = 0; i < l->npending; i++) {
        struct ct_block_header h;
        int c = classify(l, l->pending[i], &h);
        if (c == 2) {
            l->pending[kept++] = l->pending[i];
            continue;
        }
        if (c == 1) {
            int r = move_block(l, l->pending[i], err, errlen);
            if (r < 0)
                return -1;
            moved += r;
        }
    }
    l->npending = kept;
    /* New blocks, in file order, up to the first header not stored yet. */
    struct stat st;
    if (fstat(l->fd, &st) != 0)
        return stop(l, err, errlen, "fstat");
    while (l->scan + CT_BLOCK_HEADER_SIZE <= (uint64_t)st.st_size) {
        struct ct_block_header h;
        int c = classify(l, l->scan, &h);
        if (c == -1)
            break; /* looked at again at the next step */
        if (c == 1) {
            int r = move_block(l, l->scan, err, errlen);
            if (r < 0)
                return -1;
            moved += r;
        } else if (c == 2) {
            ct_grow(&l->pending, &l->cap, l->npending, sizeof *l->pending);
            l->pending[l->npending++] = l->scan;
        }
        l->scan += h.size;
    }
    if (ending) {
        /* Nothing more will close: what it holds goes now. */
        l->done = true;
        ZSTD_freeCCtx(l->z);
        l->z = NULL;
        free(l->buf);
        free(l->frame);
        l->buf = l->frame = NULL;
        l->buf_cap = l->frame_cap = 0;
        close(l->fd);
        l->fd = -1;
        if (l->side >= 0)
            close(l->side);
        l->side = -1;
    }
    return moved;
}

bool ctr_live_done(const struct ctr_live *l)
{
    return l->done || l->stopped;
}
