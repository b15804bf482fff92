/* The lms CSV reader: the seed's example and the sample, interleaved and
 * negative deltas, the older three-field form, errors and damage. */
#include "test_read_support.h"

static char path_buf[4096];
static const char *sample(const char *name)
{
    snprintf(path_buf, sizeof path_buf, "%s/samples/%s", formats_dir(), name);
    return path_buf;
}

static void seed_example(void **state)
{
    (void)state;
    struct loaded l;
    if (!load_file(&l, &ct_reader_lms, sample("lms_seed_example.csv"), false))
        fail_msg("sample file missing (see tests/formats/README.md)");
    assert_int_equal(l.status, CT_EXIT_OK);
    assert_true(l.info.ns_per_tick == 1000.0);
    struct fsum r = func_sum(&l, "reader"), w = func_sum(&l, "writer");
    assert_int_equal(r.calls, 2);
    assert_int_equal(r.returns, 2);
    assert_int_equal(r.ticks, 1690);
    assert_int_equal(w.calls, 1);
    assert_int_equal(w.ticks, 200);
    assert_int_equal(l.info.nthreads, 1);
    /* reader (10,1000), writer (1000,1200), reader (1210,1910) */
    assert_int_equal(l.rec.n, 6);
    assert_int_equal(l.rec.evs[0].ev.time, 10);
    assert_int_equal(l.rec.evs[5].ev.time, 1910);
    unload(&l);
}

static void sample_profile(void **state)
{
    (void)state;
    struct loaded l;
    if (!load_file(&l, &ct_reader_lms, sample("lms_profile.csv"), false))
        fail_msg("sample file missing (see tests/formats/README.md)");
    assert_int_equal(l.status, CT_EXIT_OK);
    struct fsum d = func_sum(&l, "default");
    struct fsum c = func_sum(&l, "default.camera_importer");
    struct fsum h = func_sum(&l, "default.image_hint_detection");
    struct fsum t = func_sum(&l, "default.trajectory_planner");
    assert_int_equal(d.calls, 2);
    assert_int_equal(d.ticks, 13119 + 12839);
    assert_int_equal(c.calls, 2);
    assert_int_equal(c.ticks, 4810 + 4777);
    assert_int_equal(h.calls, 2);
    assert_int_equal(h.ticks, 7355 + 7102);
    assert_int_equal(t.calls, 2);
    assert_int_equal(t.ticks, 912 + 930);
    assert_int_equal(l.info.nthreads, 1);
    assert_int_equal(l.rec.evs[0].ev.time, 1843);
    unload(&l);
}

static void interleaved_spans_get_their_own_thread(void **state)
{
    (void)state;
    struct loaded l;
    /* a [0,20], b [10,30]: they overlap without nesting */
    load_str(&l, &ct_reader_lms,
             "2,0,a\n2,1,b\n0,0,0\n0,1,10\n1,0,10\n1,1,10\n", false);
    assert_int_equal(l.status, CT_EXIT_OK);
    assert_int_equal(l.info.nthreads, 2);
    assert_int_equal(func_sum(&l, "a").ticks, 20);
    assert_int_equal(func_sum(&l, "b").ticks, 20);
    assert_int_equal(func_sum(&l, "b").returns, 1);
    assert_string_equal(l.info.threads[1].name, "interleaved 1");
    unload(&l);
}

static void negative_deltas(void **state)
{
    (void)state;
    struct loaded l;
    /* a begins at 100; b runs (50,70) written after it; a ends at 170 */
    load_str(&l, &ct_reader_lms,
             "2,0,a\n2,1,b\n0,0,100\n0,1,-50\n1,1,20\n1,0,100\n", false);
    assert_int_equal(l.status, CT_EXIT_OK);
    assert_int_equal(l.info.nthreads, 1);
    assert_int_equal(func_sum(&l, "a").ticks, 70);
    assert_int_equal(func_sum(&l, "b").ticks, 20);
    assert_int_equal(l.rec.evs[0].ev.time, 50);
    unload(&l);
    /* a time before the profiler start shifts everything to 0 */
    load_str(&l, &ct_reader_lms, "2,0,a\n0,0,-5\n1,0,10\n", false);
    assert_int_equal(l.status, CT_EXIT_OK);
    assert_int_equal(l.rec.evs[0].ev.time, 0);
    assert_int_equal(func_sum(&l, "a").ticks, 10);
    unload(&l);
}

