/* The EFL evlog reader: the sample, big-endian blocks with spans across
 * blocks and junk padding, overflow, states, truncation, damage. */
#include "test_read_support.h"

static char path_buf[4096];
static const char *sample(const char *name)
{
    snprintf(path_buf, sizeof path_buf, "%s/samples/%s", formats_dir(), name);
    return path_buf;
}

static void sample_log(void **state)
{
    (void)state;
    struct loaded l;
    if (!load_file(&l, &ct_reader_evlog, sample("efl_debug_evlog-4242.log"),
                   false))
        fail_msg("sample file missing (see tests/formats/README.md)");
    assert_int_equal(l.status, CT_EXIT_OK);
    assert_true(l.info.ns_per_tick == 1.0);
    /* the RUN state, the render thread, the worker; not the CPU items' */
    assert_int_equal(l.info.nthreads, 3);
    assert_string_equal(l.info.threads[0].name, "state RUN");
    assert_int_equal(l.info.threads[1].tid, 0x7f3a1c2b5740ull);
    assert_int_equal(l.info.threads[2].tid, 0x7f3a17fff700ull);
    struct fsum run = func_sum(&l, "RUN");
    assert_int_equal(run.calls, 1);
    assert_int_equal(run.ticks, 12516700000ull - 12500100000ull);
    assert_int_equal(func_sum(&l, "render_objects").ticks, 2120000);
    assert_int_equal(func_sum(&l, "render_object").ticks, 740000);
    assert_int_equal(func_sum(&l, "thread_do").ticks, 990000);
    assert_int_equal(count_kind(&l, CT_EV_USER), 2);
    assert_string_equal(user_text(&l, 0), "gl_buffer_age: 2");
    assert_string_equal(user_text(&l, 1), "FRAME");
    assert_string_equal(meta(&l, "CPUFREQ 0"),
                        "last 2400 MHz, max 2400 MHz (1 reading)");
    assert_string_equal(meta(&l, "CPUUSED 139887487481600"),
                        "last 40%, max 40% (2 readings)");
    assert_int_equal(l.info.lost_events, 0);
    assert_int_equal(count_kind(&l, CT_EV_LOST), 0);
    unload(&l);
}

static void big_endian_across_blocks(void **state)
{
    (void)state;
    struct loaded l;
    if (!load_file(&l, &ct_reader_evlog, "tests/formats/evlog_be_cross.log",
                   false))
        fail_msg("sample file missing (see tests/formats/README.md)");
    assert_int_equal(l.status, CT_EXIT_OK);
    assert_non_null(meta(&l, "big-endian"));
    assert_int_equal(func_sum(&l, "outer").ticks, 3500000000ull);
    assert_int_equal(func_sum(&l, "inner").ticks, 1500000000ull);
    /* overlapping states, each on its own synthetic thread */
    assert_int_equal(func_sum(&l, "A").ticks, 1500000000ull);
    assert_int_equal(func_sum(&l, "B").ticks, 1500000000ull);
    assert_int_equal(func_sum(&l, "A").returns, 1);
    assert_int_equal(l.info.lost_events, 3);
    assert_int_equal(count_kind(&l, CT_EV_LOST), 1);
    assert_int_equal(count_kind(&l, CT_EV_RETURN), 5);  /* "-lost" too */
    assert_string_equal(user_text(&l, 0), "hello: world");
    unload(&l);
}

static void truncated_last_block(void **state)
{
    (void)state;
    struct loaded l;
    if (!load_file(&l, &ct_reader_evlog, "tests/formats/evlog_truncated.log",
                   false))
        fail_msg("sample file missing (see tests/formats/README.md)");
    assert_int_equal(l.status, CT_EXIT_BAD_INPUT);
    assert_non_null(strstr(l.info.stopped, "truncated at byte 188 (block 2)"));
    assert_int_equal(func_sum(&l, "f").ticks, 1000000000ull);
    assert_int_equal(func_sum(&l, "g").calls, 1);   /* whole item kept */
    assert_int_equal(count_kind(&l, CT_EV_RETURN), 1);
    unload(&l);
}

static void bad_items(void **state)
{
    (void)state;
    size_t n;
    uint8_t *d = slurp(sample("efl_debug_evlog-4242.log"), &n);
    if (!d)
        fail_msg("sample file missing (see tests/formats/README.md)");
    /* the second item's size becomes 44: not a multiple of 8 */
    d[60 + 36] = 44;
    struct loaded l;
    load_mem(&l, &ct_reader_evlog, d, n, false);
    assert_int_equal(l.status, CT_EXIT_BAD_INPUT);
    assert_non_null(strstr(l.info.stopped, "byte 60"));
    assert_int_equal(count_kind(&l, CT_EV_CALL), 1);  /* >RUN before it */
    unload(&l);
    load_mem(&l, &ct_reader_evlog, d, n, true);
    assert_int_equal(l.status, CT_EXIT_OK);
    assert_int_equal(l.info.skipped_lines, 1);
    unload(&l);
    d[60 + 36] = 56;
    d[0] = 0x12;  /* no magic */
    load_mem(&l, &ct_reader_evlog, d, n, false);
    assert_int_equal(l.status, CT_EXIT_BAD_INPUT);
    assert_int_equal(l.rec.n, 0);
    unload(&l);
    free(d);
}

static void probe_magic(void **state)
{
    (void)state;
    const uint8_t le[] = {0x11, 0xe2, 0xfe, 0x0f}, be[] = {0x0f, 0xfe, 0xe2,
                                                          0x11};
    struct ct_input a = {"a", le, 4}, b = {"b", be, 4};
    struct ct_input c = {"c", (const uint8_t *)"1 C f\n", 6};
    assert_ptr_equal(ct_reader_detect(&a), &ct_reader_evlog);
    assert_ptr_equal(ct_reader_detect(&b), &ct_reader_evlog);
    assert_int_equal(ct_reader_evlog.probe(&c), 0);
}

static void damage_never_crashes(void **state)
{
    (void)state;
    const char *files[] = {sample("efl_debug_evlog-4242.log"),
                           "tests/formats/evlog_be_cross.log",
                           "tests/formats/evlog_truncated.log"};
    char first[4096];
    snprintf(first, sizeof first, "%s", files[0]);
    files[0] = first;
    for (int i = 0; i < 3; i++) {
        size_t n;
        void *d = slurp(files[i], &n);
        if (d)
            torture(&ct_reader_evlog, d, n, 3000);
        free(d);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sample_log),
        cmocka_unit_test(big_endian_across_blocks),
        cmocka_unit_test(truncated_last_block),
        cmocka_unit_test(bad_items),
        cmocka_unit_test(probe_magic),
        cmocka_unit_test(damage_never_crashes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
