/* The pprof writer: the gzipped profile.proto of a small hand-made trace
 * (main calls a twice, a calls b; tick = 2 ns), inflated and walked field
 * by field: the string table, the sample types and every sample's stack
 * and values. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>
#include <zlib.h>

#include "calltrace_format.h"
#include "analyzer/writers/export.h"
#include "profile_fixture.h"

struct msg {
    const uint8_t *p, *end;
};

/* Next field of m: its number, wire type, and value or bytes. */
static int next_field(struct msg *m, uint32_t *field, uint32_t *wire,
                      uint64_t *v, struct msg *sub)
{
    if (m->p >= m->end)
        return 0;
    uint64_t key;
    assert_int_equal(ct_get_varint(&m->p, m->end, &key), 0);
    *field = (uint32_t)(key >> 3);
    *wire = key & 7;
    assert_int_equal(ct_get_varint(&m->p, m->end, v), 0);
    if (*wire == 2) {
        sub->p = m->p;
        sub->end = m->p + *v;
        assert_true(sub->end <= m->end);
        m->p = sub->end;
    } else {
        assert_int_equal(*wire, 0);
    }
    return 1;
}

static void pprof_exact(void **state)
{
    (void)state;
    struct fx x;
    fx_init(&x);
    x.info.ns_per_tick = 2.0;
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    struct ct_exporter *ex = ct_exporter_new("pprof", out, &x.info, NULL);
    assert_non_null(ex);
    struct ct_sink *keep = x.sink;
    x.sink = &ex->sink;  /* feed the writer with the fixture's helpers */
    FX_CALL(&x, 0, 0, "main");
    FX_CALL(&x, 0, 10, "a");
    FX_CALL(&x, 0, 15, "b");
    FX_POP(&x, 0, 25);
    FX_POP(&x, 0, 30);
    FX_CALL(&x, 0, 40, "a");
    FX_POP(&x, 0, 45);
    FX_POP(&x, 0, 100);
    x.sink = keep;
    assert_int_equal(ex->finish(ex, NULL), 0);
    ex->free(ex);
    fclose(out);
    assert_true(len > 2 && (uint8_t)buf[0] == 0x1f && (uint8_t)buf[1] == 0x8b);

    uint8_t raw[4096];
    uLongf rawlen = sizeof raw;
    z_stream z = {0};
    assert_int_equal(inflateInit2(&z, 15 + 16), Z_OK);
    z.next_in = (uint8_t *)buf;
    z.avail_in = (uInt)len;
    z.next_out = raw;
    z.avail_out = sizeof raw;
    assert_int_equal(inflate(&z, Z_FINISH), Z_STREAM_END);
    rawlen = sizeof raw - z.avail_out;
    inflateEnd(&z);

    const char *strings[32];
    size_t nstr = 0;
    uint64_t types[4][2];
    size_t ntypes = 0;
    /* samples: stack (names' function ids, leaf first) and values */
    uint64_t stacks[8][4], depth[8], vals[8][2];
    size_t nsamples = 0;
    uint64_t fn_name[8] = {0};
    struct msg m = {raw, raw + rawlen}, sub, s2, s3;
    uint32_t f, w, f2, w2;
    uint64_t v, v2;
    while (next_field(&m, &f, &w, &v, &sub)) {
        if (f == 6) {
            char *s = strndup((const char *)sub.p, (size_t)(sub.end - sub.p));
            assert_true(nstr < 32);
            strings[nstr++] = s;
        } else if (f == 1) {
            while (next_field(&sub, &f2, &w2, &v2, &s2))
                types[ntypes][f2 - 1] = v2;
            ntypes++;
        } else if (f == 2) {
            size_t i = nsamples++;
            depth[i] = 0;
            while (next_field(&sub, &f2, &w2, &v2, &s2)) {
                size_t k = 0;
                while (s2.p < s2.end) {
                    uint64_t e;
                    assert_int_equal(ct_get_varint(&s2.p, s2.end, &e), 0);
                    if (f2 == 1)
                        stacks[i][depth[i]++] = e;
                    else
                        vals[i][k++] = e;
                }
            }
        } else if (f == 5) {
            uint64_t id = 0, name = 0;
            while (next_field(&sub, &f2, &w2, &v2, &s3)) {
                if (f2 == 1)
                    id = v2;
                if (f2 == 2)
                    name = v2;
            }
            assert_true(id < 8);
            fn_name[id] = name;
        }
    }
    assert_true(nstr >= 7);
    assert_string_equal(strings[0], "");
    assert_int_equal(ntypes, 2);
    assert_string_equal(strings[types[0][0]], "calls");
    assert_string_equal(strings[types[0][1]], "count");
    assert_string_equal(strings[types[1][0]], "time");
    assert_string_equal(strings[types[1][1]], "nanoseconds");
    /* main (self 100-20-5 = 75 ticks, 150 ns), main;a (10+5 ticks, 2
     * calls), main;a;b (10 ticks, 1 call), in the order first seen */
    assert_int_equal(nsamples, 3);
    const char *want[3][3] = {{"main"}, {"a", "main"}, {"b", "a", "main"}};
    uint64_t want_vals[3][2] = {{1, 150}, {2, 30}, {1, 20}};
    for (size_t i = 0; i < 3; i++) {
        assert_int_equal(depth[i], i + 1);
        for (size_t d = 0; d < depth[i]; d++)
            assert_string_equal(strings[fn_name[stacks[i][d]]], want[i][d]);
        assert_int_equal(vals[i][0], want_vals[i][0]);
        assert_int_equal(vals[i][1], want_vals[i][1]);
    }
    for (size_t i = 0; i < nstr; i++)
        free((char *)strings[i]);
    free(buf);
    fx_free(&x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pprof_exact),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
