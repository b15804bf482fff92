/*
 * A tiny protocol-buffers encoder for the writers that produce protobuf
 * (perfetto, pprof): varints, fixed and length-delimited fields, and nested
 * messages whose length is patched in when they end, so no message is built
 * twice.  Output accumulates in a growable buffer; the caller writes it out
 * (and may reset it) whenever it likes.
 *
 *     struct pb_buf b = {0};
 *     size_t m = pb_begin(&b, 2);        // field 2, a message
 *     pb_uint(&b, 1, 42);                //   its field 1 = 42
 *     pb_string(&b, 2, "main");          //   its field 2 = "main"
 *     pb_end(&b, m);
 *     fwrite(b.data, 1, b.len, out);
 *     pb_free(&b);
 */
#ifndef CT_PROTOBUF_H
#define CT_PROTOBUF_H

#include <stddef.h>
#include <stdint.h>

enum pb_wire { PB_VARINT = 0, PB_FIXED64 = 1, PB_LEN = 2, PB_FIXED32 = 5 };

struct pb_buf {
    uint8_t *data;
    size_t len, cap;
};

void pb_free(struct pb_buf *b);
void pb_reset(struct pb_buf *b);          /* empty, memory kept           */

void pb_raw(struct pb_buf *b, const void *p, size_t n);
void pb_varint(struct pb_buf *b, uint64_t v);         /* a bare varint   */
void pb_tag(struct pb_buf *b, uint32_t field, enum pb_wire wire);

/* Whole fields. */
void pb_uint(struct pb_buf *b, uint32_t field, uint64_t v);  /* (u)int32/64,
                                                         enum, bool       */
void pb_int(struct pb_buf *b, uint32_t field, int64_t v);    /* int32/64:
                                          negatives take ten bytes        */
void pb_sint(struct pb_buf *b, uint32_t field, int64_t v);   /* sint: zigzag */
void pb_fixed64(struct pb_buf *b, uint32_t field, uint64_t v);
void pb_double(struct pb_buf *b, uint32_t field, double v);
void pb_bytes(struct pb_buf *b, uint32_t field, const void *p, size_t n);
void pb_string(struct pb_buf *b, uint32_t field, const char *s);

/* A nested message (or packed repeated field): pb_begin writes the tag and
 * keeps room for the length; pb_end writes the length of everything added
 * since, moving the body when the length needs more than one byte.  They
 * nest.  Returns/takes a mark, an offset into the buffer. */
size_t pb_begin(struct pb_buf *b, uint32_t field);
void pb_end(struct pb_buf *b, size_t mark);

/* Bytes the varint of v takes (1..10). */
size_t pb_varint_size(uint64_t v);

#endif /* CT_PROTOBUF_H */
