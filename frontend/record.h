/* calltrace record's options, shared with the verb-less run. */
#ifndef CT_FE_RECORD_H
#define CT_FE_RECORD_H

#include <stdbool.h>
#include <stddef.h>

struct ct_fe_record_opts {
    const char *output;       /* -o FILE                                  */
    bool quiet;               /* -q: no closing line, CALLTRACE_QUIET=1   */
    bool sample;              /* --sample: no instrumentation needed      */
    char *env[32];            /* "CALLTRACE_X=value" for the program      */
    size_t nenv;
};

/* Parses options up to the program; returns the program's index in argv.
 * Bad usage: one line and exit.  verb names the command in messages. */
int ct_fe_record_parse(struct ct_fe_record_opts *o, int argc, char **argv,
                       const char *verb);
/* Records prog_argv; returns its exit status (128+signal when killed), or
 * CT_FE_FAILED when nothing could be recorded. */
int ct_fe_record_run(struct ct_fe_record_opts *o, char **prog_argv);

#endif /* CT_FE_RECORD_H */
