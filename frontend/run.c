/*
 * calltrace PROGRAM [ARGS...]: record, then print the report, as
 * `uftrace ./app` does.  The exit status is the program's, unless the
 * report could not be made for a program that succeeded.
 */
#include <stdio.h>
#include <unistd.h>

#include "frontend/frontend.h"
#include "frontend/record.h"

int ct_fe_run(int argc, char **argv)
{
    struct ct_fe_record_opts o;
    int first = ct_fe_record_parse(&o, argc, argv, NULL);
    const char *output = o.output;
    int status = ct_fe_record_run(&o, argv + first);
    if (!o.recorded)
        return status;
    fflush(stdout);
    char *report_argv[] = { "report", "--", (char *)output, NULL };
    int report = ct_fe_report(3, report_argv, "report", NULL);
    return status == 0 ? report : status;
}
