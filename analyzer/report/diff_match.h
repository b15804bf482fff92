/*
 * The diff of two runs, without any I/O: functions of the old and the new
 * run matched by name (and source file), arcs matched by the functions at
 * their ends, each with its figures in both runs; sorting by the size of
 * the change and the --threshold test.  diff.c feeds it from two profiles
 * and prints it; docs/analysis.md ("The diff of two runs") defines it.
 */
#ifndef CT_DIFF_MATCH_H
#define CT_DIFF_MATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The figures compared, of one function or arc in one run.  A figure
 * added here needs a field, its sum in add_vals and a column in diff.c's
 * table. */
struct ct_diff_vals {
    uint64_t calls;
    double self_ns;
    double total_ns;
    double p99_ns;      /* p99 of the total time per call; entries summed
                           (a function loaded twice) keep the larger one */
};

/* A function of one run; name NULL for an entry to leave out. */
struct ct_diff_fn {
    const char *name;
    const char *file;           /* NULL or "" when unknown               */
    struct ct_diff_vals v;
};

/* An arc of one run, by index into that run's functions. */
#define CT_DIFF_NONE UINT32_MAX /* caller: called from outside (spontaneous) */
struct ct_diff_arc {
    uint32_t caller, callee;
    struct ct_diff_vals v;
};

struct ct_diff_side {
    const struct ct_diff_fn *fns;
    size_t nfns;
    const struct ct_diff_arc *arcs;
    size_t narcs;
};

/* A function, or an arc (caller -> callee, rows of the function table;
 * caller CT_DIFF_NONE when spontaneous), in both runs.  in[0]: present
 * in the old run, in[1]: in the new one. */
struct ct_diff_row {
    const char *name, *file;    /* functions                             */
    uint32_t id;                /* functions: the row's place in funcs   */
    uint32_t caller, callee;    /* arcs                                  */
    bool in[2];
    struct ct_diff_vals v[2];
};

struct ct_diff {
    struct ct_diff_row *funcs;
    size_t nfuncs;
    struct ct_diff_row *arcs;
    size_t narcs;
};

/*
 * Matches side[0] (old) with side[1] (new).  Entries of one run with the
 * same name and file are summed (a function loaded twice).  A function
 * matches the one of the other run with its name and file; one left over
 * matches by name alone when that name is left over exactly once in each
 * run (one build knew the file, the other did not, or the file moved).
 * Functions with no call and no time in a run are not in it.  The rows
 * point into the sides' strings.
 */
void ct_diff_build(struct ct_diff *d, const struct ct_diff_side side[2]);
void ct_diff_free(struct ct_diff *d);

/* Largest change first: |self change|, then |total change|, then |calls
 * change|, then by name (functions) or row (arcs), so the order is total. */
void ct_diff_sort(struct ct_diff_row *rows, size_t n, const struct ct_diff *d);

/* Whether a row passes --threshold: present in one run only, calls that
 * differ, or a self or total time that changed by at least min_ns. */
bool ct_diff_shown(const struct ct_diff_row *r, double min_ns);

#endif /* CT_DIFF_MATCH_H */
