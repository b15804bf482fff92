/* The RTL_LOGFILE reader: the soffice sample, sub-scopes, a 32-bit wrap,
 * a step backwards, a missing trailer, interleaved lines, damage. */
#include "test_read_support.h"

static char path_buf[4096];
static const char *sample(const char *name)
{
    snprintf(path_buf, sizeof path_buf, "%s/samples/%s", formats_dir(), name);
    return path_buf;
}

static void soffice_sample(void **state)
{
    (void)state;
    struct loaded l;
    if (!load_file(&l, &ct_reader_rtl, sample("rtl_soffice_4711.log"), false))
        fail_msg("sample file missing (see tests/formats/README.md)");
    assert_int_equal(l.status, CT_EXIT_OK);
    assert_true(l.info.ns_per_tick == 1e6);
    assert_int_equal(l.info.pid, 4711);
    assert_int_equal(l.info.start_epoch_ns, 1237819204512346000ll);
    assert_int_equal(l.info.start_ticks, 1503);
    assert_int_equal(l.info.nthreads, 2);
    assert_int_equal(l.info.threads[0].tid, 1);
    assert_int_equal(l.info.threads[1].tid, 3);
    struct fsum m = func_sum(&l, "desktop (cd100003) ::desktop::Desktop::Main");
    assert_int_equal(m.calls, 1);
    assert_int_equal(m.ticks, 2391 - 1503);
    assert_int_equal(func_sum(&l, "sfx2 (mba) SfxApplication::Initialize")
                         .ticks, 2210 - 1511);
    assert_int_equal(func_sum(&l, "svtools (er93726) "
                              "SvNumberFormatter::ImpConstruct").ticks, 8);
    struct fsum o = func_sum(&l, "OpenStartupScreen");   /* sub-scope */
    assert_int_equal(o.calls, 1);
    assert_int_equal(o.ticks, 2301 - 2214);
    struct fsum sc = func_sum(&l, "sc (nn93723) ScDocShell::InitNew");
    assert_int_equal(sc.ticks, 2377 - 2260);
    assert_int_equal(count_kind(&l, CT_EV_CALL), 5);
    assert_int_equal(count_kind(&l, CT_EV_RETURN), 5);
    assert_int_equal(count_kind(&l, CT_EV_USER), 1);
    assert_string_equal(user_text(&l, 0), "Startup finished, 2 documents");
    assert_null(meta(&l, "log file"));   /* the trailer is there */
    unload(&l);
}

static void wrap_step_back_no_trailer(void **state)
{
    (void)state;
    struct loaded l;
    if (!load_file(&l, &ct_reader_rtl, "tests/formats/rtl_wrap_1.log", false))
        fail_msg("sample file missing (see tests/formats/README.md)");
    assert_int_equal(l.status, CT_EXIT_OK);
    assert_int_equal(l.info.start_epoch_ns, 1000500000000ll);
    assert_int_equal(func_sum(&l, "app (x) ::A::run").ticks, 796);
    assert_int_equal(func_sum(&l, "phase one").ticks, 196);
    assert_int_equal(func_sum(&l, "other (y) ::B::go").ticks, 100);
    assert_string_equal(meta(&l, "timer wraps"), "1 (2^32 ms added each time)");
    assert_non_null(meta(&l, "clock steps backwards"));
    assert_non_null(meta(&l, "log file"));
    assert_int_equal(count_kind(&l, CT_EV_USER), 2);
    assert_string_equal(user_text(&l, 0), "clock stepped back");
    assert_string_equal(user_text(&l, 1), "other (y) ::B::go");
    unload(&l);
}

static void other_thread_mid_line(void **state)
{
    (void)state;
    const char *s =
        "000010 1 { a (x) f\n"
        "000020 1 | a (x) f : hel000021 2 { b (y) g\n"
        "lo\n"
        "000030 2 } b (y) g\n"
        "000040 1 } a (x) f\n";
    struct loaded l;
    load_str(&l, &ct_reader_rtl, s, false);
    assert_int_equal(l.status, CT_EXIT_BAD_INPUT);
    assert_string_equal(l.info.stopped, "malformed line 2");
    unload(&l);
    load_str(&l, &ct_reader_rtl, s, true);
    assert_int_equal(l.status, CT_EXIT_OK);
    assert_int_equal(l.info.skipped_lines, 2);
    assert_int_equal(func_sum(&l, "a (x) f").ticks, 30);
    assert_int_equal(count_kind(&l, CT_EV_USER), 0);
    unload(&l);
}

static void probe_discriminates(void **state)
{
    (void)state;
    const char *yes = "opening log file 1.5 seconds past January 1st 1970\n";
    const char *ol = "1520 S \n1499 C handle\n";
    struct ct_input a = {"a", (const uint8_t *)yes, strlen(yes)};
    struct ct_input b = {"b", (const uint8_t *)ol, strlen(ol)};
    assert_ptr_equal(ct_reader_detect(&a), &ct_reader_rtl);
    assert_int_equal(ct_reader_rtl.probe(&b), 0);
}

static void damage_never_crashes(void **state)
{
    (void)state;
    size_t n;
    void *d = slurp(sample("rtl_soffice_4711.log"), &n);
    if (d)
        torture(&ct_reader_rtl, d, n, 3000);
    free(d);
    d = slurp("tests/formats/rtl_wrap_1.log", &n);
    if (d)
        torture(&ct_reader_rtl, d, n, 2000);
    free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(soffice_sample),
        cmocka_unit_test(wrap_step_back_no_trailer),
        cmocka_unit_test(other_thread_mid_line),
        cmocka_unit_test(probe_discriminates),
        cmocka_unit_test(damage_never_crashes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
