/*
 * calltrace record: runs a program under the tracer and leaves one
 * recording behind.  Each process writes calltrace-<pid>.raw into a fresh
 * staging folder next to the output; at the end a single trace becomes the
 * output file, several become the output folder, and whatever was there
 * before is kept as OUTPUT.old (as perf keeps perf.data.old).
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyzer/readers/calltrace_pack.h"
#include "frontend/frontend.h"
#include "frontend/record.h"
#include "settings/args_spec.h"
#include "settings/config.h"
#include "settings/filter_spec.h"

static void usage(FILE *f)
{
    fputs(
"Usage: calltrace record [OPTION]... [--] PROGRAM [ARG]...\n"
"Run PROGRAM with the tracer preloaded and write its trace.\n"
"PROGRAM is built with -finstrument-functions (see 'calltrace cflags'),\n"
"or recorded with --sample.\n"
"\n"
"  -o, --output=FILE     the recording (default calltrace.raw; the previous\n"
"                        one is kept as FILE.old); a run of several traced\n"
"                        processes makes FILE a folder, one trace each;\n"
"                        tcp:HOST:PORT or unix:PATH streams the trace to a\n"
"                        listener instead (calltrace recv, nc -l)\n"
"      --host=HOST       stream to HOST (default 127.0.0.1 with --port)\n"
"      --port=PORT       stream to PORT (default 4444 with --host)\n"
"      --profile         keep each thread's call paths with their counts and\n"
"                        times in memory, not every call (CALLTRACE_MODE=\n"
"                        profile); --profile-paths=N: room per thread\n"
"  -s, --sample[=INTERVAL]\n"
"                        sample stacks instead of recording calls (no\n"
"                        rebuild needed), every INTERVAL of CPU time\n"
"                        (default 10ms; e.g. 500us, 1ms, 0.1s)\n"
"      --sample-clock=cpu|wall\n"
"                        sample each thread's CPU time (default) or its\n"
"                        wall-clock time, blocked time included (needs\n"
"                        root or perf_event_paranoid <= 1)\n"
"      --clock=tsc|tsc-fenced|monotonic\n"
"                        timestamp clock (default tsc where invariant);\n"
"                        tsc-fenced reads it in order: truer times of\n"
"                        short functions, a dearer call\n"
"      --bufsize=SIZE    block size per thread, 4K to 1G (default 1M)\n"
"      --limit=SIZE      largest trace; events past it are counted as lost\n"
"      --pack            compress the trace's call records (zstd) as the\n"
"                        program runs, off its threads, and once it is done\n"
"                        as 'calltrace pack' does: the disk holds about the\n"
"                        packed size\n"
"      --paused          start with tracing off (calltrace_enable() or the\n"
"                        --signal turns it on)\n"
"      --signal=SIG      a signal that toggles tracing, e.g. USR2; SIG@on,\n"
"                        SIG@off, SIG@finish (off for good) instead\n"
"      --flight=SIZE     flight recorder: keep only the newest SIZE of each\n"
"                        process's trace (e.g. 64M)\n"
"      --flight-signal=SIG\n"
"                        a signal that copies the trace to TRACE.snapN\n"
"      --control         serve 'calltrace control PID ...' (on, off,\n"
"                        snapshot, status, filter)\n"
"      --cputime=MODE    how on-CPU time is told from off-CPU time: switch\n"
"                        (default), clock or off\n"
"      --filter=SPEC     record only some functions: PATTERN (and what it\n"
"                        calls), PATTERN@N (N levels), -PATTERN (not it,\n"
"                        its callees yes), PATTERN:notrace (neither),\n"
"                        PATTERN:caller (only the paths to it), size=N\n"
"                        (not functions under N bytes); globs,\n"
"                        re:REGEX, C++ names;\n"
"                        comma-separated (CALLTRACE_FILTER)\n"
"      --args=SPEC       keep the arguments and return values of library\n"
"                        calls and of the program's functions (with the\n"
"                        hooks: where its debug information puts them),\n"
"                        in uftrace's\n"
"                        spelling: NAME@arg1/i32,arg2/s,retval (globs,\n"
"                        re:REGEX; ';' between rules; repeatable);\n"
"                        NAME@args: every parameter by its type in the\n"
"                        program's debug information (NAME@args,retval)\n"
"                        (CALLTRACE_ARGS)\n"
"      --auto-args       the same for common libc and pthread functions\n"
"                        (open, read, write, malloc, free, mmap, ...) and\n"
"                        every function with debug information\n"
"      --depth=N         no call deeper than N levels\n"
"      --min-duration=T  keep only calls that lasted T (e.g. 10us)\n"
"      --trigger=SPEC    FUNC:on / FUNC:off: recording starts / stops when\n"
"                        FUNC is entered; FUNC:ACTION[:ACTION] for uftrace's\n"
"                        trace_on, trace_off, notrace, caller, trace,\n"
"                        depth=N, time=T, finish, backtrace (comma-separated)\n"
"      --no-follow       do not trace children started with an environment\n"
"                        of their own (execve, posix_spawn, system, popen)\n"
"      --timeout=T       once PROGRAM exits, wait at most T (e.g. 10, 2.5s,\n"
"                        500ms, 1m) for the traced processes it left running\n"
"                        (default: no limit; Ctrl-C also ends the wait)\n"
"  -q, --quiet           no messages from the tracer, no closing line\n"
"  -h, --help            show this help and exit\n"
"  -V, --version         show the version and exit\n"
"\n"
"On exit one line on stderr names the recording, its size, events, lost\n"
"events, threads and processes; another says how many events were lost\n"
"and why, if any were.  When at its rate the trace will fill its file\n"
"system within 10 minutes, one line says so early.  calltrace exits with\n"
"PROGRAM's status (128+N when a signal N killed it); 1 for bad usage, 2\n"
"when nothing could be recorded.  PROGRAM's input, output and errors pass\n"
"through untouched; Ctrl-C reaches PROGRAM.  The traces are written to a\n"
"hidden folder beside FILE, or under $TMPDIR when FILE is in the working\n"
"directory, and moved into place at the end.  A static PROGRAM, or one in\n"
"a folder calltrace cannot write to, runs untraced, with one line saying\n"
"why.\n", f);
}

enum {
    OPT_SAMPLE_CLOCK = 256, OPT_PROFILE, OPT_PROFILE_PATHS, OPT_CLOCK, OPT_BUFSIZE, OPT_LIMIT, OPT_PAUSED,
    OPT_SIGNAL, OPT_CPUTIME, OPT_FOLLOW, OPT_NO_FOLLOW, OPT_FLIGHT,
    OPT_FLIGHT_SIGNAL, OPT_CONTROL, OPT_FILTER, OPT_DEPTH, OPT_MIN_DURATION,
    OPT_TRIGGER, OPT_HOST, OPT_PORT, OPT_TIMEOUT, OPT_ARGS, OPT_AUTO_ARGS,
    OPT_PACK,
};

static void set(struct ct_fe_record_opts *o, const char *name,
                const char *value);

/* The tracer's own check of a filter variable (settings/filter_spec.c):
 * bad syntax is a usage error here rather than a warning at run time. */
