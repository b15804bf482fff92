/* calltrace-report's command-line options, parsed once in cli.c. */
#ifndef CT_OPTIONS_H
#define CT_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ct_options {
    const char *input;          /* trace or log file                         */
    const char *output;         /* -o FILE, NULL = stdout                    */
    const char *format;         /* --format NAME, NULL = detect              */
    const char *export_format;  /* --export FORMAT, NULL = report            */
    bool dump;                  /* --dump: OpenLaszlo raw form               */
    bool brief;                 /* -b: no explanatory blurbs                 */
    bool flat_only;             /* -p                                        */
    bool graph_only;            /* -q                                        */
    const char *focus;          /* -qNAME / --focus NAME                     */
    bool per_thread;            /* --threads                                 */
    bool have_range;            /* --time-range FROM..TO                     */
    int64_t range_from_ns;      /* relative to the trace's first event       */
    int64_t range_to_ns;        /* INT64_MAX = open end                      */
    const char *range_text;     /* the window as given, for messages         */
    double min_percent;         /* --min-percent                             */
    bool tree;                  /* --tree                                    */
    uint32_t tree_depth;        /* --depth N (with --tree), 0 = unlimited    */
    int64_t tree_min_ns;        /* --min-duration T (with --tree)            */
    const char **hide;          /* --hide NAME (repeatable): names or globs  */
    size_t nhide;
    const char **notrace;       /* --notrace NAME: it and all it calls       */
    size_t nnotrace;
    const char **callers;       /* --caller NAME: the paths to its calls     */
    size_t ncallers;
    bool subtract_bias;         /* --subtract-bias                           */
    bool lenient;               /* --lenient                                 */
    bool by_line;               /* --by-line (sampled traces)                */
    bool oncpu;                 /* --cpu: flat profile of on-CPU time        */
    bool no_events;             /* --no-events: omit the user-event section  */
    bool no_progress;           /* --no-progress: no bar on a terminal       */
    unsigned jobs;              /* --jobs: decoding threads for the report   */
    bool short_names;           /* --short-names: elide C++ template
                                   arguments and parameters (flat profile,
                                   call graph)                               */
    double node_threshold;      /* --node-threshold P (dot), -1 = default    */
    double edge_threshold;      /* --edge-threshold P (dot), -1 = default    */
    bool folded_calls;          /* --folded-value=calls (folded, flamegraph) */
    bool icicle;                /* --icicle: flamegraph top-down             */
    const char *diff_base;      /* --diff OLD: compare with this run         */
    double diff_threshold;      /* --threshold PCT (with --diff)             */
    bool have_threshold;
    bool stats;                 /* --stats: per-call time distributions      */
    const char *sort;           /* --sort KEY, NULL = self                   */
    const char *slowest;        /* --slowest FUNC: its longest calls         */
    uint32_t slowest_n;         /* -n N with --slowest (default 10)          */
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
