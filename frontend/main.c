/*
 * calltrace: the front end.  `calltrace record ./app`, `calltrace report`,
 * or `calltrace ./app` for both; see calltrace(1).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/frontend.h"

static void usage(FILE *f)
{
    fputs(
"Usage: calltrace [RECORD OPTION]... PROGRAM [ARG]...\n"
"       calltrace VERB [OPTION]... [ARG]...\n"
"Record a program's every call and return, and report exact times.\n"
"\n"
"Verbs:\n"
"  record [OPTION]... [--] PROGRAM [ARG]...\n"
"                      run PROGRAM traced into calltrace.raw\n"
"  report [OPTION]... [FILE]    the gprof-format report (calltrace-report)\n"
"  tree [OPTION]... [FILE]      the call tree (report --tree)\n"
"  dump [OPTION]... [FILE]      every event, one a line (report --dump)\n"
"  info [OPTION]... [FILE]      what the trace is: command line, settings,\n"
"                      start, threads, clock, objects, events, losses\n"
"  export FORMAT [OPTION]... [FILE]\n"
"                      write the trace as FORMAT (report --export=FORMAT)\n"
"  diff [OPTION]... [OLD [NEW]]\n"
"                      what changed between two runs (report --diff=OLD)\n"
"  slowest FUNC [-n N] [OPTION]... [FILE]\n"
"                      the N longest calls of FUNC (report --slowest)\n"
"  pack [OPTION]... [FILE]...   compress traces' call records (zstd)\n"
"  cflags              compiler flags for a program to trace\n"
"  control PID on|off|snapshot|status|filter SPEC\n"
"                      command a process traced with CALLTRACE_CONTROL=1\n"
"  recv [OPTION]...    receive streamed traces (CALLTRACE_OUTPUT=tcp:...)\n"
"  top [OPTION]... [FILE | PID | -- PROGRAM [ARG]...]\n"
"                      the hottest functions of a trace while it is\n"
"                      written, refreshed every second\n"
"\n"
"Without a verb, calltrace records PROGRAM and then prints its report.\n"
"FILE defaults to calltrace.raw; a recording of several processes is a\n"
"folder with one trace per process.\n"
"\n"
"  -h, --help          show this help (calltrace VERB --help: the verb's)\n"
"  -V, --version       show the version and exit\n"
"\n"
"Exit status: record and the default run exit with the program's status\n"
"(128+N when it was killed by signal N); 1 bad usage; 2 a trace that\n"
"cannot be read or written.\n", f);
}

void ct_fe_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("calltrace: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

void ct_fe_usage_error(const char *verb, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "calltrace%s%s: ", verb ? " " : "", verb ? verb : "");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\nTry 'calltrace%s%s --help' for more information.\n",
            verb ? " " : "", verb ? verb : "");
    va_end(ap);
    exit(CT_FE_USAGE);
}

void ct_fe_version(void)
{
    printf("calltrace %s\n", CALLTRACE_VERSION);
    exit(0);
}

static const char *const verbs[] = {
    "record", "report", "tree", "dump", "info", "export", "diff", "slowest",
    "pack", "cflags", "control", "recv", "top", "help",
};

/* Edit distance (insertions, deletions, substitutions, swaps of two
 * neighbours) between two short words; large for long ones. */
static size_t distance(const char *a, const char *b)
{
    size_t n = strlen(a), m = strlen(b);
    if (n > 31 || m > 31)
        return 99;
    size_t d[32][32];
    for (size_t i = 0; i <= n; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= m; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= n; i++)
        for (size_t j = 1; j <= m; j++) {
            size_t v = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < v)
                v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v)
                v = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
                a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < v)
                v = d[i - 2][j - 2] + 1;
            d[i][j] = v;
        }
    return d[n][m];
}

/* A word that is no program in PATH but nearly a verb is a typo, not a
 * program to record: the verb is suggested instead. */
static void suggest_verb(const char *word)
{
    if (*word == '-' || strchr(word, '/'))
        return;
    char *path = ct_fe_which(word);
    if (path) {
        free(path);
        return;
    }
    for (size_t i = 0; i < sizeof verbs / sizeof verbs[0]; i++) {
        size_t len = strlen(verbs[i]);
        if (distance(word, verbs[i]) <= (len > 4 ? 2u : 1u))
            ct_fe_usage_error(NULL, "'%s' is neither a verb nor a program "
                              "in PATH; did you mean '%s'?", word, verbs[i]);
    }
}

int main(int argc, char **argv)
{
    if (argc < 2)
        ct_fe_usage_error(NULL, "no program or verb given");
    const char *verb = argv[1];
    if (strcmp(verb, "-h") == 0 || strcmp(verb, "--help") == 0 ||
        strcmp(verb, "help") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(verb, "-V") == 0 || strcmp(verb, "--version") == 0)
        ct_fe_version();
    /* Each verb sees itself as argv[0], as getopt expects. */
    if (strcmp(verb, "record") == 0)
        return ct_fe_record(argc - 1, argv + 1);
    if (strcmp(verb, "report") == 0)
        return ct_fe_report(argc - 1, argv + 1, "report", NULL);
    if (strcmp(verb, "tree") == 0)
        return ct_fe_report(argc - 1, argv + 1, "tree", "--tree");
    if (strcmp(verb, "dump") == 0)
        return ct_fe_report(argc - 1, argv + 1, "dump", "--dump");
    if (strcmp(verb, "info") == 0)
        return ct_fe_report(argc - 1, argv + 1, "info", "--info");
    if (strcmp(verb, "export") == 0)
        return ct_fe_report(argc - 1, argv + 1, "export", "--export");
    if (strcmp(verb, "diff") == 0)
        return ct_fe_report(argc - 1, argv + 1, "diff", NULL);
    if (strcmp(verb, "slowest") == 0)
        return ct_fe_slowest(argc - 1, argv + 1);
    if (strcmp(verb, "pack") == 0)
        return ct_fe_pack(argc - 1, argv + 1);
    if (strcmp(verb, "cflags") == 0)
        return ct_fe_cflags(argc - 1, argv + 1);
    if (strcmp(verb, "control") == 0)
        return ct_fe_control(argc - 1, argv + 1);
    if (strcmp(verb, "recv") == 0)
        return ct_fe_recv(argc - 1, argv + 1);
    if (strcmp(verb, "top") == 0)
        return ct_fe_top(argc - 1, argv + 1);
    suggest_verb(verb);
    return ct_fe_run(argc, argv);
}