static const char *filter_var, *filter_value;
static char filter_why[512];

static const char *filter_get(const char *name)
{
    return strcmp(name, filter_var) ? NULL : filter_value;
}

static void filter_warn(const char *line)
{
    /* "calltrace: VAR='v': why; tracing without it": keep "why". */
    const char *why = strstr(line, "': ");
    snprintf(filter_why, sizeof filter_why, "%s", why ? why + 3 : line);
    char *cut = strstr(filter_why, "; tracing without it");
    if (cut)
        *cut = '\0';
}

static void filter_option(struct ct_fe_record_opts *o, const char *verb,
                          const char *opt, const char *var, const char *v)
{
    char text[CT_FILTER_TEXT_MAX];
    filter_var = var;
    filter_value = v;
    snprintf(filter_why, sizeof filter_why, "empty");
    if (ct_fspec_from_env(text, sizeof text, filter_get, filter_warn) == 0)
        ct_fe_usage_error(verb, "--%s='%s': %s", opt, v, filter_why);
    set(o, var, v);
}

/* --args and --auto-args, each checked by the tracer's own parser
 * (settings/args_spec.c), joined into one CALLTRACE_ARGS; its rules made
 * from debug information are made once the program is known
 * (dwarf_args). */
static char *joined;
static size_t slot = SIZE_MAX;

static void args_option(struct ct_fe_record_opts *o, const char *verb,
                        const char *opt, const char *v)
{
    static struct ct_args_spec check;
    char err[192];
    ct_args_clear(&check);
    if (ct_args_parse(&check, v, err, sizeof err) != 0)
        ct_fe_usage_error(verb, "--%s='%s': %s", opt, v, err);
    char *next;
    if (asprintf(&next, "%s%s%s", joined ? joined : "", joined ? ";" : "",
                 v) < 0)
        exit(CT_FE_FAILED);
    free(joined);
    joined = next;
    if (slot == SIZE_MAX) {
        slot = o->nenv;
        set(o, "CALLTRACE_ARGS", joined);
        return;
    }
    free(o->env[slot]);
    if (asprintf(&o->env[slot], "CALLTRACE_ARGS=%s", joined) < 0)
        exit(CT_FE_FAILED);
}

/* `FUNC@args` and `auto` (and, with the hooks, `argN`): the rules of the
 * program's own functions, from its debug information (args_dwarf.c).
 * false when a rule asks for debug information the program lacks.  The
 * places of a build with the hooks hold in this program alone: its file
 * goes with them (CALLTRACE_ARGS_EXE), so a program it executes keeps
 * none of them. */
