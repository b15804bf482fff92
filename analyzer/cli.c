/*
 * calltrace-report's command line, parsed once into struct ct_options
 * (options.h): getopt's long options, --help, the checks of values and of
 * options that do not go together, durations and sizes in words.
 */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "analyzer/options.h"
#include "analyzer/readers/reader.h"
#include "analyzer/report/report.h"
#include "analyzer/model/symbolize.h"
#include "analyzer/model/tidsel.h"
#include "analyzer/util.h"

#ifndef CALLTRACE_VERSION
#define CALLTRACE_VERSION "0.1.0"
#endif

static void usage(FILE *f)
{
    fputs(
"Usage: calltrace-report [OPTION]... FILE\n"
"Print an exact gprof-format profile of a calltrace trace, or of another\n"
"profiler's log.\n"
"\n"
"Report (default: summary, flat profile, call graph, index, user events):\n"
"  -b, --brief            leave out the explanatory blurbs\n"
"  -p, --flat-profile     only the summary and the flat profile\n"
"  -q, --graph            only the summary and the call graph\n"
"  -qNAME, --focus=NAME   call graph of NAME and what it calls; NAME is a\n"
"                         glob, a name (C++: without parameters) or the\n"
"                         start of one; exit 1 if it names no function or\n"
"                         several by their start\n"
"      --threads          one report per thread (default: threads merged)\n"
"      --time-range=FROM..TO\n"
"                         only time between FROM and TO after the first\n"
"                         event (e.g. 1.5s..2s, 200ms.., ..3s)\n"
"      --min-percent=P    hide functions below P% of total time\n"
"      --subtract-bias[=run|start]\n"
"                         take the tracer's cost per call off (inside a\n"
"                         call off it, the rest off its caller), as measured\n"
"                         in the run's own calls (default) or by the\n"
"                         calibration at start\n"
"      --no-events        leave out the user-event section\n"
"      --short-names      C++ names without template arguments and\n"
"                         parameters in the flat profile and call graph\n"
"                         (the index keeps the full names)\n"
"      --demangle=HOW     C++ names everywhere: full (default), simple\n"
"                         (without parameters) or no (mangled symbols)\n"
"      --by-line          sampled traces: flat profile by source line\n"
"      --cpu              flat profile of on-CPU time (off-CPU left out)\n"
"      --tree             each thread's calls as they happen, with durations\n"
"                         (with --threads: one section per thread; --focus,\n"
"                         --time-range and --hide apply)\n"
"      --depth=N          with --tree: at most N levels\n"
"      --min-duration=T   with --tree: hide calls shorter than T (e.g. 10us)\n"
"      --hide=NAME        leave out NAME (a name or a glob; repeatable) but\n"
"                         keep its callees, as called by its caller\n"
"      --diff=OLD         compare the run in OLD with the one in FILE: per\n"
"                         function and arc, calls, self and total time in\n"
"                         both and the change, largest first (-p: functions\n"
"                         only, -q: arcs only); with --export=folded or\n"
"                         flamegraph, a differential flame graph\n"
"      --threshold=PCT    with --diff: leave out rows whose calls are equal\n"
"                         and whose times changed by less than PCT% of the\n"
"                         total time\n"
"      --stats            per function and arc: count, min, p50, p90, p99,\n"
"                         max and sum of every call's total and self time;\n"
"                         with --export=pprof, labels of each sample's leaf\n"
"                         function: min, p50, p90, p99, max of its calls\n"
"      --sort=KEY         order of the flat profile and --stats: self\n"
"                         (default), calls, total, avg, name, or min, p50,\n"
"                         p90, p99, max of the calls' total times\n"
"      --slowest=FUNC     instead of the report: FUNC's longest calls, with\n"
"                         thread, start and the tree command that shows each\n"
"  -n, --count=N          with --slowest: how many (default 10)\n"
"      --tid=TID[,TID]... only the threads with these kernel tids, in every\n"
"                         output (report, --tree, --dump, --export);\n"
"                         repeatable; 'calltrace info' lists the tids\n"
"      --notrace=NAME     leave out NAME and everything it calls (as\n"
"                         uftrace -N; repeatable)\n"
"      --caller=NAME      only the calls on the paths to a call of NAME, and\n"
"                         that call without what it calls (as uftrace -C;\n"
"                         repeatable; reads the trace twice)\n"
"\n"
"Input and output:\n"
"      --format=NAME      read FILE as NAME instead of detecting it\n"
"      --lenient          skip malformed lines of text logs, and count them\n"
"      --info             what the trace is: command line, settings, start,\n"
"                         duration, threads, clock, objects, events, losses\n"
"                         (calltrace info; alone, or with -o and --format)\n"
"      --dump             print the trace as OpenLaszlo raw records\n"
"                         (<timestamp> <C|R|S|E|V> <name>)\n"
"      --export=FORMAT    write the trace as FORMAT: openlaszlo, lms,\n"
"                         samplingprof, callgrind, dot, pprof, chrome,\n"
"                         perfetto, folded, flamegraph\n"
"                         (docs/exports.md says what reads each)\n"
"      --node-threshold=P with --export=dot: leave out functions under P%\n"
"                         of all time (default 0.5)\n"
"      --edge-threshold=P with --export=dot: leave out arcs under P%\n"
"                         (default 0.1)\n"
"      --folded-value=calls  folded, flamegraph: count calls, not time\n"
"      --icicle           flamegraph: roots at the top (default: bottom)\n"
"  -o, --output=FILE      write to FILE instead of standard output\n"
"      --no-progress      no progress bar (shown on a terminal for traces\n"
"                         that take over a second to read)\n"
"  -j, --jobs=N           decode a calltrace trace on N threads for the\n"
"                         report (default: the CPUs online, at most 8; the\n"
"                         report is the same for every N)\n"
"  -h, --help             show this help and exit\n"
"  -V, --version          show the version and exit\n"
"\n"
"Formats read:\n", f);
    for (const struct ct_reader *const *r = ct_readers; *r; r++)
        fprintf(f, "  %-14s %s\n", (*r)->name, (*r)->description);
    fputs(
"\n"
"Options that would do nothing in the output chosen are refused (exit 1):\n"
"--tree, --dump and --export exclude each other; --depth and\n"
"--min-duration need --tree; -p, -q, -b, --min-percent, --no-events and\n"
"--by-line shape the report only; --subtract-bias and --threads not\n"
"--dump; --focus goes with the report and --tree only; --by-line\n"
"needs samples, --lenient a text log; --diff goes with the report and\n"
"--export=folded or flamegraph, not with --focus, --threads, --by-line,\n"
"--cpu, --min-percent, --no-events, --stats, --sort or --slowest;\n"
"--threshold needs --diff; --stats goes with the report and\n"
"--export=pprof; --sort and --slowest go with the report only, -n with\n"
"--slowest.\n"
"\n"
"Exit status: 0 success, 1 bad usage (also: --focus names nothing, -o or\n"
"standard output is the input file, a --time-range holding no event), 2\n"
"unreadable or damaged input (a damaged trace is still reported up to the\n"
"damage).\n", f);
}