static void old_three_field_form(void **state)
{
    (void)state;
    struct loaded l;
    load_str(&l, &ct_reader_lms,
             "0,10,reader\n1,990,reader\n0,0,writer\n1,200,writer\n"
             "0,10,reader\n1,700,reader\n", false);
    assert_int_equal(l.status, CT_EXIT_OK);
    assert_int_equal(func_sum(&l, "reader").calls, 2);
    assert_int_equal(func_sum(&l, "reader").ticks, 1690);
    assert_int_equal(func_sum(&l, "writer").ticks, 200);
    assert_non_null(meta(&l, "lms form"));
    unload(&l);
}

static void labels_with_commas_and_recursion(void **state)
{
    (void)state;
    struct loaded l;
    load_str(&l, &ct_reader_lms,
             "2,0,a,b, c\n0,0,1\n0,0,1\n1,0,1\n1,0,1\n", false);
    assert_int_equal(l.status, CT_EXIT_OK);
    struct fsum s = func_sum(&l, "a,b, c");
    assert_int_equal(s.calls, 2);
    assert_int_equal(s.ticks, 3 + 1);
    assert_int_equal(l.info.nthreads, 1);
    unload(&l);
    /* a span never ended: a call without a return, nothing invented */
    load_str(&l, &ct_reader_lms, "2,0,f\n0,0,5\n", false);
    assert_int_equal(l.status, CT_EXIT_OK);
    assert_int_equal(count_kind(&l, CT_EV_CALL), 1);
    assert_int_equal(count_kind(&l, CT_EV_RETURN), 0);
    unload(&l);
}

static void errors_and_lenient(void **state)
{
    (void)state;
    struct loaded l;
    const char *bad = "2,0,a\n0,0,1\n0,5,1\n1,0,2\n";
    load_str(&l, &ct_reader_lms, bad, false);
    assert_int_equal(l.status, CT_EXIT_BAD_INPUT);
    assert_string_equal(l.info.stopped, "malformed line 3");
    /* what came before the damage is still pushed */
    assert_int_equal(count_kind(&l, CT_EV_CALL), 1);
    unload(&l);
    load_str(&l, &ct_reader_lms, bad, true);
    assert_int_equal(l.status, CT_EXIT_OK);
    assert_int_equal(l.info.skipped_lines, 1);
    /* the skipped line's delta is unknown: it does not move the clock */
    assert_int_equal(func_sum(&l, "a").ticks, 2);
    unload(&l);
    load_str(&l, &ct_reader_lms, "hello\n", false);
    assert_int_equal(l.status, CT_EXIT_BAD_INPUT);
    unload(&l);
    /* an end before its begin's time cannot be a span */
    load_str(&l, &ct_reader_lms, "2,0,a\n0,0,10\n1,0,-3\n", false);
    assert_int_equal(l.status, CT_EXIT_BAD_INPUT);
    unload(&l);
}

static void probe_discriminates(void **state)
{
    (void)state;
    const char *yes = "2,0,reader\n0,0,10\n1,0,990\n";
    const char *no = "1520 S \n1499 C handle cal.oninit\n";
    struct ct_input a = {"a", (const uint8_t *)yes, strlen(yes)};
    struct ct_input b = {"b", (const uint8_t *)no, strlen(no)};
    assert_true(ct_reader_lms.probe(&a) > 0);
    assert_int_equal(ct_reader_lms.probe(&b), 0);
    assert_ptr_equal(ct_reader_detect(&a), &ct_reader_lms);
}

static void damage_never_crashes(void **state)
{
    (void)state;
    size_t n;
    void *d = slurp(sample("lms_profile.csv"), &n);
    if (!d)
        fail_msg("sample file missing (see tests/formats/README.md)");
    torture(&ct_reader_lms, d, n, 3000);
    free(d);
    size_t m;
    void *e = slurp("tests/formats/lms_edge.csv", &m);
    if (e)
        torture(&ct_reader_lms, e, m, 2000);
    free(e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(seed_example),
        cmocka_unit_test(sample_profile),
        cmocka_unit_test(interleaved_spans_get_their_own_thread),
        cmocka_unit_test(negative_deltas),
        cmocka_unit_test(old_three_field_form),
        cmocka_unit_test(labels_with_commas_and_recursion),
        cmocka_unit_test(errors_and_lenient),
        cmocka_unit_test(probe_discriminates),
        cmocka_unit_test(damage_never_crashes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
