/* CALLTRACE_* parsing: every variable, good and bad values, and the exact
 * warning lines. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "preload/libcalls/plt.h"
#include "preload/tracer.h"

static const char *env_names[16], *env_values[16];
static int env_n;
static char warnings[8][512];
static int warn_n;

static const char *fake_getenv(const char *name)
{
    for (int i = 0; i < env_n; i++)
        if (strcmp(env_names[i], name) == 0)
            return env_values[i];
    return NULL;
}

static void fake_warn(const char *line)
{
    if (warn_n < 8)
        snprintf(warnings[warn_n], sizeof warnings[0], "%s", line);
    warn_n++;
}

static void set(const char *name, const char *value)
{
    env_names[env_n] = name;
    env_values[env_n++] = value;
}

static int reset(void **state)
{
    (void)state;
    env_n = warn_n = 0;
    return 0;
}

static void load(struct ct_config *c)
{
    ct_config_load(c, fake_getenv, fake_warn);
}

/* Loads with NAME=VALUE the only variable set. */
static void load_alone(struct ct_config *c, const char *name,
                       const char *value)
{
    reset(NULL);
    set(name, value);
    load(c);
}

static void expect_one_warning(const char *line)
{
    assert_int_equal(warn_n, 1);
    assert_string_equal(warnings[0], line);
}

static void test_defaults(void **state)
{
    (void)state;
    struct ct_config c;
    load(&c);
    assert_string_equal(c.output, "calltrace-%p.raw");
    assert_int_equal(c.bufsize, 1u << 20);
    assert_int_equal(c.limit, 0);
    assert_int_equal(c.clock_monotonic, 0);
    assert_int_equal(c.start_paused, 0);
    assert_int_equal(c.toggle_signal, 0);
    assert_int_equal(c.quiet, 0);
    assert_int_equal(c.follow, 1);
    assert_int_equal(warn_n, 0);
}

static void test_follow(void **state)
{
    (void)state;
    struct ct_config c;
    set("CALLTRACE_FOLLOW", "0");
    load(&c);
    assert_int_equal(c.follow, 0);
    assert_int_equal(warn_n, 0);
    load_alone(&c, "CALLTRACE_FOLLOW", "sometimes");
    assert_int_equal(c.follow, 1);
    expect_one_warning("calltrace: CALLTRACE_FOLLOW='sometimes': "
                       "expected 1/yes/true/on or 0/no/false/off; using 1");
}

static void test_good_values(void **state)
{
    (void)state;
    struct ct_config c;
    set("CALLTRACE_OUTPUT", "/tmp/t-%p.raw");
    set("CALLTRACE_BUFSIZE", "64K");
    set("CALLTRACE_LIMIT", "2G");
    set("CALLTRACE_CLOCK", "monotonic");
    set("CALLTRACE_START_PAUSED", "1");
    set("CALLTRACE_SIGNAL", "SIGUSR2");
    set("CALLTRACE_QUIET", "yes");
    load(&c);
    assert_int_equal(warn_n, 0);
    assert_string_equal(c.output, "/tmp/t-%p.raw");
    assert_int_equal(c.bufsize, 65536);
    assert_int_equal(c.limit, 2ull << 30);
    assert_int_equal(c.clock_monotonic, 1);
    assert_int_equal(c.start_paused, 1);
    assert_int_equal(c.toggle_signal, SIGUSR2);
    assert_int_equal(c.quiet, 1);
}

static void test_bufsize_rounding_and_bounds(void **state)
{
    (void)state;
    struct ct_config c;
    set("CALLTRACE_BUFSIZE", "5000");
    load(&c);
    assert_int_equal(c.bufsize, 8192);   /* whole pages */
    assert_int_equal(warn_n, 0);
    load_alone(&c, "CALLTRACE_BUFSIZE", "1K");
    assert_int_equal(c.bufsize, 1u << 20);
    expect_one_warning("calltrace: CALLTRACE_BUFSIZE='1K': "
                       "expected a size between 4K and 1G; using 1M");
}

