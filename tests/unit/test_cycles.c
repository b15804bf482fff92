/* Cycles: Tarjan on hand-made graphs, gprof's numbering, and the time of
 * a cycle charged to the arcs that enter it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "profile_fixture.h"
#include "analyzer/model/profile_private.h"

/* Builds CSR adjacency from an edge list. */
static uint32_t scc(uint32_t n, const uint32_t (*edges)[2], size_t ne,
                    uint32_t *comp)
{
    uint32_t *off = calloc(n + 1, sizeof *off);
    uint32_t *succ = calloc(ne + 1, sizeof *succ);
    for (size_t i = 0; i < ne; i++)
        off[edges[i][0] + 1]++;
    for (uint32_t i = 0; i < n; i++)
        off[i + 1] += off[i];
    uint32_t *fill = calloc(n + 1, sizeof *fill);
    for (size_t i = 0; i < ne; i++)
        succ[off[edges[i][0]] + fill[edges[i][0]]++] = edges[i][1];
    uint32_t k = ct_scc(n, off, succ, comp);
    free(off);
    free(succ);
    free(fill);
    return k;
}

static void tarjan_small_graph(void **state)
{
    (void)state;
    /* 0->1->2->0 is a cycle; 3->4, 4->4 (self loop), 2->3; 5 alone;
     * 6<->7 a second cycle reached from 4. */
    const uint32_t e[][2] = {{0, 1}, {1, 2}, {2, 0}, {2, 3}, {3, 4},
                             {4, 4}, {4, 6}, {6, 7}, {7, 6}};
    uint32_t comp[8];
    uint32_t k = scc(8, e, sizeof e / sizeof e[0], comp);
    assert_int_equal(k, 5);
    assert_int_equal(comp[0], comp[1]);
    assert_int_equal(comp[1], comp[2]);
    assert_int_equal(comp[6], comp[7]);
    assert_int_not_equal(comp[3], comp[4]);
    assert_int_not_equal(comp[0], comp[3]);
    assert_int_not_equal(comp[5], comp[0]);
    assert_int_not_equal(comp[6], comp[4]);
    /* Tarjan completes components in reverse topological order. */
    assert_true(comp[6] < comp[4]);
    assert_true(comp[4] < comp[3]);
    assert_true(comp[3] < comp[0]);
}

/* A ring of 200000 nodes: the recursive algorithm would need as many
 * C stack frames. */
static void tarjan_deep_ring(void **state)
{
    (void)state;
    const uint32_t n = 200000;
    uint32_t (*e)[2] = malloc(n * sizeof *e);
    for (uint32_t i = 0; i < n; i++) {
        e[i][0] = i;
        e[i][1] = (i + 1) % n;
    }
    uint32_t *comp = malloc(n * sizeof *comp);
    assert_int_equal(scc(n, (const uint32_t(*)[2])e, n, comp), 1);
    e[n - 1][1] = n - 1; /* break the ring: a chain, n components */
    assert_int_equal(scc(n, (const uint32_t(*)[2])e, n, comp), n);
    free(e);
    free(comp);
}

