/*
 * calltrace cflags: the compiler flags of a program to trace, for
 * CFLAGS="$(calltrace cflags)" make.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend.h"

int ct_fe_cflags(int argc, char **argv)
{
    if (argc > 1) {
        if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
            puts("Usage: calltrace cflags\n"
                 "Print the compiler flags for a program to trace: call "
                 "hooks, debug\ninformation (for file:line in the report) "
                 "and the folder of calltrace.h.\n"
                 "  e.g. CFLAGS=\"$(calltrace cflags)\" make");
            return 0;
        }
        if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version"))
            ct_fe_version();
        ct_fe_usage_error("cflags", "unexpected argument '%s'", argv[1]);
    }
    char *inc = ct_fe_find_include();
    if (!inc)
        return CT_FE_FAILED;
    /* A path with a space would split in $(...): quote nothing, say so. */
    if (strpbrk(inc, " \t\n'\"\\$"))
        ct_fe_error("warning: '%s' needs quoting in a shell", inc);
    printf("-finstrument-functions -g -I%s\n", inc);
    free(inc);
    return 0;
}
