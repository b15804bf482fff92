/* calltrace-report's command-line options, parsed once in cli.c. */
#ifndef CT_OPTIONS_H
#define CT_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyzer/model/view_opts.h"

struct ct_options {
    struct ct_view_opts view;   /* what the views show: the report, the tree,
                                   the exports                               */
    const char *input;          /* trace or log file                         */
    const char *output;         /* -o FILE, NULL = stdout                    */
    const char *format;         /* --format NAME, NULL = detect              */
    const char *export_format;  /* --export FORMAT, NULL = report            */
    bool dump;                  /* --dump: OpenLaszlo raw form               */
    const char *range_text;     /* the window as given, for messages         */
    bool tree;                  /* --tree                                    */
    const char **hide;          /* --hide NAME (repeatable): names or globs  */
    size_t nhide;
    const char **notrace;       /* --notrace NAME: it and all it calls       */
    size_t nnotrace;
    const char **callers;       /* --caller NAME: the paths to its calls     */
    size_t ncallers;
    bool lenient;               /* --lenient                                 */
    bool no_progress;           /* --no-progress: no bar on a terminal       */
    unsigned jobs;              /* --jobs: decoding threads for the report   */
    const char *diff_base;      /* --diff OLD: compare with this run         */
    bool info;                  /* --info: what the trace is                 */
    uint64_t *tids;             /* --tid=TID[,...]: only these threads       */
    size_t ntids;
};

/* Parses argv; on --help/--version prints and exits 0; on bad usage prints
 * one line and exits CT_EXIT_USAGE. */
void ct_options_parse(struct ct_options *o, int argc, char **argv);

/* Parses "1.5s", "20ms", "300us", "42ns" or a bare number of seconds.
 * Returns 0 on success. */
int ct_parse_duration(const char *s, int64_t *ns);

#endif /* CT_OPTIONS_H */
