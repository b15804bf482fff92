/* calltrace record's options, shared with the verb-less run. */
#ifndef CT_FE_RECORD_H
#define CT_FE_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ct_fe_record_opts {
    const char *output;       /* -o FILE                                  */
    bool quiet;               /* -q: no closing line, CALLTRACE_QUIET=1   */
    bool sample;              /* --sample: no instrumentation needed      */
    char *env[32];            /* "CALLTRACE_X=value" for the program      */
    size_t nenv;
    double timeout_s;         /* --timeout: the wait for the processes the
                                 program leaves running (< 0: no limit)   */
    uint64_t flight, bufsize; /* --flight, --bufsize (0: not given)       */
    uint64_t limit;           /* --limit, else CALLTRACE_LIMIT (0: none)  */
    bool pack;                /* --pack: traces packed once written       */
    bool recorded;            /* set by ct_fe_record_run: a recording was
                                 written to output                        */
};

/* Parses options up to the program; returns the program's index in argv.
 * Bad usage: one line and exit.  verb names the command in messages. */
int ct_fe_record_parse(struct ct_fe_record_opts *o, int argc, char **argv,
                       const char *verb);
/* Records prog_argv; returns its exit status (128+signal when killed), or
 * CT_FE_FAILED when nothing could be recorded. */
int ct_fe_record_run(struct ct_fe_record_opts *o, char **prog_argv);
/* Keeps the recording at output as OUTPUT.old; 0, or -1 with a message. */
int ct_fe_keep_previous(const char *output);

#endif /* CT_FE_RECORD_H */
