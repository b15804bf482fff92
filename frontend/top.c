/*
 * calltrace top: watch a trace while it is written, as perf top does: a
 * flat profile refreshed every interval, from the blocks and records that
 * are new since the previous refresh (calltrace_follow.c).  In a terminal
 * it takes keys; piped, it prints one table per interval.  It ends when
 * the trace will not grow any more (its process exited, or is gone), on q,
 * or on Ctrl-C.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "frontend/frontend.h"
#include "frontend/record.h"
#include "analyzer/model/hide.h"
#include "analyzer/model/tidsel.h"
#include "frontend/top.h"
#include "analyzer/util.h"

static void usage(FILE *f)
{
    fputs(
"Usage: calltrace top [OPTION]... [FILE | PID]\n"
"       calltrace top [OPTION]... -- PROGRAM [ARG]...\n"
"Show the hottest functions of a trace while it is being written: a flat\n"
"profile refreshed every interval, like perf top.  FILE is a trace (default\n"
"calltrace.raw), or one that 'calltrace recv' is receiving; PID watches the\n"
"trace that traced process writes; -- PROGRAM starts PROGRAM traced (into\n"
"$CALLTRACE_OUTPUT, default calltrace.raw, the previous one kept as\n"
"calltrace.raw.old) and watches it; on a terminal PROGRAM's input and\n"
"output are /dev/null, the screen being top's.\n"
"\n"
"  -i, --interval=SECONDS  time between refreshes (default 1)\n"
"  -t, --total             sort by total time (default: self time)\n"
"  -s, --since-start       figures since the start (default: the last\n"
"                          interval)\n"
"  -n, --iterations=N      stop after N refreshes\n"
"      --tid=TID[,TID]...  only these threads (kernel tids; repeatable)\n"
"      --hide=NAME         leave NAME's calls out, its time and callees\n"
"                          counted as its caller's (a glob; repeatable)\n"
"      --notrace=NAME      leave NAME out with all it calls, their time\n"
"                          counted as its caller's (a glob; repeatable)\n"
"  -r, --rows=N            functions per table when not on a terminal\n"
"                          (default 20; a terminal shows what fits)\n"
"  -b, --subtract-bias     take the tracer's measured per-call cost off,\n"
"                          as calltrace report --subtract-bias does\n"
"  -h, --help              show this help and exit\n"
"  -V, --version           show the version and exit\n"
"\n"
"Keys in a terminal: q quits, t switches between self and total time, a\n"
"between the last interval and since the start.  When standard output is\n"
"not a terminal, one table per interval is printed instead.\n"
"\n"
"top ends by itself once the trace is closed (its process exited) or its\n"
"process is gone without closing it (crashed or killed), and says so; its\n"
"last table covers the whole run.\n"
"Exit status: 0; 1 bad usage; 2 a trace that cannot be read; 128+N when\n"
"signal N stopped it.\n", f);
}

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void snapshot(struct top *t, struct top_snapshot *s)
{
    uint32_t n = ct_functab_count(t->info.funcs);
    if (n > s->n || !s->f)
        s->f = ct_xrealloc(s->f, (n ? n : 1) * sizeof *s->f);
    s->n = n;
    ct_profile_live(t->prof, s->f, n);
    s->now = ct_profile_live_now(t->prof);
    /* A thread that starts later may have begun earlier than the first
     * one seen: the earliest so far. */
    t->first = ct_profile_live_first(t->prof);
}

static int refresh(struct top *t)
{
    int s = ct_follow_poll(t->follow, t->path);
    struct top_snapshot old = t->prev;
    t->prev = t->cur;
    t->cur = old;
    t->cur.f = old.f;
    snapshot(t, &t->cur);
    return s;
}

static void end_note(struct top *t)
{
    const struct ct_follow_status *st = ct_follow_status(t->follow);
    unsigned pid = (unsigned)t->info.pid;
    if (st->damaged)
        snprintf(t->end_note, sizeof t->end_note,
                 "calltrace top: reading stopped: %s", t->info.stopped);
    else if (st->writer == CT_WRITER_DONE)
        snprintf(t->end_note, sizeof t->end_note,
                 "calltrace top: process %u exited and closed its trace", pid);
    else
        snprintf(t->end_note, sizeof t->end_note,
                 "calltrace top: process %u is gone and its trace was not "
                 "closed (it crashed or was killed); read up to its last "
                 "complete record", pid);
}

