/* The SamplingProf reader: the sample's counts and graph, several
 * documents, colons in files and methods, errors and damage. */
#include "test_read_support.h"

static char path_buf[4096];
static const char *sample(const char *name)
{
    snprintf(path_buf, sizeof path_buf, "%s/samples/%s", formats_dir(), name);
    return path_buf;
}

static const struct ct_sample_count *count_of(struct loaded *l,
                                              const char *name)
{
    uint32_t f = func_id(l, name);
    for (size_t i = 0; i < l->info.nsample_counts; i++)
        if (l->info.sample_counts[i].func == f)
            return &l->info.sample_counts[i];
    return NULL;
}

static uint64_t arc(struct loaded *l, const char *from, const char *to)
{
    uint32_t a = from ? func_id(l, from) : CT_FUNC_NONE, b = func_id(l, to);
    for (size_t i = 0; i < l->info.nsample_arcs; i++)
        if (l->info.sample_arcs[i].caller == a &&
            l->info.sample_arcs[i].callee == b)
            return l->info.sample_arcs[i].count;
    return 0;
}

static void sample_profile(void **state)
{
    (void)state;
    struct loaded l;
    if (!load_file(&l, &ct_reader_samplingprof,
                   sample("samplingprof_profile.txt"), false))
        fail_msg("sample file missing (see tests/formats/README.md)");
    assert_int_equal(l.status, CT_EXIT_OK);
    assert_true(l.info.sampled);
    assert_true(l.info.sample_runtime_ms == 1012.337);
    assert_int_equal(l.rec.n, 0);
    /* fib:58 and fib:59 are one function */
    assert_int_equal(ct_functab_count(l.info.funcs), 7);
    assert_int_equal(l.info.nsample_counts, 7);
    assert_int_equal(count_of(&l, "<main>")->total, 10);
    assert_int_equal(count_of(&l, "<main>")->self, 0);
    assert_int_equal(count_of(&l, "parse")->self, 3);
    assert_int_equal(count_of(&l, "compute")->self, 2);
    assert_int_equal(count_of(&l, "compute")->total, 7);
    assert_int_equal(count_of(&l, "block in compute")->total, 5);
    assert_int_equal(count_of(&l, "fib")->self, 5);
    assert_int_equal(count_of(&l, "fib")->total, 5);
    uint64_t self = 0;
    for (size_t i = 0; i < l.info.nsample_counts; i++)
        self += l.info.sample_counts[i].self;
    assert_int_equal(self, 10);
    assert_int_equal(l.info.nsample_arcs, 8);
    assert_int_equal(arc(&l, NULL, "<main>"), 10);
    assert_int_equal(arc(&l, "run", "compute"), 7);
    assert_int_equal(arc(&l, "block in compute", "fib"), 5);
    assert_int_equal(arc(&l, "fib", "fib"), 2);
    const struct ct_func *f = ct_functab_get(l.info.funcs,
                                             func_id(&l, "fib"));
    assert_string_equal(f->file, "/app/lib/job.rb");
    assert_int_equal(f->line, 58);
    unload(&l);
}

static void two_documents(void **state)
{
    (void)state;
    struct loaded l;
    if (!load_file(&l, &ct_reader_samplingprof,
                   "tests/formats/samplingprof_two_docs.txt", false))
        fail_msg("sample file missing (see tests/formats/README.md)");
    assert_int_equal(l.status, CT_EXIT_OK);
    assert_true(l.info.sample_runtime_ms == 210.5);
    assert_non_null(meta(&l, "SamplingProf documents"));
    const struct ct_func *b = ct_functab_get(
        l.info.funcs, func_id(&l, "block in <class:A>"));
    assert_string_equal(b->file, "C:/app/x.rb");
    assert_int_equal(b->line, 3);
    assert_int_equal(count_of(&l, "run")->self, 3);
    assert_int_equal(count_of(&l, "run")->total, 5);
    assert_int_equal(count_of(&l, "run (/lib/z.rb)")->self, 2);
    assert_int_equal(count_of(&l, "mystery")->total, 1);
    assert_null(ct_functab_get(l.info.funcs, func_id(&l, "mystery"))->file);
    assert_int_equal(arc(&l, NULL, "block in <class:A>"), 4);
    assert_int_equal(arc(&l, NULL, "run"), 1);
    assert_int_equal(arc(&l, "run", "run (/lib/z.rb)"), 2);
    assert_int_equal(arc(&l, "run", "mystery"), 1);
    unload(&l);
}

static void errors_and_lenient(void **state)
{
    (void)state;
    struct loaded l;
    const char *bad = "5\n\na.rb:1:f,0\n\n0,1,1\n7,1,1\n\n-1,0,1\n";
    load_str(&l, &ct_reader_samplingprof, bad, false);
    assert_int_equal(l.status, CT_EXIT_BAD_INPUT);
    assert_string_equal(l.info.stopped, "malformed line 6");
    unload(&l);
    load_str(&l, &ct_reader_samplingprof, bad, true);
    assert_int_equal(l.status, CT_EXIT_OK);
    assert_int_equal(l.info.skipped_lines, 1);
    assert_int_equal(count_of(&l, "f")->self, 1);
    unload(&l);
    load_str(&l, &ct_reader_samplingprof, "", false);
    assert_int_equal(l.status, CT_EXIT_BAD_INPUT);
    unload(&l);
}

static void probe_discriminates(void **state)
{
    (void)state;
    const char *yes = "12.5\n\na.rb:1:main,0\n";
    const char *no = "2,0,reader\n0,0,10\n";
    struct ct_input a = {"a", (const uint8_t *)yes, strlen(yes)};
    struct ct_input b = {"b", (const uint8_t *)no, strlen(no)};
    assert_ptr_equal(ct_reader_detect(&a), &ct_reader_samplingprof);
    assert_int_equal(ct_reader_samplingprof.probe(&b), 0);
}

static void damage_never_crashes(void **state)
{
    (void)state;
    size_t n;
    void *d = slurp(sample("samplingprof_profile.txt"), &n);
    if (d)
        torture(&ct_reader_samplingprof, d, n, 3000);
    free(d);
    d = slurp("tests/formats/samplingprof_two_docs.txt", &n);
    if (d)
        torture(&ct_reader_samplingprof, d, n, 2000);
    free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sample_profile),
        cmocka_unit_test(two_documents),
        cmocka_unit_test(errors_and_lenient),
        cmocka_unit_test(probe_discriminates),
        cmocka_unit_test(damage_never_crashes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