/* main -> a -> b -> a -> b -> leaf; main -> x -> y -> x. */
static void cycles_in_profile(void **state)
{
    (void)state;
    struct fx x;
    fx_init(&x);
    fx_fn(&x, "main");
    fx_fn(&x, "x"); /* interned before a: cycle {x, y} is number 1 */
    FX_CALL(&x, 0, 0, "main");
    FX_CALL(&x, 0, 10, "a");
    FX_CALL(&x, 0, 20, "b");
    FX_CALL(&x, 0, 30, "a");
    FX_CALL(&x, 0, 40, "b");
    FX_CALL(&x, 0, 50, "leaf");
    FX_RET(&x, 0, 60, "leaf");
    FX_RET(&x, 0, 70, "b");
    FX_RET(&x, 0, 80, "a");
    FX_RET(&x, 0, 90, "b");
    FX_RET(&x, 0, 100, "a");
    FX_CALL(&x, 0, 110, "x");
    FX_CALL(&x, 0, 115, "y");
    FX_CALL(&x, 0, 120, "x");
    FX_RET(&x, 0, 130, "x");
    FX_RET(&x, 0, 135, "y");
    FX_RET(&x, 0, 140, "x");
    FX_RET(&x, 0, 150, "main");
    ct_profile_finish(x.p);
    assert_int_equal(x.p->ncycles, 2);
    assert_int_equal(fx_f(&x, "x")->cycle, 1);
    assert_int_equal(fx_f(&x, "y")->cycle, 1);
    assert_int_equal(fx_f(&x, "a")->cycle, 2);
    assert_int_equal(fx_f(&x, "b")->cycle, 2);
    assert_int_equal(fx_f(&x, "main")->cycle, 0);
    assert_int_equal(fx_f(&x, "leaf")->cycle, 0);
    /* a: 10..20, 30..40, 70..80, 90..100; b: 20..30, 40..50, 60..70,
     * 80..90 */
    assert_int_equal(fx_f(&x, "a")->self_ticks, 40);
    assert_int_equal(fx_f(&x, "b")->self_ticks, 40);
    /* the arc entering cycle 2 carries the whole cycle */
    const struct ct_arc *in = fx_arc(&x, "main", "a");
    assert_int_equal(in->self_ticks, 80);
    assert_int_equal(in->child_ticks, 10);
    /* arcs inside carry counts only */
    assert_int_equal(fx_arc(&x, "a", "b")->count, 2);
    assert_int_equal(fx_arc(&x, "a", "b")->self_ticks, 0);
    assert_int_equal(fx_arc(&x, "b", "a")->child_ticks, 0);
    /* members' children: only what leaves the cycle */
    assert_int_equal(fx_f(&x, "b")->child_ticks, 10);
    assert_int_equal(fx_f(&x, "a")->child_ticks, 0);
    assert_int_equal(fx_arc(&x, "b", "leaf")->self_ticks, 10);
    /* cycle 1: x 110..115, 120..130, 135..140 = 20; y 115..120, 130..135 */
    assert_int_equal(fx_arc(&x, "main", "x")->self_ticks, 30);
    assert_int_equal(fx_arc(&x, "main", "x")->child_ticks, 0);
    assert_int_equal(fx_f(&x, "main")->child_ticks, 120);
    fx_free(&x);
}

/* Two entries into one cycle: shares follow each entry's total. */
static void cycle_entered_twice(void **state)
{
    (void)state;
    struct fx x;
    fx_init(&x);
    FX_CALL(&x, 0, 0, "p");
    FX_CALL(&x, 0, 0, "a");
    FX_CALL(&x, 0, 10, "b");
    FX_RET(&x, 0, 20, "b");
    FX_RET(&x, 0, 30, "a");
    FX_RET(&x, 0, 30, "p");
    FX_CALL(&x, 0, 30, "q");
    FX_CALL(&x, 0, 30, "b");
    FX_CALL(&x, 0, 40, "a");
    FX_RET(&x, 0, 50, "a");
    FX_RET(&x, 0, 60, "b");
    FX_RET(&x, 0, 60, "q");
    ct_profile_finish(x.p);
    assert_int_equal(x.p->ncycles, 1);
    const struct ct_arc *pa = fx_arc(&x, "p", "a");
    const struct ct_arc *qb = fx_arc(&x, "q", "b");
    assert_int_equal(pa->self_ticks + pa->child_ticks, 30);
    assert_int_equal(qb->self_ticks + qb->child_ticks, 30);
    assert_int_equal(pa->self_ticks + qb->self_ticks, 60);
    fx_free(&x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(tarjan_small_graph),
        cmocka_unit_test(tarjan_deep_ring),
        cmocka_unit_test(cycles_in_profile),
        cmocka_unit_test(cycle_entered_twice),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