/* The table in the terminal, as many rows as fit. */
static void draw(struct top *t)
{
    unsigned cols, lines;
    top_tty_size(&cols, &lines);
    top_render(t, stdout, cols,
               lines > TOP_HEAD_LINES + 2 ? lines - TOP_HEAD_LINES - 2 : 1,
               true);
}

/* Until the next refresh: keys in a terminal, a sleep otherwise.  False
 * when it is time to stop (q, or a signal: *sig). */
static bool wait_interval(struct top *t, bool tty, int *sig)
{
    double until = mono_s() + t->interval_s;
    for (;;) {
        double left = until - mono_s();
        if (left <= 0)
            return true;
        int ms = (int)(left * 1000) + 1;
        int k = tty ? top_tty_key(ms, sig) : top_wait(ms, sig);
        if (k < 0 || k == 'q' || k == 'Q')
            return false;
        if (k == 't' || k == 'a') {
            if (k == 't')
                t->by_total = !t->by_total;
            else
                t->since_start = !t->since_start;
            draw(t);
        }
    }
}

static int parse_count(const char *s, const char *what)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *end || v < 1 || v > 1000000)
        ct_fe_usage_error("top", "%s: expected a positive number, got '%s'",
                          what, s);
    return (int)v;
}

int ct_fe_top(int argc, char **argv)
{
    static const struct option longs[] = {
        {"interval", required_argument, NULL, 'i'},
        {"total", no_argument, NULL, 't'},
        {"since-start", no_argument, NULL, 's'},
        {"iterations", required_argument, NULL, 'n'},
        {"rows", required_argument, NULL, 'r'},
        {"subtract-bias", no_argument, NULL, 'b'},
        {"tid", required_argument, NULL, 'T'},
        {"hide", required_argument, NULL, 'H'},
        {"notrace", required_argument, NULL, 'N'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    struct top t;
    memset(&t, 0, sizeof t);
    t.interval_s = 1.0;
    t.rows = 20;
    int iterations = 0, c;
    bool subtract_bias = false;
    uint64_t *tids = NULL;
    size_t ntids = 0;
    /* --hide and --notrace, as calltrace-report takes them */
    const char **hide = calloc((size_t)argc, sizeof *hide);
    const char **notrace = calloc((size_t)argc, sizeof *notrace);
    size_t nhide = 0, nnotrace = 0;
    if (!hide || !notrace) {
        ct_fe_error("out of memory");
        return CT_FE_FAILED;
    }
    opterr = 0;
    while ((c = getopt_long(argc, argv, "+i:tsn:r:bhV", longs, NULL)) != -1) {
        switch (c) {
        case 'i': {
            char *end;
            t.interval_s = strtod(optarg, &end);
            if (*optarg == '\0' || *end || !(t.interval_s >= 0.05) ||
                t.interval_s > 3600)
                ct_fe_usage_error("top", "--interval: expected seconds "
                                  "from 0.05 to 3600, got '%s'", optarg);
            break;
        }
        case 't': t.by_total = true; break;
        case 's': t.since_start = true; break;
        case 'n': iterations = parse_count(optarg, "--iterations"); break;
        case 'r': t.rows = (unsigned)parse_count(optarg, "--rows"); break;
        case 'b': subtract_bias = true; break;
        case 'T':
            if (ct_tid_parse(optarg, &tids, &ntids) != 0)
                ct_fe_usage_error("top", "--tid: expected thread ids such as "
                                  "4242 or 4242,4243, got '%s'", optarg);
            break;
        case 'H':
        case 'N':
            if (!*optarg)
                ct_fe_usage_error("top", "--%s: expected a function name "
                                  "or glob", c == 'H' ? "hide" : "notrace");
            if (c == 'H')
                hide[nhide++] = optarg;
            else
                notrace[nnotrace++] = optarg;
            break;
        case 'h': usage(stdout); return 0;
        case 'V': ct_fe_version();
        default:
            ct_fe_usage_error("top", "unknown option '%s'",
                              argv[optind - 1]);
        }
    }
    bool tty = isatty(STDOUT_FILENO) && isatty(STDIN_FILENO);
    pid_t child = 0;
    char *found = NULL;
    const char *arg = optind < argc ? argv[optind] : NULL;
    bool dashdash = optind > 1 && strcmp(argv[optind - 1], "--") == 0;
    if (dashdash && arg) {
        /* As record does: the trace written now is the one that
         * calltrace report reads next, the previous one kept as .old. */
        if (!getenv("CALLTRACE_OUTPUT") &&
            ct_fe_keep_previous(CT_FE_DEFAULT_TRACE) != 0)
            return CT_FE_FAILED;
        child = top_spawn(argv + optind, tty);
        if (child < 0)
            return CT_FE_FAILED;
        /* The tracer maps its file as the program starts. */
        for (int i = 0; i < 100 && !found; i++) {
            usleep(50000);
            int status;
            if (waitpid(child, &status, WNOHANG) == child) {
                ct_fe_error("%s ended before its trace could be found",
                            argv[optind]);
                return CT_FE_FAILED;
            }
            found = top_find_trace(child, true);
        }
        if (!found)
            found = top_find_trace(child, false);
        if (!found)
            return CT_FE_FAILED;
        t.path = found;
    } else {
        if (arg && optind + 1 < argc)
            ct_fe_usage_error("top", "one trace or pid at a time, got '%s' "
                              "and '%s'", arg, argv[optind + 1]);
        t.path = arg ? arg : CT_FE_DEFAULT_TRACE;
        char *end;
        long pid = arg ? strtol(arg, &end, 10) : 0;
        if (arg && *arg && !*end && pid > 0 && access(arg, F_OK) != 0) {
            found = top_find_trace((pid_t)pid, false);
            if (!found)
                return CT_FE_FAILED;
            t.path = found;
        }
    }

    if (access(t.path, R_OK) != 0) {
        ct_fe_error("cannot read %s: %m", t.path);
        free(found);
        return CT_FE_FAILED;
    }
    ct_trace_info_init(&t.info, t.path, "calltrace");
    struct ct_profile_opts po = {.subtract_bias = subtract_bias};
    t.prof = ct_profile_new(&t.info, &po);
    /* --hide, --notrace and --tid: in the order every view of
     * calltrace-report has them (load.c), so top leaves out the same calls */
    struct ct_hide_filter hidesel;
    struct ct_tid_filter tidsel;
    struct ct_sink *sink = ct_profile_sink(t.prof);
    if (nhide || nnotrace) {
        ct_hide_filter_init(&hidesel, sink, &t.info, hide, nhide);
        ct_hide_filter_notrace(&hidesel, notrace, nnotrace);
        sink = &hidesel.sink;
    }
    if (ntids) {
        ct_tid_filter_init(&tidsel, sink, &t.info, tids, ntids);
        sink = &tidsel.sink;
    }
    t.follow = ct_follow_new(&t.info, sink);
    top_catch_signals();
    if (refresh(&t) != CT_EXIT_OK && !ct_follow_status(t.follow)->header_read) {
        ct_follow_free(t.follow);
        if (nhide || nnotrace)
            ct_hide_filter_free(&hidesel);
        ct_profile_free(t.prof);
        ct_trace_info_free(&t.info);
        free(found);
        free(hide);
        free(notrace);
        return CT_FE_FAILED;
    }
    if (tty && !top_tty_enter())
        tty = false;

    int sig = 0, status = 0, shown = 0;
    bool quit = false;
    for (;;) {
        const struct ct_follow_status *st = ct_follow_status(t.follow);
        bool over = st->caught_up || st->damaged;
        if (over) {
            end_note(&t);
            /* The last interval of a finished run is a sliver of it. */
            t.since_start = true;
        }
        if (tty && !over) {
            draw(&t);
        } else if (!tty) {
            top_render(&t, stdout, 0, t.rows, false);
            if (!over)
                fputs("\n", stdout);
            fflush(stdout);
        }
        shown++;
        if (over || (iterations && shown >= iterations))
            break;
        if (!wait_interval(&t, tty, &sig)) {
            quit = true;
            break;
        }
        if (refresh(&t) != CT_EXIT_OK)
            status = CT_FE_FAILED;
    }
    if (tty) {
        top_tty_leave();
        /* The last table stays on the screen once top is gone. */
        top_render(&t, stdout, 0, t.rows, false);
    }
    if (child > 0 && waitpid(child, NULL, WNOHANG) == 0 && quit)
        fprintf(stderr, "calltrace top: %s (pid %d) still runs; its trace "
                "goes on in %s\n", argv[optind], (int)child, t.path);
    ct_follow_free(t.follow);
    if (nhide || nnotrace)
        ct_hide_filter_free(&hidesel);
    ct_profile_free(t.prof);
    ct_trace_info_free(&t.info);
    free(hide);
    free(notrace);
    free(t.prev.f);
    free(t.cur.f);
    free(found);
    free(tids);
    if (sig)
        return 128 + sig;
    return status;
}
