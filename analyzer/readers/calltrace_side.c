/*
 * A trace's side file (TRACE.packed): while `calltrace record --pack` runs,
 * each closed EVENTS block is packed into the side file, marked MOVED in
 * the trace and its pages after the first punched out, so the disk holds
 * the packed records only (calltrace_pack.c, ctr_live_*).  A MOVED block
 * keeps its header (the one that counts: lost events may be added after
 * the copy) and its records are the side file's PACKED block of the same
 * thread, seq and start.  Once the run is done the pair is packed into one
 * file; a reader that meets the pair (a run still going, a record that was
 * killed) finds the records here.  The side file is indexed once and
 * further as it grows; the lock lets the parallel route's workers share it.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyzer/readers/calltrace_reader.h"
#include "analyzer/util.h"

struct side_entry {
    uint32_t tid, seq;
    uint64_t first;
    uint64_t off;           /* of the PACKED block's header in the side   */
    uint32_t zlen, used;
};

static struct {
    pthread_mutex_t lock;
    char *path;             /* the side file indexed, NULL none           */
    int fd;
    struct side_entry *e;
    size_t n, cap;
    uint64_t scanned;       /* bytes of it indexed                        */
} side = {.lock = PTHREAD_MUTEX_INITIALIZER, .fd = -1};

/* Indexes the side file's blocks past `scanned` (it may have grown). */
static void scan_more(void)
{
    for (;;) {
        struct ct_block_header h;
        ssize_t n = pread(side.fd, &h, sizeof h, (off_t)side.scanned);
        if (n != (ssize_t)sizeof h || h.magic != CT_BLOCK_MAGIC ||
            h.kind != CT_BLOCK_PACKED || h.header_size != CT_BLOCK_HEADER_SIZE ||
            !ctr_packed_header_ok(&h))
            return; /* the end, or a block still being written */
        ct_grow(&side.e, &side.cap, side.n, sizeof *side.e);
        side.e[side.n++] = (struct side_entry){
            .tid = h.tid, .seq = h.seq, .first = h.first_ticks,
            .off = side.scanned, .zlen = h.reserved, .used = h.used};
        side.scanned += h.size;
    }
}

/* The side file of trace (opened and indexed when it is another one's).
 * A snapshot (TRACE.snapN, calltrace control PID snapshot) copies the
 * trace's MOVED blocks as they are: their records are in TRACE's side
 * file. */
static void side_name(const char *trace, char *want, size_t cap)
{
    snprintf(want, cap, "%s.packed", trace);
    const char *base = strrchr(trace, '/');
    const char *snap = strstr(base ? base : trace, ".snap");
    if (snap && access(want, F_OK) != 0)
        snprintf(want, cap, "%.*s.packed", (int)(snap - trace), trace);
}

bool ctr_side_present(const char *trace)
{
    char want[4096];
    side_name(trace, want, sizeof want);
    return access(want, F_OK) == 0;
}

static bool side_open(const char *trace)
{
    char want[4096];
    side_name(trace, want, sizeof want);
    if (side.path && strcmp(side.path, want) == 0)
        return true;
    if (side.fd >= 0)
        close(side.fd);
    free(side.path);
    side.path = NULL;
    side.n = 0;
    side.scanned = 0;
    side.fd = open(want, O_RDONLY | O_CLOEXEC);
    if (side.fd < 0)
        return false;
    side.path = ct_xstrdup(want);
    return true;
}

static const struct side_entry *side_find(uint32_t tid, uint32_t seq,
                                          uint64_t first)
{
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = side.n; i-- > 0;)
            if (side.e[i].tid == tid && side.e[i].seq == seq &&
                side.e[i].first == first)
                return &side.e[i];
        if (pass == 0)
            scan_more();
    }
    return NULL;
}

bool ctr_side_frame(const char *trace, uint32_t tid, uint32_t seq,
                    uint64_t first, uint8_t **frame, uint32_t *zlen,
                    uint32_t *used)
{
    pthread_mutex_lock(&side.lock);
    const struct side_entry *e = side_open(trace)
                                     ? side_find(tid, seq, first) : NULL;
    bool ok = false;
    if (e) {
        *frame = ct_xmalloc(e->zlen ? e->zlen : 1);
        *zlen = e->zlen;
        *used = e->used;
        ok = pread(side.fd, *frame, e->zlen,
                   (off_t)(e->off + CT_BLOCK_HEADER_SIZE)) == (ssize_t)e->zlen;
        if (!ok)
            free(*frame);
    }
    pthread_mutex_unlock(&side.lock);
    return ok;
}

const uint8_t *ctr_side_payload(const char *trace, const struct block *b,
                                struct ctr_unpacked *u, size_t *len)
{
    *len = 0;
    if (u->off == b->off && u->buf) {
        *len = u->len;
        return u->buf;
    }
    uint8_t *frame;
    uint32_t zlen, used;
    if (!ctr_side_frame(trace, b->tid, b->seq, b->first, &frame, &zlen,
                        &used))
        return NULL;
    const uint8_t *rec = ctr_unpack_into(u, b->off, frame, zlen, used, len);
    free(frame);
    return rec;
}
