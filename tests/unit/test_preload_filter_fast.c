/* The filters' fast decision (preload/filters/filter_fast.c, filter_state.h)
 * against the slow one (decide in preload/filters/filter.c): over many rule sets
 * put in force with ct_filter_reload, for functions of this program at
 * many levels and scopes, whenever the fast path answers, the slow path
 * answers the same, with the same reason for a call left out.  The
 * tables say what the rules say of each function, and a set the fast
 * path cannot serve has no tables.  The skip table (filter_skip.h) is in
 * force exactly under rules that only exclude, and names each function
 * the slow path leaves out there, with the slow path's reason. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "preload/filters/filter_state.h"

/* Functions the rules name: only their addresses and symbols matter. */
#define FN(name)                                                          \
    __attribute__((noinline, used)) int name(int x)                       \
    {                                                                     \
        __asm__ volatile("" : "+r"(x));                                   \
        return x + __LINE__;                                              \
    }
FN(lex_a)
FN(lex_b)
FN(parse_one)
FN(parse_two)
FN(f_alpha)
FN(f_beta)
FN(f_gamma)
FN(f_delta)
FN(f_eps)
FN(f_zeta)
FN(plain_one)
FN(plain_two)

static int (*const fns[])(int) = {lex_a,   lex_b,  parse_one, parse_two,
                                  f_alpha, f_beta, f_gamma,   f_delta,
                                  f_eps,   f_zeta, plain_one, plain_two};
#define NFNS (sizeof fns / sizeof fns[0])
static const char *const names[NFNS] = {
    "lex_a",   "lex_b",  "parse_one", "parse_two", "f_alpha",   "f_beta",
    "f_gamma", "f_delta", "f_eps",    "f_zeta",    "plain_one", "plain_two"};

/* The rules in force, with this program's functions named: it is not
 * built for tracing, so the scan of loaded objects passes it by. */
static int reload(const char *spec, char *err, size_t cap)
{
    if (ct_filter_reload(spec, err, cap) != 0)
        return -1;
    uintptr_t addrs[NFNS];
    for (size_t i = 0; i < NFNS; i++)
        addrs[i] = (uintptr_t)fns[i];
    ct_filter_add_names(names, addrs, NFNS);
    return 0;
}

/* No re: pattern: the sets replaced are kept for threads that may read
 * them, and LeakSanitizer would call their compiled expressions leaks. */
static const char *const items[] = {
    "-lex_*",          "-parse_one",        "parse_*",
    "parse_two@2",     "f_alpha@3",         "depth=3",
    "depth=6",         "f_beta:notrace",    "f_gamma:depth=2",
    "f_delta:on",      "f_eps:off",         "f_eps:finish",
    "f_alpha:time=1us", "-f_[bz]eta", "f_zeta:trace",
    "-plain_two",      "min=1us",           "f_beta:caller",
    "f_gamma:backtrace", "f_delta:trace_on:depth=1",
};
#define NITEMS (sizeof items / sizeof items[0])

static uint64_t rng = 88172645463325252ull;
static uint32_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)rng;
}

/* Whether the fast path can serve the spec at all. */
static int capable(const char *spec)
{
    return !strstr(spec, "min=") && !strstr(spec, ":caller") &&
           !strstr(spec, ":backtrace");
}

static void random_scope(struct fscope *sc)
{
    static const uint32_t allows[] = {0, 1, 2, 4, UINT32_MAX};
    memset(sc, 0, sizeof *sc);
    sc->allow = allows[next_rand() % 5];
    if (next_rand() % 4 == 0)
        sc->notrace = 1 + next_rand() % 3;
    if (next_rand() % 3 == 0) {
        sc->dbase = next_rand() % 4;
        sc->dmax = 1 + next_rand() % 3;
        sc->drule = 1 + next_rand() % 3;
    }
    if (next_rand() % 4 == 0) {
        sc->trule = 1 + next_rand() % 3;
        sc->tmin = 1000;
    }
}

struct tally {
    unsigned writes, drops, asks;
};