static bool dwarf_args(struct ct_fe_record_opts *o, const char *path)
{
    if (slot == SIZE_MAX)
        return true;
    /* with the hooks, argN of the program's functions needs the DWARF too */
    enum ct_fe_instr how = ct_fe_elf_instrumented(path);
    if (!ct_fe_args_need_dwarf(joined) && how != CT_INSTR_YES)
        return true;
    char err[512];
    size_t own;
    char *spec = ct_fe_args_dwarf(path, joined, how == CT_INSTR_YES, err,
                                  sizeof err, &own);
    if (!spec) {
        ct_fe_error("--args: %s", err);
        return false;
    }
    free(o->env[slot]);
    if (asprintf(&o->env[slot], "CALLTRACE_ARGS=%s", spec) < 0)
        exit(CT_FE_FAILED);
    free(spec);
    struct stat st;
    char id[64];
    if (how == CT_INSTR_YES && own && stat(path, &st) == 0) {
        snprintf(id, sizeof id, "%llu:%llu", (unsigned long long)st.st_dev,
                 (unsigned long long)st.st_ino);
        set(o, "CALLTRACE_ARGS_EXE", id);
    }
    return true;
}

/* CALLTRACE_SAMPLE_INTERVAL's syntax and range (preload/sampling/sample.c):
 * a bare number is milliseconds. */
static bool valid_interval(const char *s)
{
    if (*s < '0' || *s > '9')
        return false;
    char *end;
    double v = strtod(s, &end);
    double scale = !*end || !strcmp(end, "ms") ? 1e6
                 : !strcmp(end, "us") ? 1e3
                 : !strcmp(end, "ns") ? 1
                 : !strcmp(end, "s") ? 1e9 : -1;
    double ns = v * scale;
    return scale > 0 && ns >= 1e4 && ns <= 60e9;
}

static void set(struct ct_fe_record_opts *o, const char *name,
                const char *value)
{
    char *e;
    if (asprintf(&e, "%s=%s", name, value) < 0)
        exit(CT_FE_FAILED);
    o->env[o->nenv++] = e;
}

static void size_option(struct ct_fe_record_opts *o, const char *verb,
                        const char *opt, const char *var, const char *v,
                        uint64_t min, uint64_t max)
{
    uint64_t n;
    if (ct_parse_size(v, &n) != 0 || n < min || n > max)
        ct_fe_usage_error(verb, "--%s wants a size such as 64K or 4M%s, "
                          "got '%s'", opt,
                          min ? " (4K to 1G)" : "", v);
    set(o, var, v);
}

/* --timeout: seconds, or a number with s, ms or m. */
static bool parse_timeout(const char *s, double *out)
{
    if (*s < '0' || *s > '9')
        return false;
    char *end;
    double v = strtod(s, &end);
    double scale = !*end || !strcmp(end, "s") ? 1
                 : !strcmp(end, "ms") ? 1e-3
                 : !strcmp(end, "m") ? 60 : -1;
    if (scale < 0 || v * scale > 1e9)
        return false;
    *out = v * scale;
    return true;
}

/* The signal of --signal=SIGNAL[@ACTION], or -1. */
static int signal_part(const char *arg)
{
    char name[32];
    size_t n = strcspn(arg, "@");
    if (n >= sizeof name)
        return -1;
    memcpy(name, arg, n);
    name[n] = '\0';
    return ct_parse_signal(name);
}

/* The flight recorder's ring is whole blocks, at least CT_FLIGHT_MIN_SLOTS
 * of them (ct_flight_geometry): say so when that is not the size asked
 * for. */
static void flight_note(const struct ct_fe_record_opts *o)
{
    uint32_t slot;
    uint64_t n = ct_flight_geometry(
        o->flight, o->bufsize ? o->bufsize : CT_DEFAULT_BUFSIZE, &slot);
    if (n * slot == o->flight)
        return;
    char want[32], got[32], block[32];
    ct_format_size(want, sizeof want, o->flight);
    ct_format_size(got, sizeof got, n * slot);
    ct_format_size(block, sizeof block, slot);
    ct_fe_error("--flight=%s: the ring is %s, whole blocks of %s, at least "
                "%u of them", want, got, block, CT_FLIGHT_MIN_SLOTS);
}

