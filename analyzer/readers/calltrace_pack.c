/*
 * `calltrace pack` (calltrace_pack.h): a trace rewritten block by block in
 * file order.  Each EVENTS block, closed or not, becomes a PACKED block:
 * its header kept, its records one zstd frame.  Every other block (MAPS,
 * PROFILE, STREAM, a block packed already) is copied as it is, and pages
 * the tracer reserved but never started are left out.  The result goes to
 * a new file in the target's folder, renamed over the target only when
 * whole, so a failure or a kill leaves the target as it was.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "analyzer/readers/calltrace_follow.h"
#include "analyzer/readers/calltrace_pack.h"
#include "analyzer/readers/calltrace_reader.h"
#include "analyzer/readers/reader.h"
#include "analyzer/util.h"

struct pack {
    const char *path;       /* the input, for messages                   */
    const uint8_t *data;
    size_t size;
    FILE *out;
    const char *tmp;
    ZSTD_CCtx *z;
    uint8_t *frame;
    size_t frame_cap;
    struct ctr_pack_stats *st;
    char *err;
    size_t errlen;
};

static int fail(struct pack *p, size_t byte, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(struct pack *p, size_t byte, const char *fmt, ...)
{
    int n = snprintf(p->err, p->errlen, "%s: byte %zu: ", p->path, byte);
    va_list ap;
    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < p->errlen)
        vsnprintf(p->err + n, p->errlen - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

static int put(struct pack *p, const void *b, size_t n)
{
    if (n && fwrite(b, 1, n, p->out) != n)
        return -1;
    p->st->bytes_out += n;
    return 0;
}

static bool all_zero(const uint8_t *q, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (q[i])
            return false;
    return true;
}

/* The PACKED block of block h's records (used bytes) in frame. */
static int put_packed(struct pack *p, const struct ct_block_header *h,
                      size_t used, const uint8_t *frame, size_t zlen,
                      size_t off)
{
    struct ct_block_header ph = ctr_packed_header(h, used, zlen);
    static const uint8_t pad[CT_PACKED_ALIGN];
    if (put(p, &ph, sizeof ph) || put(p, frame, zlen) ||
        put(p, pad, ph.size - CT_BLOCK_HEADER_SIZE - zlen))
        return fail(p, off, "writing %s: %s", p->tmp, strerror(errno));
    p->st->packed++;
    return 0;
}

/* The EVENTS block at off (whole in the file) as a PACKED block. */
static int pack_block(struct pack *p, const struct ct_block_header *h,
                      size_t off)
{
    const uint8_t *rec = p->data + off + CT_BLOCK_HEADER_SIZE;
    size_t cap = h->size - CT_BLOCK_HEADER_SIZE;
    /* A closed block's records end at `used`; an unclosed one's at its
     * first zero head, which no scan from the end can find (a record may
     * end in zero bytes: a call from the same site to the same function
     * as the one before), so the whole block goes in: zstd packs the
     * zeros after it to a few bytes. */
    size_t n = (h->flags & CT_BLOCK_CLOSED) && h->used < cap ? h->used : cap;
    size_t bound = ZSTD_compressBound(n);
    if (bound > p->frame_cap) {
        free(p->frame);
        p->frame_cap = bound;
        p->frame = ct_xmalloc(bound);
    }
    size_t z = ZSTD_compress2(p->z, p->frame, bound, rec, n);
    if (ZSTD_isError(z))
        return fail(p, off, "zstd: %s", ZSTD_getErrorName(z));
    if (CT_BLOCK_HEADER_SIZE + z >= h->size ||
        ctr_packed_header(h, n, z).size >= h->size)
        return -2; /* packs to no less: copied as it is */
    return put_packed(p, h, n, p->frame, z, off);
}

/* A block record --pack moved to the side file while the program ran: its
 * frame from there, under this header (which counts: calltrace_side.c). */
static int moved_block(struct pack *p, const struct ct_block_header *h,
                       size_t off)
{
    uint8_t *frame;
    uint32_t zlen, used;
    if (!ctr_side_frame(p->path, h->tid, h->seq, h->first_ticks, &frame,
                        &zlen, &used))
        return fail(p, off, "a moved block (thread %u, seq %u) is not in "
                    "%s.packed", h->tid, h->seq, p->path);
    int rc = put_packed(p, h, used, frame, zlen, off);
    free(frame);
    return rc;
}

static int copy_block(struct pack *p, size_t off, size_t len)
{
    if (put(p, p->data + off, len))
        return fail(p, off, "writing %s: %s", p->tmp, strerror(errno));
    return 0;
}

/* The blocks after the file header, in file order. */
static int pack_blocks(struct pack *p, size_t off)
{
    while (off < p->size) {
        size_t left = p->size - off;
        const uint8_t *q = p->data + off;
        if (left < CT_BLOCK_HEADER_SIZE)
            return all_zero(q, left) ? 0
                   : fail(p, off, "truncated block header");
        struct ct_block_header h;
        memcpy(&h, q, sizeof h);
        /* As the reader does: a zero header is a page reserved and never
         * started (ctr_index_blocks). */
        if (all_zero(q, CT_BLOCK_HEADER_SIZE)) {
            off += CT_BLOCK_ALIGN;
            continue;
        }
        bool packed = h.kind == CT_BLOCK_PACKED;
        if (!ctr_block_header_ok(&h))
            return fail(p, off, "damaged block header");
        if (left < h.size) /* cut short (a crash, a full disk): as it is */
            return copy_block(p, off, left) ? -1 : (p->st->copied++, 0);
        bool moved = h.kind == CT_BLOCK_EVENTS &&
                     (h.flags & CT_BLOCK_MOVED) && (h.flags & CT_BLOCK_CLOSED);
        int rc = moved ? moved_block(p, &h, off)
                 : h.kind == CT_BLOCK_EVENTS ? pack_block(p, &h, off) : -2;
        if (rc == -1)
            return -1;
        if (rc == -2) {
            if (copy_block(p, off, h.size))
                return -1;
            if (packed)
                p->st->already++;
            else
                p->st->copied++;
        }
        off += h.size;
    }
    return 0;
}

static int check_header(struct pack *p, const struct ct_file_header *fh)
{
    if (p->size < sizeof *fh ||
        memcmp(fh->magic, CT_FILE_MAGIC, CT_FILE_MAGIC_LEN) != 0)
        return fail(p, 0, "not a calltrace trace");
    if (fh->version != CT_FORMAT_VERSION ||
        fh->header_size < sizeof *fh || fh->header_size > p->size ||
        fh->header_size % CT_BLOCK_ALIGN)
        return fail(p, 0, "damaged or unknown file header");
    if (fh->flags & CT_FILE_FLIGHT)
        return fail(p, 0, "a flight recorder's ring is not packed (its "
                          "slots are rewritten in place)");
    /* Its writer would go on in the file the new one replaces, and what it
     * wrote after would be in neither. */
    if (ct_writer_state(fh) == CT_WRITER_RUNNING)
        return fail(p, 0, "still being written by process %u: pack it once "
                          "that process is done (calltrace record --pack "
                          "packs as it runs)", fh->pid);
    return 0;
}

static void unlink_side(const char *trace)
{
    char side[4096];
    snprintf(side, sizeof side, "%s.packed", trace);
    unlink(side);
}

/* A new file beside target, with target's mode when it exists. */
static FILE *open_tmp(const char *target, mode_t mode, char **tmp)
{
    char *copy = ct_xstrdup(target);
    const char *dir = dirname(copy), *base = strrchr(target, '/');
    base = base ? base + 1 : target;
    size_t n = strlen(dir) + strlen(base) + 32;
    *tmp = ct_xmalloc(n);
    snprintf(*tmp, n, "%s/.%s.packing-XXXXXX", dir, base);
    free(copy);
    int fd = mkstemp(*tmp);
    if (fd < 0)
        return NULL;
    (void)fchmod(fd, mode);
    FILE *f = fdopen(fd, "wb");
    if (!f) {
        close(fd);
        unlink(*tmp);
    }
    return f;
}

int ctr_pack_file(const char *in, const char *out, int level,
                  struct ctr_pack_stats *st, char *err, size_t errlen)
{
    memset(st, 0, sizeof *st);
    struct pack p = {.path = in, .st = st, .err = err,
                     .errlen = errlen};
    int fd = open(in, O_RDONLY | O_CLOEXEC);
    struct stat sb;
    if (fd < 0 || fstat(fd, &sb) != 0) {
        snprintf(err, errlen, "%s: %s", in, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    if (!S_ISREG(sb.st_mode)) {
        close(fd);
        snprintf(err, errlen, "%s: not a regular file", in);
        return -1;
    }
    p.size = (size_t)sb.st_size;
    st->bytes_in = p.size;
    p.data = p.size ? ct_map_input(fd, p.size, MAP_PRIVATE) : NULL;
    close(fd);
    if (p.data == MAP_FAILED) {
        snprintf(err, errlen, "%s: %s", in, strerror(errno));
        return -1;
    }
    const struct ct_file_header *fh = (const void *)p.data;
    int rc = check_header(&p, fh);
    char *tmp = NULL;
    const char *target = out ? out : in;
    if (rc == 0) {
        p.out = open_tmp(target, sb.st_mode & 07777, &tmp);
        p.tmp = tmp;
        if (!p.out)
            rc = fail(&p, 0, "a new file beside %s: %s", target,
                      strerror(errno));
    }
    if (rc == 0) {
        p.z = ctr_pack_context(level);
        rc = !p.z ? fail(&p, 0, "zstd: level %d refused", level)
             : copy_block(&p, 0, fh->header_size) ? -1
             : pack_blocks(&p, fh->header_size);
    }
    if (p.out) {
        if (fclose(p.out) != 0 && rc == 0)
            rc = fail(&p, p.size, "writing %s: %s", tmp, strerror(errno));
        if (rc == 0 && rename(tmp, target) != 0)
            rc = fail(&p, 0, "renaming %s to %s: %s", tmp, target,
                      strerror(errno));
        if (rc != 0)
            unlink(tmp);
        else if (target == in)
            unlink_side(in); /* its moved blocks are in the trace now */
    }
    ZSTD_freeCCtx(p.z);
    free(p.frame);
    free(tmp);
    if (p.size)
        munmap((void *)p.data, p.size);
    return rc;
}