/* Every function at random levels and scopes under the rules in force. */
static void compare_all(const char *spec, struct tally *n)
{
    const struct ct_ffast *ff = ct_ffast;
    for (size_t i = 0; i < NFNS; i++) {
        uintptr_t fn = (uintptr_t)fns[i];
        for (int k = 0; k < 40; k++) {
            struct fscope sc;
            random_scope(&sc);
            uint32_t d = next_rand() % 9;
            int on = next_rand() % 3 != 0, fin = next_rand() % 5 == 0;
            uint32_t flags = 0, rs = ~0u, rf = ~0u;
            int slow = ct_filter_slow_decision(fn, d, &sc, on, fin, &flags,
                                               &rs);
            int fast = ct_ffast_decide(ff, ct_ffast_lookup(ff, fn), d, &sc,
                                       0, flags, &rf);
            if (fast == FAST_ASK) {
                n->asks++;
                continue;
            }
            if (fast != slow || (fast == FAST_DROP && rf != rs))
                fail_msg("'%s': fn #%zu at level %u (allow %u notrace %u "
                         "depth %u+%u time %u, on %d finished %d): fast %d "
                         "reason %#x, slow %d reason %#x",
                         spec, i, d, sc.allow, sc.notrace, sc.dbase, sc.dmax,
                         sc.trule, on, fin, fast, rf, slow, rs);
            if (fast == FAST_DROP)
                n->drops++;
            else
                n->writes++;
        }
    }
}

/* Rules that only exclude: every item "-NAME". */
static int only_excludes(const char *spec)
{
    for (const char *p = spec; *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : "")
        if (*p != '-')
            return 0;
    return *spec != 0;
}

/* The skip table against the slow path: under rules that only exclude,
 * a function has its slot exactly when the slow path leaves it out, at
 * any level, and the slot's reason is the slow path's. */
static void compare_skips(const char *spec, unsigned *slots)
{
    const struct ct_fskips *k = ct_fskips;
    if (!only_excludes(spec)) {
        if (k)
            fail_msg("'%s': a skip table for rules that do not only exclude",
                     spec);
        return;
    }
    if (!k)
        fail_msg("'%s': no skip table", spec);
    for (size_t i = 0; i < NFNS; i++) {
        uintptr_t fn = (uintptr_t)fns[i];
        size_t e = ct_fskip_index(fn);
        for (uint32_t d = 0; d < 9; d++) {
            struct fscope sc;
            memset(&sc, 0, sizeof sc);
            uint32_t flags = 0, rs = ~0u;
            int slow = ct_filter_slow_decision(fn, d, &sc, 1, 0, &flags, &rs);
            if ((k->fn[e] == fn) != (slow == FAST_DROP) ||
                (k->fn[e] == fn && k->reason[e] != rs))
                fail_msg("'%s': fn #%zu at level %u: slot %s (reason %#x), "
                         "slow %d reason %#x", spec, i, d,
                         k->fn[e] == fn ? "taken" : "not taken", k->reason[e],
                         slow, rs);
        }
        if (k->fn[e] == fn)
            (*slots)++;
    }
}

/* A fake function address whose skip slot is that of x. */
static uintptr_t same_slot(uintptr_t x)
{
    for (uintptr_t y = x + 16;; y += 16)
        if (ct_fskip_index(y) == ct_fskip_index(x))
            return y;
}