static void bad_usage(const char *fmt, const char *arg)
{
    fputs("calltrace-report: ", stderr);
    fprintf(stderr, fmt, arg);
    fputs("\nTry 'calltrace-report --help' for more information.\n", stderr);
    exit(CT_EXIT_USAGE);
}

int ct_parse_duration(const char *s, int64_t *ns)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || v < 0)
        return -1;
    double scale = 1e9;
    if (*end == 0 || strcmp(end, "s") == 0)
        scale = 1e9;
    else if (strcmp(end, "ms") == 0)
        scale = 1e6;
    else if (strcmp(end, "us") == 0 || strcmp(end, "\xc2\xb5s") == 0)
        scale = 1e3;
    else if (strcmp(end, "ns") == 0)
        scale = 1;
    else
        return -1;
    double r = v * scale;
    if (r > 9.2e18)
        return -1;
    *ns = (int64_t)(r + 0.5);
    return 0;
}

static void parse_range(struct ct_options *o, const char *arg)
{
    const char *dots = strstr(arg, "..");
    if (!dots)
        bad_usage("--time-range wants FROM..TO, got '%s'", arg);
    char from[64], to[64];
    size_t fl = (size_t)(dots - arg);
    if (fl >= sizeof from || strlen(dots + 2) >= sizeof to)
        bad_usage("--time-range: '%s' is too long", arg);
    memcpy(from, arg, fl);
    from[fl] = 0;
    strcpy(to, dots + 2);
    o->view.range_from_ns = 0;
    o->view.range_to_ns = INT64_MAX;
    if (from[0] && ct_parse_duration(from, &o->view.range_from_ns) != 0)
        bad_usage("--time-range: bad start '%s' (e.g. 1.5s, 20ms, 300us)",
                  from);
    if (to[0] && ct_parse_duration(to, &o->view.range_to_ns) != 0)
        bad_usage("--time-range: bad end '%s' (e.g. 1.5s, 20ms, 300us)", to);
    if (o->view.range_to_ns < o->view.range_from_ns)
        bad_usage("--time-range: '%s' ends before it starts", arg);
    o->view.have_range = true;
    o->range_text = arg;
}

