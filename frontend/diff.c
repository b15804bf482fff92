/*
 * calltrace diff [OPTION]... [OLD [NEW]]: calltrace-report --diff=OLD NEW
 * (report.c runs it).  OLD defaults to calltrace.raw.old, the recording
 * `record` kept when it wrote the present one, NEW to calltrace.raw; a
 * folder of one process stands for its trace.  This file says which trace
 * a recording given to --diff is.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "frontend/frontend.h"

char *ct_fe_diff_base(const char *path, const char *verb)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
        return strdup(path);    /* a file, or a missing one the analyzer
                                   names */
    struct ct_fe_recording rec;
    if (ct_fe_recording_open(&rec, path) != 0)
        exit(CT_FE_FAILED);
    if (rec.n != 1)
        ct_fe_usage_error(verb, "%s holds %zu processes: compare one "
                          "process's trace (%s/calltrace-PID.raw)", path,
                          rec.n, path);
    char *one = strdup(rec.traces[0].path);
    ct_fe_recording_free(&rec);
    return one;
}

void ct_fe_diff_usage(void)
{
    printf(
"Usage: calltrace diff [OPTION]... [OLD [NEW]]\n"
"Compare two runs: calltrace-report --diff=OLD NEW.  Per function and per\n"
"arc, the calls, self and total time of both runs and the change, largest\n"
"first; functions are matched by name (and source file), so two builds of\n"
"a program compare.  OLD defaults to calltrace.raw.old (the recording\n"
"`calltrace record` kept when it wrote the present one), NEW to\n"
"calltrace.raw; a recording of one process may be given as its folder.\n"
"\n"
"      --threshold=PCT  leave out rows whose calls are equal and whose\n"
"                       times changed by less than PCT%% of the total\n"
"  -p / -q              functions only / arcs only\n"
"  -h, --help           show this help and the analyzer's options\n"
"\n"
"A differential flame graph: calltrace export flamegraph --diff=OLD [NEW]\n"
"(folded: FlameGraph's difffolded form).  See docs/analysis.md.\n"
"\n"
"The analyzer's options, which calltrace passes on:\n\n");
}