static void test_cputime(void **state)
{
    (void)state;
    struct ct_config c;
    load(&c);
    assert_int_equal(c.cputime, CT_CPUTIME_SWITCH);
    set("CALLTRACE_CPUTIME", "clock");
    load(&c);
    assert_int_equal(c.cputime, CT_CPUTIME_CLOCK);
    load_alone(&c, "CALLTRACE_CPUTIME", "OFF");
    assert_int_equal(c.cputime, CT_CPUTIME_OFF);
    assert_int_equal(warn_n, 0);
    load_alone(&c, "CALLTRACE_CPUTIME", "perf");
    assert_int_equal(c.cputime, CT_CPUTIME_SWITCH);
    expect_one_warning("calltrace: CALLTRACE_CPUTIME='perf': "
                       "expected switch, clock or off; using switch");
}

static void test_bad_values(void **state)
{
    (void)state;
    struct ct_config c;
    set("CALLTRACE_BUFSIZE", "abc");
    set("CALLTRACE_LIMIT", "12Q");
    set("CALLTRACE_CLOCK", "hpet");
    set("CALLTRACE_START_PAUSED", "2");
    set("CALLTRACE_SIGNAL", "USR9");
    set("CALLTRACE_QUIET", "loud");
    set("CALLTRACE_OUTPUT", "");
    load(&c);
    assert_int_equal(warn_n, 7);
    assert_string_equal(warnings[0], "calltrace: CALLTRACE_QUIET='loud': expected 1/yes/true/on or 0/no/false/off; using 0");
    assert_string_equal(warnings[1], "calltrace: CALLTRACE_OUTPUT is empty: expected a "
                        "file path; using calltrace-%p.raw");
    assert_string_equal(warnings[2], "calltrace: CALLTRACE_BUFSIZE='abc': expected a size "
                        "such as 64K or 4M; using 1M");
    assert_string_equal(warnings[3], "calltrace: CALLTRACE_LIMIT='12Q': expected a size "
                        "such as 100M or 2G; using no limit");
    assert_string_equal(warnings[4], "calltrace: CALLTRACE_CLOCK='hpet': expected tsc, "
                        "tsc-fenced or monotonic; using tsc");
    assert_string_equal(warnings[5], "calltrace: CALLTRACE_START_PAUSED='2': expected 1/yes/true/on or 0/no/false/off; using 0");
    assert_string_equal(warnings[6], "calltrace: CALLTRACE_SIGNAL='USR9': expected a signal "
                        "such as USR2, SIGUSR2 or 12; using none");
    assert_string_equal(c.output, "calltrace-%p.raw");
    assert_int_equal(c.bufsize, 1u << 20);
    assert_int_equal(c.limit, 0);
    assert_int_equal(c.clock_monotonic, 0);
    assert_int_equal(c.clock_fenced, 0);
    assert_int_equal(c.start_paused, 0);
    assert_int_equal(c.toggle_signal, 0);
    assert_int_equal(c.quiet, 0);
}

/* CALLTRACE_CLOCK's three clocks, each alone: the fenced TSC is the TSC
 * (not monotonic) read in order. */
static void test_clock_kinds(void **state)
{
    (void)state;
    struct ct_config c;
    load_alone(&c, "CALLTRACE_CLOCK", "tsc-fenced");
    assert_int_equal(warn_n, 0);
    assert_int_equal(c.clock_monotonic, 0);
    assert_int_equal(c.clock_fenced, 1);
    load_alone(&c, "CALLTRACE_CLOCK", "TSC");
    assert_int_equal(warn_n, 0);
    assert_int_equal(c.clock_monotonic, 0);
    assert_int_equal(c.clock_fenced, 0);
    load_alone(&c, "CALLTRACE_CLOCK", "monotonic");
    assert_int_equal(c.clock_monotonic, 1);
    assert_int_equal(c.clock_fenced, 0);
    load_alone(&c, "CALLTRACE_CLOCK", "tsc-fence");
    assert_int_equal(warn_n, 1);
    assert_int_equal(c.clock_fenced, 0);
}

/* A path with no room for the pid and ".N" suffix is refused by length;
 * one that just fits is kept. */
static void test_output_length(void **state)
{
    (void)state;
    struct ct_config c;
    static char path[1200];
    memset(path, 'a', sizeof path - 1);
    load_alone(&c, "CALLTRACE_OUTPUT", path);
    assert_int_equal(warn_n, 1);
    assert_non_null(strstr(warnings[0], "expected a file path shorter than 976 bytes; "
                                        "using calltrace-%p.raw"));
    assert_string_equal(c.output, "calltrace-%p.raw");
    path[975] = '\0';
    load_alone(&c, "CALLTRACE_OUTPUT", path);
    assert_int_equal(warn_n, 0);
    assert_string_equal(c.output, path);
}