/* Options given, by what they act on; an option that would do nothing in
 * the chosen output is refused rather than ignored. */
struct seen {
    bool depth, min_duration, count;
};

/* The output chosen: the report, --tree, --dump or --export. */
static const char *mode_name(const struct ct_options *o)
{
    if (o->dump)
        return "--dump";
    if (o->export_format)
        return "--export";
    if (o->tree)
        return "--tree";
    return NULL;
}

static bool same_file(const char *a, const char *b)
{
    struct stat x, y;
    return stat(a, &x) == 0 && stat(b, &y) == 0 && x.st_dev == y.st_dev &&
           x.st_ino == y.st_ino;
}

/* Why the options given do not go with --diff (or --threshold without
 * it), or NULL when they do. */
static const char *diff_refuse(const struct ct_options *o)
{
    if (!o->diff_base)
        return o->view.have_threshold ? "--threshold goes with --diff" : NULL;
    if (o->export_format) {
        if (strcmp(o->export_format, "folded") &&
            strcmp(o->export_format, "flamegraph"))
            return strcmp(o->export_format, "pprof") == 0
                       ? "--diff goes with --export=folded or flamegraph; "
                         "export both runs as pprof and give pprof "
                         "-diff_base=OLD.pb.gz NEW.pb.gz"
                       : "--diff goes with the report and --export=folded "
                         "or flamegraph only";
        if (o->view.have_threshold)
            return "--threshold goes with the report form of --diff";
    }
    if (o->dump || o->tree)
        return "--diff does not go with --dump or --tree";
    if (o->view.focus || o->view.per_thread || o->view.by_line || o->view.oncpu ||
        o->view.min_percent > 0 || o->view.no_events)
        return "--diff does not go with --focus, --threads, --by-line, "
               "--cpu, --min-percent or --no-events";
    /* The diff has its own order (largest change first) and its own rows;
     * the distributions are not compared yet. */
    if (o->view.stats || o->view.sort || o->view.slowest)
        return "--diff does not go with --stats, --sort or --slowest";
    /* thread ids are the kernel's of one run: the other run has others */
    if (o->ntids)
        return "--diff does not go with --tid";
    if (o->output && same_file(o->output, o->diff_base))
        return "-o names the --diff file: refusing to write over it";
    return NULL;
}

static void refuse_conflicts(const struct ct_options *o,
                             const struct seen *seen)
{
    int modes = o->dump + !!o->export_format + o->tree;
    if (modes > 1)
        bad_usage("%s", o->dump && o->export_format
                            ? "--dump and --export exclude each other"
                            : o->tree && o->dump
                                  ? "--tree and --dump exclude each other"
                                  : "--tree and --export exclude each other");
    if (!o->tree && seen->depth)
        bad_usage("%s", "--depth works with --tree only");
    if (!o->tree && seen->min_duration)
        bad_usage("%s", "--min-duration works with --tree only");
    if (!o->view.slowest && seen->count)
        bad_usage("%s", "-n (--count) works with --slowest only");
    const char *mode = mode_name(o);
    if (!mode)
        return;
    /* what only the gprof-format report does */
    static const char fmt[] = "%s does not go with --dump, --export or --tree";
    if (o->view.flat_only)
        bad_usage(fmt, "-p (--flat-profile)");
    if (o->view.graph_only && !o->view.focus)
        bad_usage(fmt, "-q (--graph)");
    if (o->view.brief)
        bad_usage(fmt, "-b (--brief)");
    if (o->view.min_percent > 0)
        bad_usage(fmt, "--min-percent");
    if (o->view.no_events)
        bad_usage(fmt, "--no-events");
    if (o->view.by_line)
        bad_usage(fmt, "--by-line");
    /* pprof carries the distributions as labels (export_pprof.c) */
    if (o->view.stats && !(o->export_format && strcmp(o->export_format, "pprof") == 0))
        bad_usage("%s", "--stats goes with the report and --export=pprof "
                        "only");
    if (o->view.sort)
        bad_usage(fmt, "--sort");
    if (o->view.slowest)
        bad_usage(fmt, "--slowest");
    /* --tree and the profile behind --export honour it; --dump does not */
    if (o->view.subtract_bias && o->dump)
        bad_usage("%s does not go with --dump", "--subtract-bias");
    /* --tree honours these (docs/report-format.md); the writers do not,
     * but for --threads, which the stack writers (folded, flamegraph)
     * take as a frame per thread */
    if (!o->tree && o->view.focus)
        bad_usage("%s does not go with --dump or --export", "--focus (-qNAME)");
    if (o->dump && o->view.per_thread)
        bad_usage("%s does not go with --dump", "--threads");
}

