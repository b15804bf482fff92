/*
 * The receiver's check of one incoming stream (docs/trace-format.md
 * "Streams"): a file header, then whole blocks.  Pure: bytes in, a verdict
 * out, so that the fuzzer drives it as the receiver does.
 */
#ifndef CT_RECV_PARSE_H
#define CT_RECV_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "calltrace_format.h"

/* Largest block a stream may carry: the tracer's largest block size. */
#define CT_RECV_MAX_BLOCK (1u << 30)

struct ct_recv_parser {
    uint64_t offset;        /* bytes accepted so far                        */
    bool failed;            /* error says why; nothing more is accepted     */
    bool header_done;       /* header holds the stream's file header        */
    bool trailer_seen;      /* the latest block was a TRAILER               */
    uint32_t pid;
    uint64_t blocks;
    uint8_t header[CT_FILE_HEADER_SIZE];
    uint8_t bhead[CT_BLOCK_HEADER_SIZE];
    size_t bhave;           /* bytes of the current block header            */
    uint64_t block_start;   /* offset of the current block                  */
    uint64_t body_left;     /* bytes of the current block after its header  */
    char error[160];
};

void ct_recv_init(struct ct_recv_parser *p);
/* Takes n more bytes.  Returns how many of them are sound (all n unless
 * the parser failed on this call; the rest must not be kept). */
size_t ct_recv_feed(struct ct_recv_parser *p, const uint8_t *buf, size_t n);
/* At the end of the stream: NULL when it ended cleanly (after a TRAILER),
 * else why not, in words. */
const char *ct_recv_end(const struct ct_recv_parser *p);

#endif
