/*
 * The choices of the views: what the report, the tree and the exports
 * show and how, as the command line (analyzer/cli.c) sets them.  In the
 * model so that the report and the writers read them without reaching
 * into the command line; the reading's own choices (input, filters,
 * threads) are in analyzer/read/load.h.
 */
#ifndef CT_VIEW_OPTS_H
#define CT_VIEW_OPTS_H

#include <stdbool.h>
#include <stdint.h>

struct ct_view_opts {
    bool brief;                 /* -b: no explanatory blurbs                 */
    bool flat_only;             /* -p                                        */
    bool graph_only;            /* -q                                        */
    const char *focus;          /* -qNAME / --focus NAME                     */
    bool per_thread;            /* --threads                                 */
    bool have_range;            /* --time-range FROM..TO                     */
    int64_t range_from_ns;      /* relative to the trace's first event       */
    int64_t range_to_ns;        /* INT64_MAX = open end                      */
    double min_percent;         /* --min-percent                             */
    uint32_t tree_depth;        /* --depth N (with --tree), 0 = unlimited    */
    int64_t tree_min_ns;        /* --min-duration T (with --tree)            */
    bool subtract_bias;         /* --subtract-bias                           */
    bool bias_at_start;         /* =start: the calibration at start, not the
                                   figure measured in the run              */
    bool by_line;               /* --by-line (sampled traces)                */
    bool oncpu;                 /* --cpu: flat profile of on-CPU time        */
    bool no_events;             /* --no-events: omit the user-event section  */
    bool short_names;           /* --short-names: elide C++ template
                                   arguments and parameters (flat profile,
                                   call graph)                               */
    double node_threshold;      /* --node-threshold P (dot), -1 = default    */
    double edge_threshold;      /* --edge-threshold P (dot), -1 = default    */
    bool folded_calls;          /* --folded-value=calls (folded, flamegraph) */
    bool icicle;                /* --icicle: flamegraph top-down             */
    double diff_threshold;      /* --threshold PCT (with --diff)             */
    bool have_threshold;
    bool stats;                 /* --stats: per-call time distributions      */
    const char *sort;           /* --sort KEY, NULL = self                   */
    const char *slowest;        /* --slowest FUNC: its longest calls         */
    uint32_t slowest_n;         /* -n N with --slowest (default 10)          */
};

#endif /* CT_VIEW_OPTS_H */
