/* The lms exporter: exact output for a small event stream (mapping lines
 * before first use, rounded deltas, unmatched returns left out) and a round
 * trip through the lms reader. */
#include "test_read_support.h"
#include "analyzer/writers/export.h"

static void ev(struct ct_sink *s, enum ct_ev_kind k, uint32_t th, uint64_t t,
               uint32_t f)
{
    struct ct_event e = {.kind = k, .thread = th, .time = t, .func = f};
    s->event(s, &e);
}

static void exact_output(void **state)
{
    (void)state;
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    struct ct_trace_info info;
    ct_trace_info_init(&info, "x", "calltrace");
    info.ns_per_tick = 400;  /* 2.5 ticks per us: rounding shows */
    uint32_t a = ct_functab_intern_name(info.funcs, "a", 1);
    uint32_t b = ct_functab_intern_name(info.funcs, "b,c", 3);
    struct ct_exporter *x = ct_exporter_new("lms", out, &info, NULL);
    assert_non_null(x);
    ev(&x->sink, CT_EV_CALL, 0, 1000, a);            /* 0 us      */
    ev(&x->sink, CT_EV_CALL, 0, 1001, b);            /* 0.4 -> 0  */
    ev(&x->sink, CT_EV_USER, 0, 1002, CT_FUNC_NONE); /* left out  */
    ev(&x->sink, CT_EV_RETURN, 0, 1004, CT_FUNC_NONE); /* 1.6 -> 2 */
    ev(&x->sink, CT_EV_RETURN, 1, 1005, a);          /* no call: left out */
    ev(&x->sink, CT_EV_RETURN, 0, 1011, a);          /* 4.4 -> 4  */
    assert_int_equal(x->finish(x, NULL), 0);
    fclose(out);
    assert_string_equal(buf, "2,0,a\n0,0,0\n2,1,b,c\n0,1,0\n1,1,2\n1,0,2\n");
    x->free(x);
    free(buf);
    ct_trace_info_free(&info);
}

static void round_trip_through_reader(void **state)
{
    (void)state;
    char path[4096];
    snprintf(path, sizeof path, "%s/samples/lms_profile.csv", formats_dir());
    struct loaded l;
    if (!load_file(&l, &ct_reader_lms, path, false))
        fail_msg("sample file missing (see tests/formats/README.md)");
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    struct ct_exporter *x = ct_exporter_new("lms", out, &l.info, NULL);
    for (size_t i = 0; i < l.rec.n; i++)
        x->sink.event(&x->sink, &l.rec.evs[i].ev);
    x->finish(x, NULL);
    fclose(out);
    struct loaded back;
    load_mem(&back, &ct_reader_lms, buf, len, false);
    assert_int_equal(back.status, CT_EXIT_OK);
    const char *names[] = {"default", "default.camera_importer",
                           "default.image_hint_detection",
                           "default.trajectory_planner"};
    for (int i = 0; i < 4; i++) {
        struct fsum p = func_sum(&l, names[i]), q = func_sum(&back, names[i]);
        assert_int_equal(p.calls, q.calls);
        assert_int_equal(p.ticks, q.ticks);
    }
    /* times are relative to the first event in the export */
    assert_int_equal(back.rec.evs[0].ev.time, 0);
    assert_int_equal(back.rec.n, l.rec.n);
    x->free(x);
    unload(&back);
    free(buf);
    unload(&l);
}

static void unknown_format(void **state)
{
    (void)state;
    struct ct_trace_info info;
    ct_trace_info_init(&info, "x", "calltrace");
    assert_null(ct_exporter_new("gprof", stdout, &info, NULL));
    ct_trace_info_free(&info);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(exact_output),
        cmocka_unit_test(round_trip_through_reader),
        cmocka_unit_test(unknown_format),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
