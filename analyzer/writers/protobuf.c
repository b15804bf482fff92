/* The protobuf encoder of protobuf.h. */
#include <stdlib.h>
#include <string.h>

#include "analyzer/writers/protobuf.h"
#include "analyzer/util.h"

void pb_free(struct pb_buf *b)
{
    free(b->data);
    *b = (struct pb_buf){0};
}

void pb_reset(struct pb_buf *b)
{
    b->len = 0;
}

static uint8_t *room(struct pb_buf *b, size_t n)
{
    if (b->len + n > b->cap)
        ct_grow(&b->data, &b->cap, b->len + n, 1);
    return b->data + b->len;
}

void pb_raw(struct pb_buf *b, const void *p, size_t n)
{
    if (!n)
        return;
    memcpy(room(b, n), p, n);
    b->len += n;
}

size_t pb_varint_size(uint64_t v)
{
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

static size_t put_varint(uint8_t *p, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        p[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (uint8_t)v;
    return n;
}

void pb_varint(struct pb_buf *b, uint64_t v)
{
    b->len += put_varint(room(b, 10), v);
}

void pb_tag(struct pb_buf *b, uint32_t field, enum pb_wire wire)
{
    pb_varint(b, (uint64_t)field << 3 | (uint64_t)wire);
}

void pb_uint(struct pb_buf *b, uint32_t field, uint64_t v)
{
    pb_tag(b, field, PB_VARINT);
    pb_varint(b, v);
}

void pb_int(struct pb_buf *b, uint32_t field, int64_t v)
{
    pb_uint(b, field, (uint64_t)v);
}

void pb_sint(struct pb_buf *b, uint32_t field, int64_t v)
{
    pb_uint(b, field, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

void pb_fixed64(struct pb_buf *b, uint32_t field, uint64_t v)
{
    pb_tag(b, field, PB_FIXED64);
    uint8_t le[8];
    for (int i = 0; i < 8; i++)
        le[i] = (uint8_t)(v >> (8 * i));
    pb_raw(b, le, 8);
}

void pb_double(struct pb_buf *b, uint32_t field, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    pb_fixed64(b, field, bits);
}

void pb_bytes(struct pb_buf *b, uint32_t field, const void *p, size_t n)
{
    pb_tag(b, field, PB_LEN);
    pb_varint(b, n);
    pb_raw(b, p, n);
}

void pb_string(struct pb_buf *b, uint32_t field, const char *s)
{
    pb_bytes(b, field, s, strlen(s));
}

size_t pb_begin(struct pb_buf *b, uint32_t field)
{
    pb_tag(b, field, PB_LEN);
    *room(b, 1) = 0;    /* most messages are short: one byte of length */
    return b->len++;
}

void pb_end(struct pb_buf *b, size_t mark)
{
    size_t body = b->len - mark - 1;
    size_t n = pb_varint_size(body);
    if (n > 1) {
        room(b, n - 1);
        memmove(b->data + mark + n, b->data + mark + 1, body);
        b->len += n - 1;
    }
    put_varint(b->data + mark, body);
}