int ct_fe_record_parse(struct ct_fe_record_opts *o, int argc, char **argv,
                       const char *verb)
{
    static const struct option longopts[] = {
        {"output", required_argument, NULL, 'o'},
        {"sample", optional_argument, NULL, 's'},
        {"sample-clock", required_argument, NULL, OPT_SAMPLE_CLOCK},
        {"profile", no_argument, NULL, OPT_PROFILE},
        {"profile-paths", required_argument, NULL, OPT_PROFILE_PATHS},
        {"clock", required_argument, NULL, OPT_CLOCK},
        {"bufsize", required_argument, NULL, OPT_BUFSIZE},
        {"limit", required_argument, NULL, OPT_LIMIT},
        {"pack", no_argument, NULL, OPT_PACK},
        {"paused", no_argument, NULL, OPT_PAUSED},
        {"signal", required_argument, NULL, OPT_SIGNAL},
        {"cputime", required_argument, NULL, OPT_CPUTIME},
        {"flight", required_argument, NULL, OPT_FLIGHT},
        {"flight-signal", required_argument, NULL, OPT_FLIGHT_SIGNAL},
        {"control", no_argument, NULL, OPT_CONTROL},
        {"follow", no_argument, NULL, OPT_FOLLOW},
        {"no-follow", no_argument, NULL, OPT_NO_FOLLOW},
        {"filter", required_argument, NULL, OPT_FILTER},
        {"depth", required_argument, NULL, OPT_DEPTH},
        {"min-duration", required_argument, NULL, OPT_MIN_DURATION},
        {"trigger", required_argument, NULL, OPT_TRIGGER},
        {"args", required_argument, NULL, OPT_ARGS},
        {"auto-args", no_argument, NULL, OPT_AUTO_ARGS},
        {"host", required_argument, NULL, OPT_HOST},
        {"port", required_argument, NULL, OPT_PORT},
        {"timeout", required_argument, NULL, OPT_TIMEOUT},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    memset(o, 0, sizeof *o);
    o->output = CT_FE_DEFAULT_TRACE;
    o->timeout_s = -1;
    const char *host = NULL, *port = NULL;
    opterr = 0;
    optind = 1;
    int c;
    /* '+': the first word that is not an option is the program; its own
     * options are its own. */
    while ((c = getopt_long(argc, argv, "+:o:s::qhV", longopts, NULL)) != -1) {
        switch (c) {
        case 'o':
            if (!*optarg)
                ct_fe_usage_error(verb, "-o wants a file name");
            o->output = optarg;
            break;
        case 's':
            set(o, "CALLTRACE_MODE", "sample");
            if (optarg) {
                if (!valid_interval(optarg))
                    ct_fe_usage_error(verb, "--sample wants an interval from "
                                      "10us to 60s such as 1ms, got '%s'",
                                      optarg);
                set(o, "CALLTRACE_SAMPLE_INTERVAL", optarg);
            }
            o->sample = true;
            break;
        case OPT_PROFILE:
            set(o, "CALLTRACE_MODE", "profile");
            break;
        case OPT_PROFILE_PATHS:
            if (strspn(optarg, "0123456789") != strlen(optarg) || !*optarg)
                ct_fe_usage_error(verb, "--profile-paths wants a number of "
                                  "call paths, got '%s'", optarg);
            set(o, "CALLTRACE_PROFILE_PATHS", optarg);
            break;
        case OPT_SAMPLE_CLOCK:
            if (strcmp(optarg, "cpu") && strcmp(optarg, "wall"))
                ct_fe_usage_error(verb, "--sample-clock wants cpu or wall, "
                                  "got '%s'", optarg);
            set(o, "CALLTRACE_SAMPLE_CLOCK", optarg);
            break;
        case OPT_CLOCK:
            if (strcasecmp(optarg, "tsc") &&
                strcasecmp(optarg, "tsc-fenced") &&
                strcasecmp(optarg, "monotonic"))
                ct_fe_usage_error(verb, "--clock wants tsc, tsc-fenced or "
                                  "monotonic, got '%s'", optarg);
            set(o, "CALLTRACE_CLOCK", optarg);
            break;
        case OPT_BUFSIZE:
            size_option(o, verb, "bufsize", "CALLTRACE_BUFSIZE", optarg,
                        CT_MIN_BUFSIZE, CT_MAX_BUFSIZE);
            ct_parse_size(optarg, &o->bufsize);
            break;
        case OPT_LIMIT:
            size_option(o, verb, "limit", "CALLTRACE_LIMIT", optarg, 0,
                        UINT64_MAX);
            ct_parse_size(optarg, &o->limit);
            break;
        case OPT_PAUSED: set(o, "CALLTRACE_START_PAUSED", "1"); break;
        case OPT_SIGNAL:
            /* SIGNAL[@ACTION]: the tracer checks the action */
            if (signal_part(optarg) < 0)
                ct_fe_usage_error(verb, "--signal wants a signal such as USR2 "
                                  "or 12, got '%s'", optarg);
            set(o, "CALLTRACE_SIGNAL", optarg);
            break;
        case OPT_CPUTIME:
            if (strcmp(optarg, "switch") && strcmp(optarg, "clock") &&
                strcmp(optarg, "off"))
                ct_fe_usage_error(verb, "--cputime wants switch, clock or "
                                  "off, got '%s'", optarg);
            set(o, "CALLTRACE_CPUTIME", optarg);
            break;
        case OPT_FLIGHT:
            size_option(o, verb, "flight", "CALLTRACE_FLIGHT", optarg, 0,
                        UINT64_MAX);
            ct_parse_size(optarg, &o->flight);
            break;
        case OPT_FLIGHT_SIGNAL:
            if (ct_parse_signal(optarg) < 0)
                ct_fe_usage_error(verb, "--flight-signal wants a signal such "
                                  "as USR1 or 10, got '%s'", optarg);
            set(o, "CALLTRACE_FLIGHT_SIGNAL", optarg);
            break;
        case OPT_CONTROL: set(o, "CALLTRACE_CONTROL", "1"); break;
        case OPT_FOLLOW: set(o, "CALLTRACE_FOLLOW", "1"); break;
        case OPT_NO_FOLLOW: set(o, "CALLTRACE_FOLLOW", "0"); break;
        case OPT_PACK: o->pack = true; break;
        case OPT_FILTER:
            filter_option(o, verb, "filter", "CALLTRACE_FILTER", optarg);
            break;
        case OPT_DEPTH:
            filter_option(o, verb, "depth", "CALLTRACE_DEPTH", optarg);
            break;
        case OPT_MIN_DURATION:
            filter_option(o, verb, "min-duration", "CALLTRACE_MIN_DURATION",
                          optarg);
            break;
        case OPT_TRIGGER:
            filter_option(o, verb, "trigger", "CALLTRACE_TRIGGER", optarg);
            break;
        case OPT_ARGS: args_option(o, verb, "args", optarg); break;
        case OPT_AUTO_ARGS: args_option(o, verb, "auto-args", "auto"); break;
        case OPT_TIMEOUT:
            if (!parse_timeout(optarg, &o->timeout_s))
                ct_fe_usage_error(verb, "--timeout wants a time such as 10, "
                                  "2.5s, 500ms or 1m, got '%s'", optarg);
            break;
        case OPT_HOST: host = optarg; break;
        case OPT_PORT: {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (!*optarg || *end || v < 1 || v > 65535)
                ct_fe_usage_error(verb, "--port wants 1 to 65535, got '%s'",
                                  optarg);
            port = optarg;
            break;
        }
        case 'q':
            o->quiet = true;
            set(o, "CALLTRACE_QUIET", "1");
            break;
        case 'h':
            usage(stdout);
            exit(0);
        case 'V':
            ct_fe_version();
        case ':':
            ct_fe_usage_error(verb, "option '%s' wants a value",
                              argv[optind - 1]);
        default:
            ct_fe_usage_error(verb, "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind >= argc)
        ct_fe_usage_error(verb, "no program to record");
    /* A limit from the environment reaches the tracer as well. */
    const char *env_limit = getenv("CALLTRACE_LIMIT");
    if (!o->limit && env_limit && ct_parse_size(env_limit, &o->limit) != 0)
        o->limit = 0;
    if (o->flight && !o->quiet)
        flight_note(o);
    if (host || port) {
        char *net;
        if (asprintf(&net, strchr(host ? host : "", ':') ? "tcp:[%s]:%s"
                                                         : "tcp:%s:%s",
                     host ? host : "127.0.0.1", port ? port : "4444") < 0)
            exit(CT_FE_FAILED);
        o->output = net;  /* lives as long as the run */
    }
    if (o->pack && o->flight)
        ct_fe_usage_error(verb, "--pack and --flight: a flight recorder's "
                          "ring is rewritten in place and is not packed");
    if (o->pack && (strncmp(o->output, "tcp:", 4) == 0 ||
                    strncmp(o->output, "unix:", 5) == 0))
        ct_fe_usage_error(verb, "--pack and a streamed output (%s): the "
                          "receiver's trace can be packed with 'calltrace "
                          "pack'", o->output);
    return optind;
}

/* The folder the output goes in, made absolute: the program may change
 * directory, and the staging folder must be on the output's file system
 * so that the recording is renamed into place. */
static char *output_parent(const char *output)
{
    char *copy = strdup(output);
    char *slash = strrchr(copy, '/');
    const char *dir = slash ? (slash == copy ? "/" : (*slash = 0, copy)) : ".";
    char *abs = realpath(dir, NULL);
    if (!abs)
        ct_fe_error("cannot write %s: %s: %m", output, dir);
    free(copy);
    return abs;
}

/* Removes a file, or a folder of traces a previous record left (and only
 * such a folder: anything else in it stops us). */
static int remove_recording(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return errno == ENOENT ? 0 : -1;
    if (!S_ISDIR(st.st_mode))
        return unlink(path);
    DIR *d = opendir(path);
    if (!d)
        return -1;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char *p;
        if (!ct_fe_is_trace_name(e->d_name) ||
            asprintf(&p, "%s/%s", path, e->d_name) < 0)
            break;
        unlink(p);
        free(p);
    }
    closedir(d);
    return rmdir(path);
}

/* Keeps the previous recording as OUTPUT.old. */
int ct_fe_keep_previous(const char *output)
{
    struct stat st;
    if (lstat(output, &st) != 0)
        return 0;
    char *old;
    if (asprintf(&old, "%s.old", output) < 0)
        return -1;
    int rc = 0;
    if (remove_recording(old) != 0) {
        ct_fe_error("cannot replace %s (not a recording?); the new recording "
                    "is left where it was written", old);
        rc = -1;
    } else if (rename(output, old) != 0) {
        ct_fe_error("cannot rename %s to %s: %m", output, old);
        rc = -1;
    }
    free(old);
    return rc;
}

/* Drops the traces of processes that recorded nothing (a shell that ran the
 * traced programs, an untraced helper) when some other process recorded
 * something; returns how many were dropped. */
static size_t drop_empty(struct ct_fe_recording *r)
{
    bool any = false;
    for (size_t i = 0; i < r->n; i++)
        any |= r->traces[i].stats.events > 0;
    if (!any)
        return 0;
    size_t kept = 0, dropped = 0;
    for (size_t i = 0; i < r->n; i++) {
        if (r->traces[i].stats.events == 0 && r->traces[i].stats.lost == 0) {
            unlink(r->traces[i].path);
            free(r->traces[i].path);
            dropped++;
        } else {
            r->traces[kept++] = r->traces[i];
        }
    }
    r->n = kept;
    return dropped;
}

static void closing_line(const struct ct_fe_recording *r, const char *output)
{
    uint64_t size = 0, events = 0, lost = 0, threads = 0;
    for (size_t i = 0; i < r->n; i++) {
        size += r->traces[i].stats.size;
        events += r->traces[i].stats.events;
        lost += r->traces[i].stats.lost;
        threads += r->traces[i].stats.threads;
    }
    char sz[32];
    if (size >= 1u << 20)
        snprintf(sz, sizeof sz, "%.1f MiB", size / 1048576.0);
    else if (size >= 10u << 10)
        snprintf(sz, sizeof sz, "%.1f KiB", size / 1024.0);
    else
        snprintf(sz, sizeof sz, "%llu bytes", (unsigned long long)size);
    fprintf(stderr, "calltrace: wrote %s (%s): %llu events, %llu lost, "
            "%llu thread%s, %zu process%s\n", output, sz,
            (unsigned long long)events, (unsigned long long)lost,
            (unsigned long long)threads, threads == 1 ? "" : "s", r->n,
            r->n == 1 ? "" : "es");
}

/* Why events were lost, as far as record can tell: the limit it passed,
 * or the file system it saw full (the tracer said so as it happened). */
static void loss_line(const struct ct_fe_recording *r, uint64_t limit,
                      bool disk_full, const char *fs)
{
    uint64_t events = 0, lost = 0;
    for (size_t i = 0; i < r->n; i++) {
        events += r->traces[i].stats.events;
        lost += r->traces[i].stats.lost;
    }
    if (!lost)
        return;
    char why[4200] = "", lim[32];
    if (limit) {
        ct_format_size(lim, sizeof lim, limit);
        snprintf(why, sizeof why, "each trace stops at the limit of %s "
                 "(--limit, CALLTRACE_LIMIT)", lim);
    }
    if (disk_full)
        snprintf(why + strlen(why), sizeof why - strlen(why),
                 "%sthe file system %s was full", *why ? "; " : "", fs);
    if (!*why)
        snprintf(why, sizeof why, "the tracer could not write them (its "
                 "message above says why)");
    fprintf(stderr, "calltrace: %llu events were not recorded (counted as "
            "lost, beside the %llu recorded): %s\n",
            (unsigned long long)lost, (unsigned long long)events, why);
}

/* A single trace's snapshots (TRACE.snap1, ...) follow it to
 * OUTPUT.snap1, ...; one that cannot is left in the staging folder, and
 * said so. */
static void move_snapshots(const char *trace, const char *output)
{
    for (unsigned k = 1; k < 10000; k++) {
        char *from = NULL, *to = NULL;
        if (asprintf(&from, "%s.snap%u", trace, k) < 0 ||
            asprintf(&to, "%s.snap%u", output, k) < 0) {
            free(from);
            return;
        }
        struct stat st;
        int more = lstat(from, &st) == 0;
        if (more && ct_fe_stage_move(from, to) != 0)
            ct_fe_error("cannot move the snapshot %s to %s (%m)", from, to);
        free(from);
        free(to);
        if (!more)
            return;
    }
}

/* A folder made as mkdir would make it: mkdtemp's 0700 would hide the
 * traces (0644, as the tracer creates them) from the readers a plain
 * folder admits. */
static void plain_folder_mode(const char *dir)
{
    mode_t mask = umask(0);
    umask(mask);
    chmod(dir, 0777 & ~mask);
}

/* A side file (record --pack) the final pack did not fold in, its trace
 * still being written by a process record stopped waiting for: it goes
 * with the trace, whose moved blocks are in it. */
static void move_side(const char *trace, const char *output)
{
    char *from, *to;
    if (asprintf(&from, "%s.packed", trace) < 0)
        return;
    if (access(from, F_OK) == 0 && asprintf(&to, "%s.packed", output) >= 0) {
        if (ct_fe_stage_move(from, to) != 0)
            ct_fe_error("cannot move %s to %s (%m)", from, to);
        free(to);
    }
    free(from);
}

/* --pack: each staged trace packed in place, before it is moved; one that
 * cannot be is kept as it is, and said so. */
static void pack_traces(struct ct_fe_recording *r)
{
    for (size_t i = 0; i < r->n; i++) {
        struct ctr_pack_stats st;
        char err[512];
        /* Its snapshots first: their moved blocks are in its side file,
         * which packing the trace folds in and removes. */
        for (unsigned k = 1; k < 10000; k++) {
            char *snap;
            if (asprintf(&snap, "%s.snap%u", r->traces[i].path, k) < 0)
                break;
            bool there = access(snap, F_OK) == 0;
            if (there && ctr_pack_file(snap, NULL, CTR_PACK_LEVEL, &st, err,
                                       sizeof err) != 0)
                ct_fe_error("%s; that snapshot is kept unpacked", err);
            free(snap);
            if (!there)
                break;
        }
        if (ctr_pack_file(r->traces[i].path, NULL, CTR_PACK_LEVEL, &st, err,
                          sizeof err) != 0)
            ct_fe_error("%s; that trace is kept unpacked", err);
        else
            r->traces[i].stats.size = st.bytes_out;
    }
}

/* Moves the staged traces to the output: 1 done, 0 when no process left
 * a trace (a tracer that creates its file at the first record writes none
 * for a program that runs no instrumented function), -1 failure; said. */
static int finish(const char *staging, const char *output,
                  const struct ct_fe_record_opts *o,
                  const struct ct_fe_diskwatch *w)
{
    bool quiet = o->quiet, sample = o->sample;
    struct ct_fe_recording r;
    ct_fe_stage_unnote(staging);
    if (ct_fe_count_traces(staging) == 0) {
        remove_recording(staging);
        if (!quiet)
            ct_fe_error("no process left a trace, so %s is not written: "
                        "%s", output, sample ? "no sample was taken"
                        : "no instrumented function ran; build the program "
                          "with $(calltrace cflags), or record with "
                          "--sample");
        return 0;
    }
    if (ct_fe_recording_open(&r, staging) != 0) {
        ct_fe_error("the recording in %s cannot be read; it is left there",
                    staging);
        return -1;
    }
    drop_empty(&r);
    if (o->pack)
        pack_traces(&r);
    int rc = ct_fe_keep_previous(output);
    if (rc == 0 && r.n == 1) {
        rc = ct_fe_stage_move(r.traces[0].path, output);
        if (rc == 0) {
            move_snapshots(r.traces[0].path, output);
            move_side(r.traces[0].path, output);
            rmdir(staging);
        }
    } else if (rc == 0) {
        plain_folder_mode(staging);
        rc = ct_fe_stage_move(staging, output);
    }
    if (rc != 0)
        ct_fe_error("cannot move the recording to %s (%m); it is in %s",
                    output, staging);
    else if (!quiet) {
        closing_line(&r, output);
        loss_line(&r, o->limit, ct_fe_diskwatch_full(w), w->fs);
    }
    uint64_t events = 0;
    for (size_t i = 0; i < r.n; i++)
        events += r.traces[i].stats.events;
    if (rc == 0 && events == 0 && !sample && !quiet)
        ct_fe_error("no calls were recorded: build the program with "
                    "$(calltrace cflags), or record with --sample");
    ct_fe_recording_free(&r);
    return rc == 0 ? 1 : -1;
}

/* Says so when the program cannot produce a single call record. */
static void check_instrumented(const char *prog, const char *path,
                               bool sample)
{
    if (!sample && ct_fe_elf_instrumented(path) == CT_INSTR_NO)
        ct_fe_error("%s was not built with -finstrument-functions (it has no "
                    "__cyg_profile_func_enter reference): only calls in "
                    "traced libraries and programs it runs are recorded; "
                    "rebuild with $(calltrace cflags), or record with "
                    "--sample", prog);
}

/* LD_PRELOAD=[FIRST:]LIB[:what it was]: a sanitizer runtime the program
 * needs (FIRST) must precede every other library. */
static char *preload_value(const char *lib, const char *first)
{
    /* ld.so splits LD_PRELOAD at spaces and colons. */
    if (strpbrk(lib, " :\t")) {
        ct_fe_error("the library's path '%s' has a space or colon, which "
                    "LD_PRELOAD cannot carry", lib);
        return NULL;
    }
    const char *prev = getenv("LD_PRELOAD");
    char *v;
    if (asprintf(&v, "LD_PRELOAD=%s%s%s%s%s", first ? first : "",
                 first ? ":" : "", lib, prev && *prev ? ":" : "",
                 prev ? prev : "") < 0)
        return NULL;
    return v;
}

static void free_env(struct ct_fe_record_opts *o)
{
    for (size_t i = 0; i < o->nenv; i++)
        free(o->env[i]);
    o->nenv = 0;
}

/* The program as it is, without the tracer: what raw LD_PRELOAD gives
 * when the tracer cannot work (the reason was said). */
static int run_untraced(struct ct_fe_record_opts *o, char **prog_argv)
{
    free_env(o);
    int status = ct_fe_spawn(prog_argv, NULL, NULL);
    return status < 0 ? CT_FE_FAILED : status;
}

/* Runs the program with env (LD_PRELOAD and CALLTRACE_OUTPUT appended),
 * then waits for the traced processes it leaves running. */
static int run_traced(struct ct_fe_record_opts *o, char **prog_argv,
                      char *preload, const char *lib, char *output_var,
                      struct ct_fe_diskwatch *watch)
{
    o->env[o->nenv++] = preload;
    o->env[o->nenv++] = output_var;
    o->env[o->nenv] = NULL;
    struct ct_fe_wait w = { .lib = lib, .timeout_s = o->timeout_s,
                            .quiet = o->quiet,
                            .tick = watch ? ct_fe_diskwatch_tick_cb : NULL,
                            .tick_arg = watch };
    return ct_fe_spawn(prog_argv, o->env, &w);
}

/* Whether the program can be traced at all; false after one line saying
 * why not.  *first: the sanitizer runtime to preload first, or NULL. */
static bool traceable(const char *prog,
                      const char *path, struct ct_fe_elf_deps *deps,
                      const char **first)
{
    *first = NULL;
    if (ct_fe_elf_deps(path, deps) != 0)
        return true;  /* a script: its interpreter will say */
    if (deps->is_static) {
        ct_fe_error("%s is linked statically: the tracer, a preloaded "
                    "library, cannot load into it; running it untraced "
                    "(link it dynamically to trace it)", prog);
        return false;
    }
    if (deps->first[0])
        *first = deps->first;
    return true;
}

/* The most one trace can take: --limit; with --flight, the ring (whole
 * blocks, at least CT_FLIGHT_MIN_SLOTS, as flight_note says) and room for
 * the header and the maps; 0 for no bound. */
static uint64_t trace_cap(const struct ct_fe_record_opts *o)
{
    if (o->limit)
        return o->limit;
    if (!o->flight)
        return 0;
    uint32_t slot;
    uint64_t n = ct_flight_geometry(
        o->flight, o->bufsize ? o->bufsize : CT_DEFAULT_BUFSIZE, &slot);
    return (n + 2) * (uint64_t)slot + (4u << 20);
}

int ct_fe_record_run(struct ct_fe_record_opts *o, char **prog_argv)
{
    o->recorded = false;
    const char *prog = prog_argv[0];
    char *path = ct_fe_which(prog);
    if (!path) {
        ct_fe_error("cannot run %s: no such program%s", prog,
                    strchr(prog, '/') ? "" : " in PATH");
        free_env(o);
        return 127;
    }
    struct ct_fe_elf_deps deps;
    const char *first;
    if (!traceable(prog, path, &deps, &first)) {
        free(path);
        return run_untraced(o, prog_argv);
    }
    if (!o->quiet)
        check_instrumented(prog, path, o->sample);
    if (!dwarf_args(o, path)) {
        free(path);
        free_env(o);
        return CT_FE_FAILED;
    }
    free(path);
    char *lib = ct_fe_find_library();
    char *preload = lib ? preload_value(lib, first) : NULL;
    if (!preload) {
        free(lib);
        free_env(o);
        return CT_FE_FAILED;
    }
    char *out;
    int status;
    if (strncmp(o->output, "tcp:", 4) == 0 ||
        strncmp(o->output, "unix:", 5) == 0) {
        /* The tracer streams; nothing is staged here. */
        if (asprintf(&out, "CALLTRACE_OUTPUT=%s", o->output) < 0)
            exit(CT_FE_FAILED);
        status = run_traced(o, prog_argv, preload, lib, out, NULL);
        free(lib);
        free_env(o);
        return status < 0 ? CT_FE_FAILED : status;
    }
    char *parent = output_parent(o->output);
    if (!parent) {
        free(lib), free(preload);
        free_env(o);
        return CT_FE_FAILED;
    }
    if (access(parent, W_OK | X_OK) != 0) {
        ct_fe_error("cannot write %s in %s (%m); running %s untraced",
                    o->output, parent, prog);
        free(lib), free(preload), free(parent);
        return run_untraced(o, prog_argv);
    }
    char *staging = ct_fe_stage_create(parent, o->output);
    if (!staging) {
        free(lib), free(preload), free(parent);
        free_env(o);
        return CT_FE_FAILED;
    }
    if (asprintf(&out, "CALLTRACE_OUTPUT=%s/calltrace-%%p.raw", staging) < 0)
        exit(CT_FE_FAILED);
    struct ct_fe_diskwatch watch;
    ct_fe_diskwatch_init(&watch, staging, trace_cap(o),
                         o->bufsize ? o->bufsize : CT_DEFAULT_BUFSIZE);
    watch.quiet = o->quiet;
    /* --pack: the closed blocks packed as they come, off the program. */
    struct ct_fe_livepack *lp = o->pack ? ct_fe_livepack_start(staging)
                                        : NULL;
    status = run_traced(o, prog_argv, preload, lib, out, &watch);
    ct_fe_livepack_stop(lp);
    ct_fe_diskwatch_end(&watch);
    int done = finish(staging, o->output, o, &watch);
    if (done > 0)
        o->recorded = true;
    else if (done < 0 && (status == 0 || status < 0))
        status = CT_FE_FAILED;
    free(lib), free(parent), free(staging);
    free_env(o);
    return status < 0 ? CT_FE_FAILED : status;
}

int ct_fe_record(int argc, char **argv)
{
    struct ct_fe_record_opts o;
    int first = ct_fe_record_parse(&o, argc, argv, "record");
    return ct_fe_record_run(&o, argv + first);
}
