/* libFuzzer harness: calltrace recv's stream check (frontend/recv_parse.c)
 * on arbitrary bytes, arriving at once and in pieces of every size the
 * input's first byte picks: both must reach the same verdict at the same
 * byte, and no piece may be kept past a failure. */
#include <stdlib.h>
#include <string.h>

#include "frontend/recv_parse.h"

static void verdict(const uint8_t *data, size_t size, size_t piece,
                    struct ct_recv_parser *p, uint64_t *kept)
{
    ct_recv_init(p);
    *kept = 0;
    for (size_t i = 0; i < size && !p->failed; i += piece) {
        size_t n = size - i < piece ? size - i : piece;
        size_t ok = ct_recv_feed(p, data + i, n);
        if (ok > n)
            abort();
        if (!p->failed && ok != n)
            abort();
        *kept += ok;
    }
    const char *why = ct_recv_end(p);
    if (why && !*why)
        abort();
    if (p->failed && !p->error[0])
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct ct_recv_parser whole, pieces;
    if (size == 0)
        return 0;
    size_t piece = 1 + data[0] % 97;
    uint64_t kept_whole, kept_pieces;
    verdict(data + 1, size - 1, size, &whole, &kept_whole);
    verdict(data + 1, size - 1, piece, &pieces, &kept_pieces);
    if (whole.failed != pieces.failed || whole.blocks != pieces.blocks ||
        whole.header_done != pieces.header_done ||
        (whole.failed && strcmp(whole.error, pieces.error) != 0) ||
        (!whole.failed && kept_whole != kept_pieces))
        abort();
    return 0;
}
