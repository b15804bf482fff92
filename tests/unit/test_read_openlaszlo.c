/* The OpenLaszlo raw reader: the v5 sample, unsorted dumps, merged V
 * payloads, fractional timestamps, threads, NULs, errors and damage. */
#include "test_read_support.h"

static char path_buf[4096];
static const char *sample(const char *name)
{
    snprintf(path_buf, sizeof path_buf, "%s/samples/%s", formats_dir(), name);
    return path_buf;
}

static void v5_sample(void **state)
{
    (void)state;
    struct loaded l;
    if (!load_file(&l, &ct_reader_openlaszlo,
                   sample("openlaszlo-v5.profiler"), false))
        fail_msg("sample file missing (see tests/formats/README.md)");
    assert_int_equal(l.status, CT_EXIT_OK);
    assert_true(l.info.ns_per_tick == 1e6);
    /* the C of LzView(cal) rides in the V at 1497, its R is at 1509 */
    struct fsum v = func_sum(&l, "LzView(cal)");
    assert_int_equal(v.calls, 1);
    assert_int_equal(v.ticks, 12);
    assert_int_equal(func_sum(&l, "handle cal.oninit").ticks, 8);
    struct fsum w = func_sum(&l, "set width");   /* R merged at 1500 */
    assert_int_equal(w.calls, 1);
    assert_int_equal(w.returns, 1);
    assert_int_equal(w.ticks, 0);
    assert_int_equal(func_sum(&l, "basecalendar.lzx#212/14").ticks, 1);
    assert_int_equal(count_kind(&l, CT_EV_CALL), 4);
    assert_int_equal(count_kind(&l, CT_EV_RETURN), 4);
    assert_int_equal(count_kind(&l, CT_EV_USER), 2);
    assert_string_equal(user_text(&l, 0), "start: LzView(cal)");
    assert_string_equal(user_text(&l, 1), "done: LzView(cal)");
    assert_int_equal(count_kind(&l, CT_EV_OVERHEAD_START), 1);
    assert_int_equal(count_kind(&l, CT_EV_OVERHEAD_END), 1);
    /* sorted: the first event is the V at 1497, the last the E at 1526 */
    assert_int_equal(l.rec.evs[0].ev.kind, CT_EV_USER);
    assert_int_equal(l.rec.evs[0].ev.time, 1497);
    assert_int_equal(l.rec.evs[1].ev.kind, CT_EV_CALL);
    assert_int_equal(l.rec.evs[l.rec.n - 1].ev.time, 1526);
    assert_string_equal(meta(&l, "Profile version"), "5");
    assert_string_equal(meta(&l, "Clock resolution"), "1");
    assert_string_equal(meta(&l, "LPS Version"), "4.3.0");
    assert_string_equal(meta(&l, "Application Date"), "23 Mar 2009 15:39:51");
    assert_string_equal(meta(&l, "Runtime"), "Safari 3.2");
    assert_string_equal(l.info.program,
        "http://localhost:8080/trunk/demos/calendar/calendar.lzx"
        "?lzr=dhtml&profile=true");
    assert_int_equal(l.info.nthreads, 1);
    unload(&l);
}

static void equal_time_call_before_event(void **state)
{
    (void)state;
    struct loaded l;
    load_str(&l, &ct_reader_openlaszlo,
             "5 V ev\n5 C f\n7 R f\n5 C g\n6 R g\n", false);
    assert_int_equal(l.status, CT_EXIT_OK);
    assert_int_equal(l.rec.evs[0].ev.kind, CT_EV_CALL);
    assert_int_equal(l.rec.evs[0].ev.func, func_id(&l, "f"));
    assert_int_equal(l.rec.evs[1].ev.func, func_id(&l, "g"));  /* stable */
    assert_int_equal(l.rec.evs[2].ev.kind, CT_EV_USER);
    assert_int_equal(func_sum(&l, "f").ticks, 2);
    unload(&l);
}