enum {
    OPT_THREADS = 256, OPT_RANGE, OPT_MIN_PERCENT, OPT_SUBTRACT_BIAS,
    OPT_TREE, OPT_DEPTH, OPT_MIN_DURATION, OPT_FORMAT, OPT_LENIENT, OPT_DUMP,
    OPT_EXPORT, OPT_FOCUS, OPT_BY_LINE, OPT_NO_EVENTS, OPT_NODE_THRESHOLD,
    OPT_EDGE_THRESHOLD, OPT_CPU, OPT_NO_PROGRESS, OPT_SHORT_NAMES, OPT_HIDE,
    OPT_FOLDED_VALUE, OPT_ICICLE, OPT_DIFF, OPT_THRESHOLD, OPT_STATS, OPT_SORT,
    OPT_SLOWEST, OPT_TID, OPT_INFO, OPT_NOTRACE, OPT_CALLER, OPT_DEMANGLE,
};

/* The CPUs online, at most 8: more threads than that only wait on memory. */
static unsigned default_jobs(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 8 ? 8 : (unsigned)n;
}

static double parse_percent(const char *opt, const char *arg)
{
    char *end;
    double v = strtod(arg, &end);
    if (end == arg || *end || !(v >= 0 && v <= 100))
        bad_usage(opt, arg);
    return v;
}

