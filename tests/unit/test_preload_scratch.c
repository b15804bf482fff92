/* The tracer's own memory (scratch.c): zeroed mappings, names kept across
 * chunks and from many threads, and the heapsort that stands in for qsort,
 * checked against qsort on arrays of every small size and on larger ones
 * with many equal keys. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "preload/base/scratch.h"

static void alloc_is_zeroed_and_writable(void **state)
{
    (void)state;
    assert_null(ct_scratch_alloc(0));
    for (size_t bytes = 1; bytes <= (1u << 20); bytes = bytes * 3 + 1) {
        unsigned char *p = ct_scratch_alloc(bytes);
        assert_non_null(p);
        for (size_t i = 0; i < bytes; i++)
            assert_int_equal(p[i], 0);
        memset(p, 0xa5, bytes);
        ct_scratch_free(p, bytes);
    }
    ct_scratch_free(NULL, 100);
}

static void keep_copies_across_chunks(void **state)
{
    (void)state;
    assert_null(ct_scratch_keep(NULL));
    static const char *kept[20000];
    char name[64];
    for (int i = 0; i < 20000; i++) {
        snprintf(name, sizeof name, "function_number_%d", i);
        kept[i] = ct_scratch_keep(name);
        assert_non_null(kept[i]);
        assert_ptr_not_equal(kept[i], name);
    }
    for (int i = 0; i < 20000; i++) {
        snprintf(name, sizeof name, "function_number_%d", i);
        assert_string_equal(kept[i], name);
    }
    /* Longer than a chunk. */
    size_t big = 200000;
    char *s = malloc(big + 1);
    memset(s, 'x', big);
    s[big] = '\0';
    const char *k = ct_scratch_keep(s);
    assert_non_null(k);
    assert_int_equal(strlen(k), big);
    assert_string_equal(ct_scratch_keep(""), "");
    free(s);
}

#define THREADS 4
#define PER_THREAD 5000

static void *keep_many(void *arg)
{
    uintptr_t id = (uintptr_t)arg;
    const char **out = calloc(PER_THREAD, sizeof *out);
    char name[64];
    for (int i = 0; i < PER_THREAD; i++) {
        snprintf(name, sizeof name, "t%u_%d", (unsigned)id, i);
        out[i] = ct_scratch_keep(name);
    }
    return out;
}

static void keep_from_threads(void **state)
{
    (void)state;
    pthread_t t[THREADS];
    for (uintptr_t i = 0; i < THREADS; i++)
        assert_int_equal(pthread_create(&t[i], NULL, keep_many, (void *)i), 0);
    char name[64];
    for (uintptr_t i = 0; i < THREADS; i++) {
        const char **out;
        assert_int_equal(pthread_join(t[i], (void **)&out), 0);
        for (int k = 0; k < PER_THREAD; k++) {
            snprintf(name, sizeof name, "t%u_%d", (unsigned)i, k);
            assert_non_null(out[k]);
            assert_string_equal(out[k], name);
        }
        free(out);
    }
}

struct rec {
    uint64_t key;
    uint32_t payload[3];
};

static int cmp_rec(const void *a, const void *b)
{
    const struct rec *x = a, *y = b;
    return x->key < y->key ? -1 : x->key > y->key;
}

static void check_sort(size_t n, uint64_t key_range, unsigned seed)
{
    struct rec *a = calloc(n ? n : 1, sizeof *a), *b = calloc(n ? n : 1, sizeof *b);
    srand(seed);
    for (size_t i = 0; i < n; i++) {
        a[i].key = (uint64_t)rand() % key_range;
        a[i].payload[0] = (uint32_t)a[i].key * 7u;
    }
    memcpy(b, a, n * sizeof *a);
    ct_sort(a, n, sizeof *a, cmp_rec);
    qsort(b, n, sizeof *b, cmp_rec);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(a[i].key, b[i].key);
        assert_int_equal(a[i].payload[0], (uint32_t)a[i].key * 7u);
    }
    free(a);
    free(b);
}

static void sort_matches_qsort(void **state)
{
    (void)state;
    for (size_t n = 0; n < 70; n++)
        check_sort(n, 1000, (unsigned)n);
    check_sort(10000, 1u << 30, 1);
    check_sort(10000, 3, 2);   /* many equal keys */
    check_sort(4097, 1, 3);    /* all equal */
    /* Already sorted and reversed. */
    struct rec r[500];
    for (int i = 0; i < 500; i++)
        r[i].key = (uint64_t)(500 - i);
    ct_sort(r, 500, sizeof r[0], cmp_rec);
    for (int i = 0; i < 500; i++)
        assert_int_equal(r[i].key, (uint64_t)(i + 1));
    ct_sort(r, 500, sizeof r[0], cmp_rec);
    for (int i = 0; i < 500; i++)
        assert_int_equal(r[i].key, (uint64_t)(i + 1));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(alloc_is_zeroed_and_writable),
        cmocka_unit_test(keep_copies_across_chunks),
        cmocka_unit_test(keep_from_threads),
        cmocka_unit_test(sort_matches_qsort),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
