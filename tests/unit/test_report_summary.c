/* The summary's thread list: real threads by tid, synthetic ones (the evlog
 * reader's states) by name alone. */
#include "test_read_support.h"

#include "analyzer/model/view_opts.h"
#include "analyzer/model/profile.h"
#include "analyzer/report/report.h"

/* The whole summary of info (malloc'ed). */
static char *summary(struct ct_trace_info *info)
{
    struct ct_profile_opts po = {0};
    struct ct_profile *p = ct_profile_new(info, &po);
    ct_profile_finish(p);
    struct ct_view_opts o = {.brief = true, .flat_only = true};
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_int_equal(ct_report_print(f, p, &o), 0);
    fclose(f);
    ct_profile_free(p);
    return buf;
}

/* The line of the summary of info that starts with start (malloc'ed). */
static char *line_of(struct ct_trace_info *info, const char *start)
{
    char *buf = summary(info);
    char *line = strstr(buf, start);
    assert_non_null(line);
    line = strndup(line, strcspn(line, "\n"));
    free(buf);
    return line;
}

/* The " Threads: ..." line of the summary of info. */
static char *threads_line(struct ct_trace_info *info)
{
    struct ct_profile_opts po = {0};
    struct ct_profile *p = ct_profile_new(info, &po);
    ct_profile_finish(p);
    struct ct_view_opts o = {.brief = true, .flat_only = true};
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_int_equal(ct_report_print(f, p, &o), 0);
    fclose(f);
    ct_profile_free(p);
    char *line = strstr(buf, " Threads: ");
    assert_non_null(line);
    line = strndup(line, strcspn(line, "\n"));
    free(buf);
    return line;
}

static void add_thread(struct ct_trace_info *info, uint64_t tid,
                       const char *name, bool synthetic)
{
    uint32_t t = ct_trace_thread(info, tid);
    snprintf(info->threads[t].name, sizeof info->threads[t].name, "%s", name);
    info->threads[t].synthetic = synthetic;
}

static void real_and_synthetic(void **state)
{
    (void)state;
    struct ct_trace_info info;
    ct_trace_info_init(&info, "t", "evlog");
    add_thread(&info, UINT64_MAX, "state RUN", true);
    add_thread(&info, 100, "main", false);
    add_thread(&info, UINT64_MAX - 1, "state IDLE", true);
    add_thread(&info, 200, "", false);
    char *line = threads_line(&info);
    assert_string_equal(line,
                        " Threads: 4 (tid 100 main, 200; state RUN, state IDLE)");
    free(line);
    ct_trace_info_free(&info);
}

static void only_real(void **state)
{
    (void)state;
    struct ct_trace_info info;
    ct_trace_info_init(&info, "t", "calltrace");
    for (uint64_t tid = 1; tid <= 9; tid++)
        add_thread(&info, tid, "", false);
    char *line = threads_line(&info);
    assert_string_equal(line,
                        " Threads: 9 (tid 1, 2, 3, 4, 5, 6, 7, 8, ...)");
    free(line);
    ct_trace_info_free(&info);
}

/* The reader marks its state threads; the summary shows no made-up tid. */
static void evlog_states(void **state)
{
    (void)state;
    char path[4096];
    snprintf(path, sizeof path, "%s/samples/efl_debug_evlog-4242.log",
             formats_dir());
    struct loaded l;
    if (!load_file(&l, &ct_reader_evlog, path, false))
        fail_msg("sample file missing (see tests/formats/README.md)");
    assert_true(l.info.threads[0].synthetic);
    assert_false(l.info.threads[1].synthetic);
    assert_false(l.info.threads[2].synthetic);
    char *line = threads_line(&l.info);
    assert_string_equal(line, " Threads: 3 (tid 139887557433152, "
                              "139887487481600; state RUN)");
    free(line);
    unload(&l);
}

/* A newline in the program's name or command line stays on its line. */
static void program_name_escaped(void **state)
{
    (void)state;
    struct ct_trace_info info;
    ct_trace_info_init(&info, "t", "calltrace");
    snprintf(info.program, sizeof info.program, "/tmp/bad\nname\x01");
    snprintf(info.command, sizeof info.command, "./bad\nname 3");
    char *buf = summary(&info);
    const char *want = "Profiling: /tmp/bad\\nname\\x01\n"
                       " Command: ./bad\\nname 3\n";
    assert_true(strncmp(buf, want, strlen(want)) == 0);
    free(buf);
    ct_trace_info_free(&info);
}

/* Lost counts beyond any trace's (a damaged block's) say so. */
static void lost_damaged(void **state)
{
    (void)state;
    static const struct {
        uint64_t lost;
        const char *line;
    } cases[] = {
        {5, " Lost events: 5"},
        {1ull << 56, " Lost events: 72057594037927936"},
        {(1ull << 56) + 1, " Lost events: 72057594037927937 (damaged: more "
                           "than any trace can have counted)"},
        {UINT64_MAX, " Lost events: 18446744073709551615 or more (damaged: "
                     "the blocks' lost counts are impossibly large; their "
                     "sum is saturated)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct ct_trace_info info;
        ct_trace_info_init(&info, "t", "calltrace");
        info.lost_events = cases[i].lost;
        char *line = line_of(&info, " Lost events: ");
        assert_string_equal(line, cases[i].line);
        free(line);
        ct_trace_info_free(&info);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(real_and_synthetic),
        cmocka_unit_test(only_real),
        cmocka_unit_test(evlog_states),
        cmocka_unit_test(program_name_escaped),
        cmocka_unit_test(lost_damaged),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