static void test_libcalls(void **state)
{
    (void)state;
    struct ct_config c;
    load(&c);
    assert_int_equal(c.libcalls, CT_LIBCALLS_PLT);
    set("CALLTRACE_LIBCALLS", "none");
    load(&c);
    assert_int_equal(c.libcalls, CT_LIBCALLS_NONE);
    env_values[env_n - 1] = "NESTED";
    load(&c);
    assert_int_equal(c.libcalls, CT_LIBCALLS_NESTED);
    env_values[env_n - 1] = "plt";
    load(&c);
    assert_int_equal(c.libcalls, CT_LIBCALLS_PLT);
    assert_int_equal(warn_n, 0);
    env_values[env_n - 1] = "all";
    load(&c);
    assert_int_equal(c.libcalls, CT_LIBCALLS_PLT);
    expect_one_warning("calltrace: CALLTRACE_LIBCALLS='all': "
                       "expected none, plt or nested; using plt");
}

static void test_supplier(void **state)
{
    (void)state;
    struct ct_config c;
    load(&c);
    assert_int_equal(c.supplier, 0);  /* off: it does not pay (BENCHMARKS.md) */
    set("CALLTRACE_SUPPLIER", "on");
    load(&c);
    assert_int_equal(c.supplier, 1);
    assert_int_equal(warn_n, 0);
    env_values[env_n - 1] = "sometimes";
    load(&c);
    assert_int_equal(c.supplier, 0);
    assert_int_equal(warn_n, 1);
    assert_string_equal(warnings[0], "calltrace: CALLTRACE_SUPPLIER='sometimes': "
                        "expected 1/yes/true/on or 0/no/false/off; using 0");
}

static void test_flight_and_control(void **state)
{
    (void)state;
    struct ct_config c;
    load(&c);
    assert_int_equal(c.flight, 0);
    assert_int_equal(c.flight_signal, 0);
    assert_int_equal(c.control, 0);
    set("CALLTRACE_FLIGHT", "64M");
    set("CALLTRACE_FLIGHT_SIGNAL", "USR1");
    set("CALLTRACE_CONTROL", "yes");
    load(&c);
    assert_int_equal(c.flight, 64ull << 20);
    assert_int_equal(c.flight_signal, SIGUSR1);
    assert_int_equal(c.control, 1);
    assert_int_equal(warn_n, 0);
    env_values[0] = "0";
    env_values[1] = "SEGV";
    env_values[2] = "maybe";
    load(&c);
    assert_int_equal(c.flight, 0);
    assert_int_equal(c.flight_signal, 0);
    assert_int_equal(c.control, 0);
    assert_int_equal(warn_n, 3);
    assert_string_equal(warnings[0], "calltrace: CALLTRACE_FLIGHT='0': "
                        "expected a ring size such as 64M; recording the "
                        "whole run");
    char want[256];
    snprintf(want, sizeof want, "calltrace: CALLTRACE_FLIGHT_SIGNAL='SEGV': "
             "expected USR1, USR2 or a real-time signal (%d-%d); using none",
             SIGRTMIN, SIGRTMAX);
    assert_string_equal(warnings[1], want);
    assert_string_equal(warnings[2], "calltrace: CALLTRACE_CONTROL='maybe': "
                        "expected 1/yes/true/on or 0/no/false/off; using 0");
    /* a streamed trace keeps everything: the ring is refused, once */
    env_values[0] = "64M";
    env_values[1] = "USR1";
    env_values[2] = "0";
    set("CALLTRACE_OUTPUT", "tcp:127.0.0.1:4444");
    warn_n = 0;
    load(&c);
    assert_int_equal(c.flight, 0);
    expect_one_warning("calltrace: CALLTRACE_FLIGHT='64M' is "
                       "ignored: the trace is streamed to tcp:127.0.0.1:4444, "
                       "which keeps it all");
}

/* The ring's slots: CALLTRACE_BUFSIZE, smaller for a small ring so that
 * it has 16 (not under 64K), at least 4; the blocks are the slots. */
