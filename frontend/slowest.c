/*
 * calltrace slowest FUNC [-n N] [OPTION]... [FILE]: FUNC's longest calls,
 * from calltrace-report --slowest=FUNC (report.c runs it as the other
 * reading verbs do).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/frontend.h"

static void usage(void)
{
    puts(
"Usage: calltrace slowest FUNC [-n N] [OPTION]... [FILE]\n"
"List the N (default 10) longest calls of FUNC (a name, a glob or the start\n"
"of one) in FILE (default calltrace.raw): each call's total and self time,\n"
"its start from the trace's first event and its thread, and the\n"
"'calltrace tree' command that shows what it called.  The other options\n"
"are calltrace-report's (calltrace report --help), e.g. --time-range.");
}

int ct_fe_slowest(int argc, char **argv)
{
    if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
        usage();
        return 0;
    }
    if (argc < 2 || argv[1][0] == '-')
        ct_fe_usage_error("slowest", "no FUNC named");
    char *opt;
    if (asprintf(&opt, "--slowest=%s", argv[1]) < 0)
        return CT_FE_FAILED;
    /* FUNC takes the place of argv[0], which the report verbs skip. */
    return ct_fe_report(argc - 1, argv + 1, "slowest", opt);
}
