/* The duration histogram: bucket bounds, the stated relative error of its
 * quantiles, exact merging (any split of the values gives the same
 * histogram), and growth over a wide range. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "analyzer/model/histogram.h"

static void buckets(void **state)
{
    (void)state;
    /* exact below 256 */
    for (uint64_t v = 0; v < 256; v++) {
        assert_int_equal(ct_hist_index(v), v);
        assert_int_equal(ct_hist_bucket_low((uint32_t)v), v);
        assert_int_equal(ct_hist_bucket_high((uint32_t)v), v);
    }
    /* every value lies in its bucket; buckets tile the line */
    uint64_t vals[] = {256, 257, 258, 511, 512, 1000, 123456789,
                       1ull << 40, (1ull << 40) + 12345, UINT64_MAX};
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        uint32_t b = ct_hist_index(vals[i]);
        assert_true(b < CT_HIST_BUCKETS);
        assert_true(ct_hist_bucket_low(b) <= vals[i]);
        assert_true(ct_hist_bucket_high(b) >= vals[i]);
        double width = (double)(ct_hist_bucket_high(b) -
                                ct_hist_bucket_low(b) + 1);
        assert_true(width / (double)ct_hist_bucket_low(b) <= 1.0 / 128);
    }
    for (uint32_t b = 255; b + 1 < CT_HIST_BUCKETS; b++)
        assert_true(ct_hist_bucket_high(b) + 1 == ct_hist_bucket_low(b + 1));
    assert_int_equal(ct_hist_bucket_high(CT_HIST_BUCKETS - 1), UINT64_MAX);
}

static uint64_t exact_quantile(const uint64_t *sorted, size_t n,
                               unsigned permille)
{
    size_t rank = (n * permille + 999) / 1000;
    return sorted[(rank ? rank : 1) - 1];
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void quantiles_within_error(void **state)
{
    (void)state;
    enum { N = 5000 };
    uint64_t *v = malloc(N * sizeof *v);
    struct ct_hist h = {0};
    uint64_t x = 88172645463325252ull, sum = 0;
    for (size_t i = 0; i < N; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        v[i] = (x % 1000000) * (1 + i % 7) + 3; /* spread over octaves */
        ct_hist_add(&h, v[i]);
        sum += v[i];
    }
    qsort(v, N, sizeof *v, cmp_u64);
    assert_int_equal(h.count, N);
    assert_int_equal(h.sum, sum);
    assert_int_equal(h.min, v[0]);
    assert_int_equal(h.max, v[N - 1]);
    assert_int_equal(ct_hist_quantile(&h, 0), v[0]);
    assert_int_equal(ct_hist_quantile(&h, 1000), v[N - 1]);
    unsigned qs[] = {1, 100, 250, 500, 900, 990, 999};
    for (size_t i = 0; i < sizeof qs / sizeof qs[0]; i++) {
        double want = (double)exact_quantile(v, N, qs[i]);
        double got = (double)ct_hist_quantile(&h, qs[i]);
        assert_true(got >= want * (1 - CT_HIST_REL_ERROR));
        assert_true(got <= want * (1 + CT_HIST_REL_ERROR));
    }
    ct_hist_free(&h);
    free(v);
}

/* 1..100: the nearest-rank quantiles, exact in the exact range */
static void nearest_rank(void **state)
{
    (void)state;
    struct ct_hist h = {0};
    for (uint64_t i = 100; i >= 1; i--)
        ct_hist_add(&h, i);
    assert_int_equal(ct_hist_quantile(&h, 500), 50);
    assert_int_equal(ct_hist_quantile(&h, 900), 90);
    assert_int_equal(ct_hist_quantile(&h, 990), 99);
    assert_int_equal(ct_hist_quantile(&h, 1000), 100);
    assert_int_equal(h.sum, 5050);
    struct ct_hist empty = {0};
    assert_int_equal(ct_hist_quantile(&empty, 500), 0);
    ct_hist_free(&h);
}

static void same_hist(const struct ct_hist *a, const struct ct_hist *b)
{
    assert_int_equal(a->count, b->count);
    assert_int_equal(a->sum, b->sum);
    assert_int_equal(a->min, b->min);
    assert_int_equal(a->max, b->max);
    for (unsigned q = 0; q <= 1000; q += 7)
        assert_int_equal(ct_hist_quantile(a, q), ct_hist_quantile(b, q));
    for (uint32_t i = 0; i < CT_HIST_BUCKETS; i++) {
        uint64_t ca = i >= a->lo && i < a->lo + a->n ? a->b[i - a->lo] : 0;
        uint64_t cb = i >= b->lo && i < b->lo + b->n ? b->b[i - b->lo] : 0;
        assert_int_equal(ca, cb);
    }
}

static void merge_is_exact(void **state)
{
    (void)state;
    struct ct_hist all = {0}, part[3] = {{0}}, merged = {0};
    uint64_t x = 1234567;
    for (size_t i = 0; i < 3000; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        uint64_t v = (x >> 20) % (i % 3 == 0 ? 100 : i % 3 == 1 ? 1u << 20
                                                              : 1u << 30);
        ct_hist_add(&all, v);
        ct_hist_add(&part[(x >> 7) % 3], v);
    }
    /* in another order, into an empty and into a non-empty histogram */
    ct_hist_merge(&merged, &part[2]);
    ct_hist_merge(&merged, &part[0]);
    ct_hist_merge(&merged, &part[1]);
    struct ct_hist none = {0};
    ct_hist_merge(&merged, &none);
    same_hist(&all, &merged);
    ct_hist_free(&all);
    ct_hist_free(&merged);
    for (int i = 0; i < 3; i++)
        ct_hist_free(&part[i]);
}

/* Memory stays bounded: the whole range fits the fixed bucket count. */
static void wide_range(void **state)
{
    (void)state;
    struct ct_hist h = {0};
    ct_hist_add(&h, 1ull << 62);
    ct_hist_add(&h, 0);
    ct_hist_add(&h, UINT64_MAX);
    assert_true(h.n <= CT_HIST_BUCKETS);
    assert_int_equal(h.sum, UINT64_MAX); /* saturated */
    assert_int_equal(ct_hist_quantile(&h, 1), 0);
    assert_int_equal(ct_hist_quantile(&h, 1000), UINT64_MAX);
    ct_hist_free(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(buckets),
        cmocka_unit_test(quantiles_within_error),
        cmocka_unit_test(nearest_rank),
        cmocka_unit_test(merge_is_exact),
        cmocka_unit_test(wide_range),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