static void test_flight_geometry(void **state)
{
    (void)state;
    static const struct {
        uint64_t want;
        uint32_t bufsize, slot;
        uint64_t n;
    } cases[] = {
        {64ull << 20, 1u << 20, 1u << 20, 64},   /* big ring: as asked     */
        {16ull << 20, 1u << 20, 1u << 20, 16},
        {8ull << 20, 1u << 20, 512u << 10, 16},  /* 2 x 4 threads fit      */
        {2ull << 20, 1u << 20, 128u << 10, 16},
        {1ull << 20, 1u << 20, 64u << 10, 16},
        {1000ull << 10, 1u << 20, 64u << 10, 15}, /* not under 64K          */
        {100ull << 10, 1u << 20, 64u << 10, 4},  /* never under 4 slots    */
        {64ull << 20, 4096, 64u << 10, 1024},    /* a slot holds a first block */
        {1ull << 20, 100u << 10, 64u << 10, 16}, /* smaller than asked too */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint32_t slot = 0;
        uint64_t n = ct_flight_geometry(cases[i].want, cases[i].bufsize, &slot);
        assert_int_equal(slot, cases[i].slot);
        assert_int_equal(n, cases[i].n);
        assert_int_equal(slot % CT_BLOCK_ALIGN, 0);
    }
    /* the loaded settings give the tracer blocks of the slot's size */
    struct ct_config c;
    set("CALLTRACE_FLIGHT", "2M");
    load(&c);
    assert_int_equal(c.bufsize, 128u << 10);
    set("CALLTRACE_BUFSIZE", "4M");
    load(&c);
    assert_int_equal(c.bufsize, 128u << 10);
    env_values[0] = "512M";
    load(&c);
    assert_int_equal(c.bufsize, 4u << 20);
    assert_int_equal(warn_n, 0);
}

static void test_parse_size(void **state)
{
    (void)state;
    uint64_t v;
    assert_int_equal(ct_parse_size("4096", &v), 0);
    assert_int_equal(v, 4096);
    assert_int_equal(ct_parse_size("4k", &v), 0);
    assert_int_equal(v, 4096);
    assert_int_equal(ct_parse_size("3M", &v), 0);
    assert_int_equal(v, 3u << 20);
    assert_int_equal(ct_parse_size("16KiB", &v), 0);
    assert_int_equal(v, 16384);
    assert_int_equal(ct_parse_size("1GB", &v), 0);
    assert_int_equal(v, 1ull << 30);
    assert_int_equal(ct_parse_size("", &v), -1);
    assert_int_equal(ct_parse_size("-1", &v), -1);
    assert_int_equal(ct_parse_size("1T", &v), -1);
    assert_int_equal(ct_parse_size("1 M", &v), -1);
    assert_int_equal(ct_parse_size("99999999999999999999", &v), -1);
    assert_int_equal(ct_parse_size("17179869184G", &v), -1);  /* overflows */
}

static void test_parse_signal(void **state)
{
    (void)state;
    assert_int_equal(ct_parse_signal("USR2"), SIGUSR2);
    assert_int_equal(ct_parse_signal("SIGUSR1"), SIGUSR1);
    assert_int_equal(ct_parse_signal("sigusr1"), SIGUSR1);
    assert_int_equal(ct_parse_signal("12"), 12);
    /* Parsed, then refused by ct_toggle_signal_allowed with its name. */
    assert_int_equal(ct_parse_signal("KILL"), SIGKILL);
    assert_int_equal(ct_parse_signal("9"), SIGKILL);
    assert_int_equal(ct_toggle_signal_allowed(SIGKILL), 0);
    assert_int_equal(ct_toggle_signal_allowed(SIGUSR2), 1);
    assert_int_equal(ct_parse_signal("0"), -1);
    assert_int_equal(ct_parse_signal("12x"), -1);
    assert_int_equal(ct_parse_signal(""), -1);
}

/* Signals the program or the tracer needs are refused with one line that
 * names them; the toggle stays off and nothing else changes. */
