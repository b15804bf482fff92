/*
 * sample_decode: prints the stack samples of a calltrace trace, for the
 * sampling mode's end-to-end tests.  Standalone: it shares only
 * calltrace_format.h with the tracer, so the tests check the bytes.
 *
 *   sample_decode TRACE.raw
 *
 * One line per item, numbers in hex where they are addresses:
 *   H flags=F interval_ns=N pid=P
 *   M base start end path                    (MAPS entry)
 *   S tid weight depth pc0 pc1 ...           (sample, leaf first)
 *   V tid message                            (user event)
 *   C calls=N                                (entry records, at the end)
 * Exit status 0, or 1 when the file cannot be read or is damaged.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calltrace_format.h"

static int bad(const char *what, size_t off)
{
    fprintf(stderr, "sample_decode: %s at byte %zu\n", what, off);
    return 1;
}

static void print_maps(const uint8_t *p, const uint8_t *end)
{
    while (p < end && *p == CT_MAP_OBJECT) {
        uint64_t base, start, stop;
        if (end - p < 26)
            return;
        memcpy(&base, p + 1, 8);
        memcpy(&start, p + 9, 8);
        memcpy(&stop, p + 17, 8);
        p += 25;
        uint8_t idlen = *p++;
        p += idlen;
        if (end - p < 2)
            return;
        uint16_t plen;
        memcpy(&plen, p, 2);
        p += 2;
        if (end - p < plen)
            return;
        printf("M %llx %llx %llx %.*s\n", (unsigned long long)base,
               (unsigned long long)start, (unsigned long long)stop, (int)plen,
               (const char *)p);
        p += plen;
    }
}

/* Returns 0, or -1 when a record runs past the data. */
static int print_events(uint32_t tid, const uint8_t *p, const uint8_t *end,
                        bool prefix, unsigned long *calls)
{
    while (p < end && *p != 0) {
        uint64_t head, a, b;
        if (ct_get_varint(&p, end, &head))
            return -1;
        uint64_t delta;
        switch (ct_head_split(head, prefix, &delta)) {
        case CT_REC_EXIT:
            break;
        case CT_REC_ENTRY:
            if (ct_get_varint(&p, end, &a) || ct_get_varint(&p, end, &b))
                return -1;
            ++*calls;
            break;
        case CT_REC_EXT: {
            if (p >= end)
                return -1;
            uint8_t sub = *p++;
            uint64_t len;
            if (ct_get_varint(&p, end, &len) || len > (uint64_t)(end - p))
                return -1;
            const uint8_t *q = p, *qend = p + len;
            p += len;
            if (sub == CT_EXT_USER) {
                printf("V %u %.*s\n", tid, (int)len, (const char *)q);
            } else if (sub == CT_EXT_SAMPLE || sub == CT_EXT_SAMPLE_OF) {
                uint64_t weight, depth, pc, of = tid;
                /* a sample of thread `of`, written by the sampler's thread */
                if (sub == CT_EXT_SAMPLE_OF && ct_get_varint(&q, qend, &of))
                    return -1;
                if (ct_get_varint(&q, qend, &weight) ||
                    ct_get_varint(&q, qend, &depth) || depth == 0)
                    return -1;
                printf("S %u %llu %llu", (unsigned)of, (unsigned long long)weight,
                       (unsigned long long)depth);
                for (uint64_t i = 0; i < depth; i++) {
                    if (ct_get_varint(&q, qend, &pc))
                        return -1;
                    printf(" %llx", (unsigned long long)pc);
                }
                if (q != qend)
                    return -1;
                printf("\n");
            }
            break;
        }
        default:
            return -1;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: sample_decode TRACE.raw\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *data = size > 0 ? malloc((size_t)size) : NULL;
    if (!data || fread(data, 1, (size_t)size, f) != (size_t)size)
        return bad("cannot read", 0);
    fclose(f);
    if ((size_t)size < CT_FILE_HEADER_SIZE ||
        memcmp(data, CT_FILE_MAGIC, CT_FILE_MAGIC_LEN) != 0)
        return bad("not a calltrace trace", 0);
    struct ct_file_header h;
    memcpy(&h, data, sizeof h);
    printf("H flags=%u interval_ns=%llu pid=%u\n", h.flags,
           (unsigned long long)h.sample_interval_ns, h.pid);

    unsigned long calls = 0;
    size_t off = h.header_size;
    while (off + CT_BLOCK_HEADER_SIZE <= (size_t)size) {
        struct ct_block_header b;
        memcpy(&b, data + off, sizeof b);
        if (b.magic != CT_BLOCK_MAGIC) {  /* reserved, never written */
            off += CT_BLOCK_ALIGN;
            continue;
        }
        if (b.size < CT_BLOCK_HEADER_SIZE || b.size % CT_BLOCK_ALIGN ||
            off + b.size > (size_t)size)
            return bad("bad block size", off);
        const uint8_t *p = data + off + b.header_size;
        const uint8_t *end = data + off + b.size;
        if ((b.flags & CT_BLOCK_CLOSED) && b.used <= b.size - b.header_size)
            end = p + b.used;
        if (b.kind == CT_BLOCK_MAPS)
            print_maps(p, end);
        else if (b.kind == CT_BLOCK_EVENTS &&
                 print_events(b.tid, p, end, h.flags & CT_FILE_HEAD_PREFIX, &calls) != 0)
            return bad("bad record", off);
        off += b.size;
    }
    printf("C calls=%lu\n", calls);
    free(data);
    return 0;
}
