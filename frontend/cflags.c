/*
 * calltrace cflags: the compiler flags of a program to trace, for
 * CFLAGS="$(calltrace cflags)" make.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/frontend.h"

int ct_fe_cflags(int argc, char **argv)
{
    int patchable = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            puts("Usage: calltrace cflags [--patchable]\n"
                 "Print the compiler flags for a program to trace: call "
                 "hooks, debug\ninformation (for file:line in the report) "
                 "and the folder of calltrace.h.\n"
                 "  --patchable  five NOP bytes at each function's entry "
                 "instead of the\n"
                 "               hooks (gcc and clang, x86-64): the tracer "
                 "patches them at\n"
                 "               start; the program runs at full speed "
                 "without it\n"
                 "  e.g. CFLAGS=\"$(calltrace cflags)\" make");
            return 0;
        }
        if (!strcmp(argv[i], "-V") || !strcmp(argv[i], "--version"))
            ct_fe_version();
        if (!strcmp(argv[i], "--patchable")) {
            patchable = 1;
            continue;
        }
        ct_fe_usage_error("cflags", "unexpected argument '%s'", argv[i]);
    }
    char *inc = ct_fe_find_include();
    if (!inc)
        return CT_FE_FAILED;
    /* A path with a space would split in $(...): quote nothing, say so. */
    if (strpbrk(inc, " \t\n'\"\\$"))
        ct_fe_error("warning: '%s' needs quoting in a shell", inc);
    printf("%s -g -I%s\n",
           patchable ? "-fpatchable-function-entry=5,0"
                     : "-finstrument-functions",
           inc);
    free(inc);
    return 0;
}