static void test_signal_refused(void **state)
{
    (void)state;
    static const char *const refused[] = {
        "SEGV", "BUS", "ILL", "FPE", "ABRT", "TRAP", "SYS", "KILL", "STOP",
        "PROF", "CHLD", "INT", "TERM", "HUP", "QUIT", "PIPE", "ALRM", "CONT",
        "TSTP", "TTIN", "TTOU", "11", "SIGSEGV"};
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
        reset(NULL);
        struct ct_config c;
        set("CALLTRACE_SIGNAL", refused[i]);
        load(&c);
        assert_int_equal(c.toggle_signal, 0);
        assert_int_equal(warn_n, 1);
        assert_non_null(strstr(warnings[0], "expected USR1, USR2 or a real-time signal"));
    }
    reset(NULL);
    struct ct_config c;
    set("CALLTRACE_SIGNAL", "SEGV");
    load(&c);
    char want[256];
    snprintf(want, sizeof want, "calltrace: CALLTRACE_SIGNAL='SEGV': SIGSEGV is "
             "needed by the program or the tracer; expected USR1, USR2 or a "
             "real-time signal (%d-%d); using none", SIGRTMIN, SIGRTMAX);
    assert_string_equal(warnings[0], want);
    char rt[16];
    snprintf(rt, sizeof rt, "%d", SIGRTMIN + 1);
    load_alone(&c, "CALLTRACE_SIGNAL", rt);
    assert_int_equal(warn_n, 0);
    assert_int_equal(c.toggle_signal, SIGRTMIN + 1);
    load_alone(&c, "CALLTRACE_SIGNAL", "usr1");
    assert_int_equal(c.toggle_signal, SIGUSR1);
}

/* LIMIT=0 is refused (it would mean either nothing or no limit); every
 * boolean takes the same words. */
static void test_limit_zero_and_bools(void **state)
{
    (void)state;
    struct ct_config c;
    set("CALLTRACE_LIMIT", "0");
    load(&c);
    assert_int_equal(c.limit, 0);
    expect_one_warning("calltrace: CALLTRACE_LIMIT='0': expected a "
                       "size such as 100M or 2G (unset it for no limit); using no limit");
    static const char *const yes[] = {"1", "yes", "YES", "true", "On"};
    static const char *const no[] = {"0", "no", "False", "off", ""};
    for (size_t i = 0; i < 5; i++) {
        reset(NULL);
        set("CALLTRACE_START_PAUSED", yes[i]);
        set("CALLTRACE_QUIET", yes[i]);
        load(&c);
        assert_int_equal(warn_n, 0);
        assert_int_equal(c.start_paused, 1);
        assert_int_equal(c.quiet, 1);
        reset(NULL);
        set("CALLTRACE_START_PAUSED", no[i]);
        set("CALLTRACE_QUIET", no[i]);
        load(&c);
        assert_int_equal(warn_n, 0);
        assert_int_equal(c.start_paused, 0);
        assert_int_equal(c.quiet, 0);
    }
}

static void test_output_name(void **state)
{
    (void)state;
    char buf[64];
    assert_int_equal(ct_output_name(buf, sizeof buf, "calltrace-%p.raw", 42, 0), 0);
    assert_string_equal(buf, "calltrace-42.raw");
    assert_int_equal(ct_output_name(buf, sizeof buf, "out.raw", 42, 0), 0);
    assert_string_equal(buf, "out.raw");
    assert_int_equal(ct_output_name(buf, sizeof buf, "out.raw", 43, 1), 0);
    assert_string_equal(buf, "out.raw.43");
    assert_int_equal(ct_output_name(buf, sizeof buf, "t-%p.raw", 43, 1), 0);
    assert_string_equal(buf, "t-43.raw");
    assert_int_equal(ct_output_name(buf, sizeof buf, "%p/%p", 7, 0), 0);
    assert_string_equal(buf, "7/7");
    assert_int_equal(ct_output_name(buf, 8, "longer-than-8", 7, 0), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_defaults, reset),
        cmocka_unit_test_setup(test_supplier, reset),
        cmocka_unit_test_setup(test_good_values, reset),
        cmocka_unit_test_setup(test_bufsize_rounding_and_bounds, reset),
        cmocka_unit_test_setup(test_bad_values, reset),
        cmocka_unit_test_setup(test_clock_kinds, reset),
        cmocka_unit_test_setup(test_output_length, reset),
        cmocka_unit_test_setup(test_follow, reset),
        cmocka_unit_test_setup(test_cputime, reset),
        cmocka_unit_test_setup(test_libcalls, reset),
        cmocka_unit_test_setup(test_flight_and_control, reset),
        cmocka_unit_test_setup(test_flight_geometry, reset),
        cmocka_unit_test(test_parse_size),
        cmocka_unit_test(test_parse_signal),
        cmocka_unit_test(test_output_name),
        cmocka_unit_test_setup(test_signal_refused, reset),
        cmocka_unit_test_setup(test_limit_zero_and_bools, reset),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
