/* --diff=OLD in the stack writers (stackdiff.c): the folded export's
 * difffolded lines and the flame graph's colours, exact, for an old run
 * read from a file (the --dump form) through the one reading function
 * (analyzer/read/load.c), as calltrace-report reads it, and a new one fed
 * as events.  No clock is involved, so the signs and sizes are known. */
#include <unistd.h>

#include "export_fixture.h"
#include "analyzer/read/load.h"
#include "analyzer/writers/stacktree.h"
#include "analyzer/util.h"

/* old: main [0,100) calls a [10,40) and gone [50,53): main's self 67,
 * a's 30, gone's 3 (ns; the --dump form counts milliseconds). */
static const char old_run[] =
    "0.000000 C main\n"
    "0.000010 C a\n"
    "0.000040 R a\n"
    "0.000050 C gone\n"
    "0.000053 R gone\n"
    "0.000100 R main\n";

static char old_path[64];

static int write_old(void **state)
{
    (void)state;
    strcpy(old_path, "/tmp/ct-test-diff-XXXXXX");
    int fd = mkstemp(old_path);
    if (fd < 0)
        return -1;
    ssize_t n = write(fd, old_run, sizeof old_run - 1);
    close(fd);
    return n == (ssize_t)sizeof old_run - 1 ? 0 : -1;
}

static int remove_old(void **state)
{
    (void)state;
    unlink(old_path);
    return 0;
}

/* new: main [0,100) calls a [10,80) and fresh [85,90): main's self 25,
 * a's 70, fresh's 5. */
static void feed_new(struct ex *e)
{
    e->opts.diff_base = old_path;
    e->opts.format = "openlaszlo";
    ex_ev(e, CT_EV_CALL, 0, 0, "main");
    ex_ev(e, CT_EV_CALL, 0, 10, "a");
    ex_ev(e, CT_EV_RETURN, 0, 80, "a");
    ex_ev(e, CT_EV_CALL, 0, 85, "fresh");
    ex_ev(e, CT_EV_RETURN, 0, 90, "fresh");
    ex_ev(e, CT_EV_RETURN, 0, 100, "main");
}

/* The old run as calltrace-report's main.c loads it for a stack export. */
struct old {
    struct ct_load load;
    struct ct_stacktree tree;
};

static int load_old(struct old *o, struct ex *e)
{
    struct ct_load_opts lo = {.format = e->opts.format};
    if (ct_load_open(&o->load, e->opts.diff_base, &lo) != CT_EXIT_OK)
        return -1;
    ct_stacktree_init(&o->tree, &o->load.info, false, false);
    ct_stacktree_set_opts(&o->tree, &e->opts.view);
    int status = ct_load_read(&o->load, &lo, &o->tree.sink, NULL);
    ct_stacktree_finish(&o->tree);
    e->x->diff_base = &o->tree;
    return status == CT_EXIT_OK ? 0 : -1;
}

static void free_old(struct old *o)
{
    ct_stacktree_free(&o->tree);
    ct_load_close(&o->load);
}

static void folded_time(void **state)
{
    (void)state;
    struct ex e;
    ex_init(&e, "folded");
    feed_new(&e);
    struct old old;
    assert_int_equal(load_old(&old, &e), 0);
    assert_int_equal(ex_finish(&e), 0);
    /* the new run's paths in its order, then those only the old run has */
    assert_string_equal(e.buf, "main 67 25\n"
                               "main;a 30 70\n"
                               "main;fresh 0 5\n"
                               "main;gone 3 0\n");
    ex_free(&e);
    free_old(&old);
}

static void folded_calls(void **state)
{
    (void)state;
    struct ex e;
    ex_init(&e, "folded");
    e.opts.view.folded_calls = true;
    feed_new(&e);
    struct old old;
    assert_int_equal(load_old(&old, &e), 0);
    assert_int_equal(ex_finish(&e), 0);
    assert_string_equal(e.buf, "main 1 1\n"
                               "main;a 1 1\n"
                               "main;fresh 0 1\n"
                               "main;gone 1 0\n");
    ex_free(&e);
    free_old(&old);
}

/* The fill of the frame named name. */
static const char *fill_of(const char *svg, const char *name, char *buf)
{
    char key[64];
    snprintf(key, sizeof key, "data-n=\"%s\">", name);
    const char *at = strstr(svg, key);
    assert_non_null(at);
    at = strstr(at, "fill=\"");
    assert_non_null(at);
    at += 6;
    size_t n = strcspn(at, "\"");
    memcpy(buf, at, n);
    buf[n] = 0;
    return buf;
}

static void flamegraph_colours(void **state)
{
    (void)state;
    struct ex e;
    ex_init(&e, "flamegraph");
    feed_new(&e);
    struct old old;
    assert_int_equal(load_old(&old, &e), 0);
    assert_int_equal(ex_finish(&e), 0);
    char buf[64];
    /* flamegraph.pl's scale, the largest change (main's -42) deepest:
     * a +40, fresh +5 red; main blue */
    assert_string_equal(fill_of(e.buf, "main", buf), "rgb(0,0,255)");
    assert_string_equal(fill_of(e.buf, "a", buf), "rgb(255,10,10)");
    assert_string_equal(fill_of(e.buf, "fresh", buf), "rgb(255,185,185)");
    assert_null(strstr(e.buf, "data-n=\"gone\""));
    assert_non_null(strstr(e.buf, "Differential flame graph of"));
    assert_non_null(strstr(e.buf, "<title>a: 70 ns (70.00%), self 70 ns, "
                                  "1 call; old self 30 ns, change +40 ns "
                                  "(+133.3%)</title>"));
    ex_free(&e);
    free_old(&old);
}

static void old_unreadable(void **state)
{
    (void)state;
    struct ex e;
    ex_init(&e, "folded");
    feed_new(&e);
    e.opts.diff_base = "/nonexistent/old.raw";
    struct old old;
    assert_int_not_equal(load_old(&old, &e), 0);
    assert_null(e.x->diff_base);  /* main.c then writes nothing */
    fclose(e.out);
    e.out = NULL;
    ex_free(&e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(folded_time),
        cmocka_unit_test(folded_calls),
        cmocka_unit_test(flamegraph_colours),
        cmocka_unit_test(old_unreadable),
    };
    return cmocka_run_group_tests(tests, write_old, remove_old);
}