static void test_skip_table(void **state)
{
    (void)state;
    char err[256];
    assert_int_equal(reload("-lex_*,-parse_one", err, sizeof err), 0);
    const struct ct_fskips *k = ct_fskips;
    assert_non_null(k);
    size_t a = ct_fskip_index((uintptr_t)lex_a);
    size_t p = ct_fskip_index((uintptr_t)parse_one);
    assert_true(k->fn[a] == (uintptr_t)lex_a);
    assert_int_equal(k->reason[a], CT_DROP_EXCLUDED | 0u << 3);
    assert_true(k->fn[p] == (uintptr_t)parse_one);
    assert_int_equal(k->reason[p], CT_DROP_EXCLUDED | 1u << 3);
    assert_true(k->fn[ct_fskip_index((uintptr_t)plain_one)] !=
                (uintptr_t)plain_one);
    /* Every excluded function has its slot: a miss says "kept". */
    assert_int_equal(k->complete, 1);
    /* Two excluded functions for one slot: the first scanned keeps it,
     * the other goes the class table's way, and a miss no longer says
     * "kept". */
    uintptr_t x = 0x40000000;
    while (k->fn[ct_fskip_index(x)])  /* a slot no real function took */
        x += 16;
    uintptr_t y = same_slot(x);
    const char *const two[] = {"lex_x", "lex_y"};
    const uintptr_t at[] = {x, y};
    ct_filter_add_names(two, at, 2);
    assert_ptr_equal(ct_fskips, k);
    uintptr_t held = k->fn[ct_fskip_index(x)];
    assert_true(held == x || held == y);
    assert_int_equal(k->complete, 0);
    x = held;
    /* A function named again, now for another rule: the counts a thread
     * made under its slot would name the wrong rule, so the table goes. */
    const char *const again[] = {"parse_one"};
    uint64_t word = ct_global_word;
    ct_filter_add_names(again, &x, 1);
    assert_null(ct_fskips);
    /* A thread's hooks read the table it took until the word moves on:
     * a new generation sends each to let it go (ct_filter_sync_skips). */
    assert_true(ct_global_word != word);
    /* Rules that do more than exclude have none. */
    static const char *const more[] = {"-lex_*,depth=3", "-lex_*,parse_*",
                                       "-lex_*,f_beta:notrace",
                                       "-lex_*,f_eps:off", "-lex_*,min=1us"};
    for (size_t i = 0; i < sizeof more / sizeof *more; i++) {
        assert_int_equal(reload(more[i], err, sizeof err), 0);
        if (ct_fskips)
            fail_msg("'%s': a skip table", more[i]);
    }
    assert_int_equal(reload("", err, sizeof err), 0);
    assert_null(ct_fskips);
}

static void test_classes(void **state)
{
    (void)state;
    char err[256];
    assert_int_equal(reload("-lex_*,f_alpha@3,f_beta:notrace,"
                                      "-plain_two", err, sizeof err), 0);
    const struct ct_ffast *ff = ct_ffast;
    assert_non_null(ff);
    assert_int_equal(ct_ffast_lookup(ff, (uintptr_t)lex_a), 1);
    assert_int_equal(ct_ffast_lookup(ff, (uintptr_t)lex_b), 1);
    assert_int_equal(ct_ffast_lookup(ff, (uintptr_t)plain_two), 4);
    assert_int_equal(ct_ffast_lookup(ff, (uintptr_t)plain_one), FC_PLAIN);
    assert_int_equal(ct_ffast_lookup(ff, (uintptr_t)f_alpha), FC_INC);
    assert_int_equal(ct_ffast_lookup(ff, (uintptr_t)f_beta), FC_ASK);
    /* Outside every object known: asked. */
    assert_int_equal(ct_ffast_lookup(ff, 16), FC_ASK);
    assert_int_equal(reload("f_alpha,min=1us", err, sizeof err), 0);
    assert_null(ct_ffast);
    assert_int_equal(reload("", err, sizeof err), 0);
    assert_null(ct_ffast);
}

static void test_fast_is_slow(void **state)
{
    (void)state;
    struct tally n = {0, 0, 0};
    unsigned slots = 0;
    char spec[512], err[256];
    for (int set = 0; set < 150; set++) {
        size_t len = 0;
        int count = 1 + (int)(next_rand() % 4);
        for (int j = 0; j < count; j++)
            len += (size_t)snprintf(spec + len, sizeof spec - len, "%s%s",
                                    j ? "," : "",
                                    items[next_rand() % NITEMS]);
        if (reload(spec, err, sizeof err) != 0)
            fail_msg("'%s': %s", spec, err);
        if (!capable(spec)) {
            if (ct_ffast)
                fail_msg("'%s': tables for rules the slow path must serve",
                         spec);
            continue;
        }
        if (!ct_ffast)
            fail_msg("'%s': no tables", spec);
        compare_all(spec, &n);
        compare_skips(spec, &slots);
    }
    ct_filter_reload("", err, sizeof err);
    /* Not vacuous: both answers were compared many times. */
    assert_true(n.writes > 1000);
    assert_true(n.drops > 1000);
    assert_true(slots > 10);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_classes),
        cmocka_unit_test(test_fast_is_slow),
        cmocka_unit_test(test_skip_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