void ct_options_parse(struct ct_options *o, int argc, char **argv)
{
    static const struct option longopts[] = {
        {"brief", no_argument, NULL, 'b'},
        {"flat-profile", no_argument, NULL, 'p'},
        {"graph", no_argument, NULL, 'q'},
        {"focus", required_argument, NULL, OPT_FOCUS},
        {"threads", no_argument, NULL, OPT_THREADS},
        {"time-range", required_argument, NULL, OPT_RANGE},
        {"min-percent", required_argument, NULL, OPT_MIN_PERCENT},
        {"subtract-bias", optional_argument, NULL, OPT_SUBTRACT_BIAS},
        {"no-events", no_argument, NULL, OPT_NO_EVENTS},
        {"cpu", no_argument, NULL, OPT_CPU},
        {"no-progress", no_argument, NULL, OPT_NO_PROGRESS},
        {"short-names", no_argument, NULL, OPT_SHORT_NAMES},
        {"by-line", no_argument, NULL, OPT_BY_LINE},
        {"tree", no_argument, NULL, OPT_TREE},
        {"depth", required_argument, NULL, OPT_DEPTH},
        {"min-duration", required_argument, NULL, OPT_MIN_DURATION},
        {"hide", required_argument, NULL, OPT_HIDE},
        {"notrace", required_argument, NULL, OPT_NOTRACE},
        {"caller", required_argument, NULL, OPT_CALLER},
        {"demangle", required_argument, NULL, OPT_DEMANGLE},
        {"format", required_argument, NULL, OPT_FORMAT},
        {"lenient", no_argument, NULL, OPT_LENIENT},
        {"dump", no_argument, NULL, OPT_DUMP},
        {"export", required_argument, NULL, OPT_EXPORT},
        {"node-threshold", required_argument, NULL, OPT_NODE_THRESHOLD},
        {"edge-threshold", required_argument, NULL, OPT_EDGE_THRESHOLD},
        {"folded-value", required_argument, NULL, OPT_FOLDED_VALUE},
        {"icicle", no_argument, NULL, OPT_ICICLE},
        {"diff", required_argument, NULL, OPT_DIFF},
        {"threshold", required_argument, NULL, OPT_THRESHOLD},
        {"stats", no_argument, NULL, OPT_STATS},
        {"sort", required_argument, NULL, OPT_SORT},
        {"slowest", required_argument, NULL, OPT_SLOWEST},
        {"count", required_argument, NULL, 'n'},
        {"tid", required_argument, NULL, OPT_TID},
        {"info", no_argument, NULL, OPT_INFO},
        {"output", required_argument, NULL, 'o'},
        {"jobs", required_argument, NULL, 'j'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    memset(o, 0, sizeof *o);
    o->view.range_to_ns = INT64_MAX;
    o->view.node_threshold = o->view.edge_threshold = -1;
    o->jobs = default_jobs();
    o->view.slowest_n = 10;
    struct seen seen = {0};
    int c;
    char *end;
    while ((c = getopt_long(argc, argv, "bpq::o:j:n:hV", longopts, NULL)) != -1) {
        switch (c) {
        case 'b': o->view.brief = true; break;
        case 'p': o->view.flat_only = true; break;
        case 'q':
            o->view.graph_only = true;
            if (optarg)
                o->view.focus = optarg;
            break;
        case OPT_FOCUS: o->view.focus = optarg; break;
        case OPT_THREADS: o->view.per_thread = true; break;
        case OPT_RANGE: parse_range(o, optarg); break;
        case OPT_MIN_PERCENT:
            o->view.min_percent = strtod(optarg, &end);
            if (end == optarg || *end || o->view.min_percent < 0 ||
                o->view.min_percent > 100)
                bad_usage("--min-percent wants a number from 0 to 100, got "
                          "'%s'", optarg);
            break;
        case OPT_SUBTRACT_BIAS:
            o->view.subtract_bias = true;
            if (optarg && strcmp(optarg, "start") == 0)
                o->view.bias_at_start = true;
            else if (optarg && strcmp(optarg, "run") != 0)
                bad_usage("--subtract-bias takes run or start, got '%s'",
                          optarg);
            break;
        case OPT_NO_EVENTS: o->view.no_events = true; break;
        case OPT_NO_PROGRESS: o->no_progress = true; break;
        case OPT_SHORT_NAMES: o->view.short_names = true; break;
        case OPT_BY_LINE: o->view.by_line = true; break;
        case OPT_CPU: o->view.oncpu = true; break;
        case OPT_TREE: o->tree = true; break;
        case OPT_DEPTH: {
            unsigned long v = strtoul(optarg, &end, 10);
            if (end == optarg || *end || v > UINT32_MAX)
                bad_usage("--depth wants a whole number, got '%s'", optarg);
            o->view.tree_depth = (uint32_t)v;
            seen.depth = true;
            break;
        }
        case OPT_MIN_DURATION:
            if (ct_parse_duration(optarg, &o->view.tree_min_ns) != 0)
                bad_usage("--min-duration wants a time such as 10us, got "
                          "'%s'", optarg);
            seen.min_duration = true;
            break;
        case OPT_HIDE:
            o->hide = ct_xrealloc(o->hide, (o->nhide + 1) * sizeof *o->hide);
            o->hide[o->nhide++] = optarg;
            break;
        case OPT_NOTRACE:
            o->notrace = ct_xrealloc(o->notrace,
                                     (o->nnotrace + 1) * sizeof *o->notrace);
            o->notrace[o->nnotrace++] = optarg;
            break;
        case OPT_CALLER:
            o->callers = ct_xrealloc(o->callers,
                                     (o->ncallers + 1) * sizeof *o->callers);
            o->callers[o->ncallers++] = optarg;
            break;
        case OPT_FORMAT:
            if (!ct_reader_find(optarg))
                bad_usage("unknown --format '%s' (see --help for the list)",
                          optarg);
            o->format = optarg;
            break;
        case OPT_LENIENT: o->lenient = true; break;
        case OPT_DUMP: o->dump = true; break;
        case OPT_EXPORT: o->export_format = optarg; break;
        case OPT_NODE_THRESHOLD:
            o->view.node_threshold = parse_percent(
                "--node-threshold wants a percentage from 0 to 100, got '%s'",
                optarg);
            break;
        case OPT_EDGE_THRESHOLD:
            o->view.edge_threshold = parse_percent(
                "--edge-threshold wants a percentage from 0 to 100, got '%s'",
                optarg);
            break;
        case OPT_FOLDED_VALUE:
            if (strcmp(optarg, "calls") && strcmp(optarg, "time"))
                bad_usage("--folded-value wants time or calls, got '%s'",
                          optarg);
            o->view.folded_calls = strcmp(optarg, "calls") == 0;
            break;
        case OPT_ICICLE: o->view.icicle = true; break;
        case OPT_DIFF: o->diff_base = optarg; break;
        case OPT_THRESHOLD:
            o->view.diff_threshold = parse_percent(
                "--threshold wants a percentage from 0 to 100, got '%s'",
                optarg);
            o->view.have_threshold = true;
            break;
        case OPT_STATS: o->view.stats = true; break;
        case OPT_SORT:
            if (!ct_sort_key_valid(optarg))
                bad_usage("--sort wants self, calls, total, avg, name, min, "
                          "p50, p90, p99 or max, got '%s'", optarg);
            o->view.sort = optarg;
            break;
        case OPT_SLOWEST: o->view.slowest = optarg; break;
        case 'n': {
            unsigned long v = strtoul(optarg, &end, 10);
            if (end == optarg || *end || v < 1 || v > 100000)
                bad_usage("-n wants a number from 1 to 100000, got '%s'",
                          optarg);
            o->view.slowest_n = (uint32_t)v;
            seen.count = true;
            break;
        }
        case OPT_INFO: o->info = true; break;
        case OPT_DEMANGLE:
            if (strcmp(optarg, "full") == 0)
                ct_symbolizer_set_demangle(CT_DEMANGLE_FULL);
            else if (strcmp(optarg, "simple") == 0)
                ct_symbolizer_set_demangle(CT_DEMANGLE_SIMPLE);
            else if (strcmp(optarg, "no") == 0)
                ct_symbolizer_set_demangle(CT_DEMANGLE_NO);
            else
                bad_usage("--demangle wants full, simple or no, got '%s'",
                          optarg);
            break;
        case OPT_TID:
            if (ct_tid_parse(optarg, &o->tids, &o->ntids) != 0)
                bad_usage("--tid wants thread ids such as 4242 or 4242,4243, "
                          "got '%s'", optarg);
            break;
        case 'o': o->output = optarg; break;
        case 'j': {
            unsigned long v = strtoul(optarg, &end, 10);
            if (end == optarg || *end || v < 1 || v > 256)
                bad_usage("--jobs wants a number from 1 to 256, got '%s'",
                          optarg);
            o->jobs = (unsigned)v;
            break;
        }
        case 'h': usage(stdout); exit(CT_EXIT_OK);
        case 'V':
            printf("calltrace-report %s\n", CALLTRACE_VERSION);
            exit(CT_EXIT_OK);
        default:
            fputs("Try 'calltrace-report --help' for more information.\n",
                  stderr);
            exit(CT_EXIT_USAGE);
        }
    }
    if (optind + 1 != argc)
        bad_usage("%s", optind >= argc ? "no input file named"
                                       : "only one input file at a time");
    o->input = argv[optind];
    refuse_conflicts(o, &seen);
    const char *no_diff = diff_refuse(o);
    if (no_diff)
        bad_usage("%s", no_diff);
    /* --info reads the whole trace as it is: a window, a selection or a
     * view's option would not change what it says. */
    if (o->info && (mode_name(o) || seen.depth || seen.min_duration ||
                    o->view.focus || o->view.graph_only || o->view.flat_only || o->view.brief ||
                    o->view.per_thread || o->view.have_range || o->nhide || o->nnotrace || o->ncallers ||
                    o->ntids ||
                    o->view.by_line || o->view.oncpu || o->view.subtract_bias || o->view.stats ||
                    o->view.sort || o->view.slowest || o->diff_base))
        bad_usage("%s", "--info goes with -o, --format and --lenient only");
    if ((o->view.node_threshold >= 0 || o->view.edge_threshold >= 0) &&
        (!o->export_format || strcmp(o->export_format, "dot") != 0))
        bad_usage("%s", "--node-threshold and --edge-threshold go with "
                        "--export=dot");
    /* gprof: -p and -q together print both */
    if (o->view.flat_only && o->view.graph_only)
        o->view.flat_only = o->view.graph_only = false;
}