static void edge_file(void **state)
{
    (void)state;
    struct loaded l;
    if (!load_file(&l, &ct_reader_openlaszlo,
                   "tests/formats/openlaszlo_edge.profiler", false))
        fail_msg("sample file missing (see tests/formats/README.md)");
    assert_int_equal(l.status, CT_EXIT_OK);
    assert_true(l.info.ns_per_tick == 1.0);
    /* exact decimals: 1183755012345.01 ms */
    assert_int_equal(l.rec.evs[0].ev.time, 1183755012345010000ull);
    assert_int_equal(func_sum(&l, "init").ticks, 240000);
    assert_int_equal(func_sum(&l, "main loop").ticks, 1625000);
    assert_int_equal(func_sum(&l, "draw").calls, 1);
    assert_int_equal(func_sum(&l, "draw").ticks, 500000);
    struct fsum w = func_sum(&l, "worker");
    assert_int_equal(w.ticks, 3000000);
    assert_int_equal(l.info.nthreads, 2);
    assert_int_equal(l.info.threads[1].tid, 2);
    assert_int_equal(count_kind(&l, CT_EV_LOST), 1);
    assert_int_equal(l.info.lost_events, 3);
    assert_int_equal(count_kind(&l, CT_EV_USER), 1);
    assert_string_equal(user_text(&l, 0), "tick");
    /* "undefined,returns:X,calls:Y": no message, a return then a call */
    assert_int_equal(func_sum(&l, "again").calls, 1);
    assert_int_equal(count_kind(&l, CT_EV_RETURN), 5);
    assert_int_equal(count_kind(&l, CT_EV_OVERHEAD_START), 1);
    assert_string_equal(meta(&l, "Date"), "Tue Oct 28 21:33:04 GMT-0500 2003");
    unload(&l);
}

static void errors_and_lenient(void **state)
{
    (void)state;
    struct loaded l;
    const char *bad = "1 C f\n2 X g\n3 R f\n";
    load_str(&l, &ct_reader_openlaszlo, bad, false);
    assert_int_equal(l.status, CT_EXIT_BAD_INPUT);
    assert_string_equal(l.info.stopped, "malformed line 2");
    assert_int_equal(count_kind(&l, CT_EV_CALL), 1);
    unload(&l);
    load_str(&l, &ct_reader_openlaszlo, bad, true);
    assert_int_equal(l.status, CT_EXIT_OK);
    assert_int_equal(l.info.skipped_lines, 1);
    assert_int_equal(func_sum(&l, "f").ticks, 2);
    unload(&l);
    /* sub-nanosecond decimals would be rounded: refused */
    load_str(&l, &ct_reader_openlaszlo, "1.0000001 C f\n", false);
    assert_int_equal(l.status, CT_EXIT_BAD_INPUT);
    unload(&l);
    load_str(&l, &ct_reader_openlaszlo, "99999999999999999999 C f\n", false);
    assert_int_equal(l.status, CT_EXIT_BAD_INPUT);
    unload(&l);
}

static void probe_discriminates(void **state)
{
    (void)state;
    const char *yes = "1520 S \n1499 C handle cal.oninit\n1500 R x\n";
    const char *lms = "2,0,reader\n0,0,10\n1,0,990\n";
    const char *rtl = "001503 1 { desktop (cd100003) x\n";
    struct ct_input a = {"a", (const uint8_t *)yes, strlen(yes)};
    struct ct_input b = {"b", (const uint8_t *)lms, strlen(lms)};
    struct ct_input c = {"c", (const uint8_t *)rtl, strlen(rtl)};
    assert_ptr_equal(ct_reader_detect(&a), &ct_reader_openlaszlo);
    assert_int_equal(ct_reader_openlaszlo.probe(&b), 0);
    assert_int_equal(ct_reader_openlaszlo.probe(&c), 0);
}

static void damage_never_crashes(void **state)
{
    (void)state;
    size_t n;
    void *d = slurp(sample("openlaszlo-v5.profiler"), &n);
    if (d)
        torture(&ct_reader_openlaszlo, d, n, 3000);
    free(d);
    d = slurp("tests/formats/openlaszlo_edge.profiler", &n);
    if (d)
        torture(&ct_reader_openlaszlo, d, n, 3000);
    free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(v5_sample),
        cmocka_unit_test(equal_time_call_before_event),
        cmocka_unit_test(edge_file),
        cmocka_unit_test(errors_and_lenient),
        cmocka_unit_test(probe_discriminates),
        cmocka_unit_test(damage_never_crashes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
