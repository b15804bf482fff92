/*
 * `calltrace pack`: a trace rewritten with its EVENTS blocks as PACKED
 * blocks (zstd frames, calltrace_format.h), every other block as it was.
 * Every reader reads the result as it read the original.
 */
#ifndef CT_CALLTRACE_PACK_H
#define CT_CALLTRACE_PACK_H

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

#endif /* CT_CALLTRACE_PACK_H */
