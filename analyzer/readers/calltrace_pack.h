/*
 * `calltrace pack`: a trace rewritten with its EVENTS blocks as PACKED
 * blocks (zstd frames, calltrace_format.h), every other block as it was.
 * Every reader reads the result as it read the original.
 */
#ifndef CT_CALLTRACE_PACK_H
#define CT_CALLTRACE_PACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ctr_pack_stats {
    uint64_t bytes_in, bytes_out;   /* the files' lengths                  */
    uint64_t packed, copied;        /* blocks packed, blocks copied as-is  */
    uint64_t already;               /* blocks that were packed already     */
};

#define CTR_PACK_LEVEL 3            /* zstd's level when none is asked for */

/* Packs the trace at in into out (in itself when out is NULL), through a
 * new file renamed over out only once whole, with zstd at level (1-19).
 * Returns 0, or -1 with one line in err naming the file and the place;
 * out is then left as it was. */
int ctr_pack_file(const char *in, const char *out, int level,
                  struct ctr_pack_stats *st, char *err, size_t errlen);

/* Packing while the program runs (calltrace_livepack.c): the closed
 * blocks of trace moved, packed, into its side file TRACE.packed, a step
 * at a time.  ctr_live_open: NULL when the trace cannot be opened. */
struct ctr_live;
struct ctr_live_stats {
    uint64_t moved;         /* blocks moved to the side file              */
    uint64_t freed;         /* bytes punched out of the trace             */
    uint64_t side_bytes;    /* the side file's length                     */
};
struct ctr_live *ctr_live_open(const char *trace, int level);
/* Moves the blocks closed since the last step; returns how many, or -1
 * once this trace is packed no further while it runs (why in err, the
 * first time, unless it is a trace not to pack live: a flight recorder's
 * ring, a stream, a profile). */
int ctr_live_step(struct ctr_live *l, char *err, size_t errlen);
const struct ctr_live_stats *ctr_live_stats(const struct ctr_live *l);
/* Whether the trace needs no more steps: its writer finished or is gone
 * (its descriptor and buffers are given back then), or packing stopped. */
bool ctr_live_done(const struct ctr_live *l);
void ctr_live_close(struct ctr_live *l);

#endif /* CT_CALLTRACE_PACK_H */
