/*
 * What each candidate record encoding would take per call on a real trace:
 * decodes every EVENTS block of a calltrace trace and adds up, per call,
 * the varint bytes each way of writing a field would need.  Chose the
 * record heads of CT_FILE_HEAD_PREFIX (bench/RESULTS-tracer.md, "Against
 * the floor").  Reads whole-run traces of either head encoding.
 *
 *   cc -O2 -Iinclude -o encoding_sizes bench/encoding_sizes.c
 *   ./encoding_sizes TRACE.raw
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include "calltrace_format.h"

#define DEPTH_MAX (1 << 16)

static unsigned vlen(uint64_t v)
{
    unsigned n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

static uint64_t get(const uint8_t **p)
{
    uint64_t v = 0;
    unsigned s = 0;
    uint8_t b;
    do {
        b = *(*p)++;
        v |= (uint64_t)(b & 0x7f) << s;
        s += 7;
    } while ((b & 0x80) && s < 64);
    return v;
}

enum {
    HEAD_ENTRY, HEAD_EXIT, FN_PREV, SITE_PREV,
    HEAD_EXIT_PREFIX, HEAD_ENTRY_PREFIX,
    SITE_CALLER, SITE_CALLER_UNSIGNED, SITE_BEST_FLAG, SITE_PREV_FN,
    FN_CALLER, FN_LAST_EXITED, FN_SIBLING, N
};
static const char *const names[N] = {
    "head ENTRY, delta << 3 | type (today)",
    "head EXIT, delta << 3 | type (today)",
    "fn - prev_fn (today)",
    "site - prev_site (today)",
    "head EXIT, prefix code: delta << 1 | 1",
    "head ENTRY, prefix code: delta << 2 | 2",
    "site - caller fn (top of the shadow stack), zigzag",
    "site - caller fn, unsigned (+1 flag byte when below)",
    "smaller of site - prev_site, site - caller fn, + 1 bit",
    "site - prev_fn",
    "fn - caller fn",
    "fn - the function that returned last",
    "fn - the caller's previous callee",
};

static uint64_t zz(uint64_t v) { return ct_zigzag((int64_t)v); }

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: encoding_sizes TRACE.raw\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        perror(argv[1]);
        return 2;
    }
    fseek(f, 0, SEEK_END);
    size_t len = (size_t)ftell(f);
    rewind(f);
    uint8_t *buf = malloc(len + 64);
    if (!buf || fread(buf, 1, len, f) != len)
        return 2;
    memset(buf + len, 0, 64);
    const struct ct_file_header *fh = (const void *)buf;
    bool prefix = (fh->flags & CT_FILE_HEAD_PREFIX) != 0;
    static uint64_t stk[DEPTH_MAX], child[DEPTH_MAX + 1];
    double sum[N] = {0};
    uint64_t calls = 0;
    for (size_t off = CT_FILE_HEADER_SIZE; off + CT_BLOCK_HEADER_SIZE <= len;) {
        const struct ct_block_header *b = (const void *)(buf + off);
        if (b->magic != CT_BLOCK_MAGIC || !b->size) {
            off += CT_BLOCK_ALIGN;
            continue;
        }
        if (b->kind != CT_BLOCK_EVENTS || off + b->size > len) {
            off += b->size;
            continue;
        }
        const uint8_t *p = buf + off + CT_BLOCK_HEADER_SIZE;
        const uint8_t *e = p + ((b->flags & CT_BLOCK_CLOSED)
                                    ? b->used : b->size - CT_BLOCK_HEADER_SIZE);
        uint64_t pf = 0, ps = 0, last_exited = 0;
        uint32_t d = 0;
        while (p < e && *p) {
            uint64_t dt, h = get(&p);
            unsigned type = ct_head_split(h, prefix, &dt);
            if (type == CT_REC_EXIT) {
                sum[HEAD_EXIT] += vlen(dt << 3 | 1);
                sum[HEAD_EXIT_PREFIX] += vlen(ct_head(dt, CT_REC_EXIT));
                if (d > 0 && --d < DEPTH_MAX)
                    last_exited = stk[d];
            } else if (type == CT_REC_ENTRY) {
                calls++;
                uint64_t fn = pf + (uint64_t)ct_unzigzag(get(&p));
                uint64_t site = ps + (uint64_t)ct_unzigzag(get(&p));
                uint64_t caller = d > 0 && d <= DEPTH_MAX ? stk[d - 1] : 0;
                sum[HEAD_ENTRY] += vlen(dt << 3 | 2);
                sum[HEAD_ENTRY_PREFIX] += vlen(ct_head(dt, CT_REC_ENTRY));
                sum[FN_PREV] += vlen(zz(fn - pf));
                sum[SITE_PREV] += vlen(zz(site - ps));
                uint64_t by_caller = caller ? zz(site - caller) : zz(site - ps);
                sum[SITE_CALLER] += vlen(by_caller);
                sum[SITE_CALLER_UNSIGNED] += caller && site >= caller
                    ? vlen(site - caller) : vlen(zz(site - ps)) + 1;
                uint64_t a = zz(site - ps) << 1, c = by_caller << 1 | 1;
                sum[SITE_BEST_FLAG] += vlen(a < c ? a : c);
                sum[SITE_PREV_FN] += vlen(zz(site - pf));
                sum[FN_CALLER] += vlen(zz(fn - (caller ? caller : pf)));
                sum[FN_LAST_EXITED] += vlen(zz(fn - (last_exited ? last_exited : pf)));
                uint64_t sib = d < DEPTH_MAX && child[d] ? child[d] : pf;
                sum[FN_SIBLING] += vlen(zz(fn - sib));
                if (d < DEPTH_MAX) {
                    stk[d] = fn;
                    child[d] = fn;
                    child[d + 1] = 0;
                }
                d++;
                pf = fn;
                ps = site;
            } else if (type == CT_REC_EXT) {
                uint8_t sub = *p++;
                uint64_t n = get(&p);
                const uint8_t *q = p;
                if (sub == CT_EXT_STACK) {
                    d = (uint32_t)get(&q);
                    for (uint32_t i = 0; i < d && i < DEPTH_MAX; i++) {
                        stk[i] = get(&q);
                        child[i] = 0;
                    }
                    if (d < DEPTH_MAX)
                        child[d] = 0;
                }
                p += n;
            } else {
                break;
            }
        }
        off += b->size;
    }
    if (!calls)
        return 1;
    printf("%s: %llu calls, heads %s\n", argv[1], (unsigned long long)calls,
           prefix ? "prefix-coded" : "3 type bits");
    for (int i = 0; i < N; i++)
        printf("  %-55s %.3f bytes a call\n", names[i], sum[i] / (double)calls);
    printf("  today's record bytes (the first four)                   %.3f\n",
           (sum[HEAD_ENTRY] + sum[HEAD_EXIT] + sum[FN_PREV] + sum[SITE_PREV]) / (double)calls);
    printf("  with prefix-coded heads                                 %.3f\n",
           (sum[HEAD_ENTRY_PREFIX] + sum[HEAD_EXIT_PREFIX] + sum[FN_PREV] + sum[SITE_PREV]) / (double)calls);
    return 0;
}
