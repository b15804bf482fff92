/*
 * --export folded: collapsed stacks, one line per call path,
 * "main;parse;lex 1234", the format flamegraph.pl, inferno and speedscope
 * read.  The value is the path's self time in nanoseconds (whole ns; the
 * lines add up to the report's total time, rounded once), or its sample
 * count for sampled data; --folded-value=calls counts the calls that opened
 * the path (samples for sampled data).  --threads puts a "thread TID" frame
 * at the root of each thread's stacks.  Paths are written depth first in
 * the order they were first seen.  A ';' or line break inside a name would
 * split it and becomes '_'.  With --diff=OLD each line is "PATH OLD NEW",
 * FlameGraph's difffolded.pl format (stackdiff.c).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/writers/export.h"
#include "analyzer/model/view_opts.h"
#include "analyzer/writers/stackdiff.h"
#include "analyzer/writers/stacktree.h"
#include "analyzer/util.h"

struct folded_export {
    struct ct_stack_writer w;
    /* while writing */
    int which;
    struct ct_ns_rounder ns;
    char *path;
    size_t len, cap;
    size_t *off;            /* by depth: where the node's name begins   */
    size_t noff;
};

static void append(struct folded_export *x, const char *s)
{
    size_t n = strlen(s);
    ct_grow(&x->path, &x->cap, x->len + n + 2, 1);
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        x->path[x->len++] = c == ';' || c == '\n' || c == '\r' ? '_' : c;
    }
    x->path[x->len] = 0;
}

static int line(void *ctx, uint32_t node, uint32_t depth)
{
    struct folded_export *x = ctx;
    if (node == CT_ST_ROOT)
        return 0;
    ct_grow_zeroed(&x->off, &x->noff, depth, sizeof *x->off);
    x->len = x->off[depth - 1];
    if (depth > 1) {
        ct_grow(&x->path, &x->cap, x->len + 2, 1);
        x->path[x->len++] = ';';
    }
    char buf[96];
    append(x, ct_stacktree_name(&x->w.tree, node, buf, sizeof buf));
    x->off[depth] = x->len;
    const struct ct_st_node *n = &x->w.tree.nodes[node];
    uint64_t v = ct_st_value(n, x->which);
    if (x->which == CT_ST_SELF)
        v = ct_ns_round(&x->ns, v);
    if (v)
        fprintf(x->w.out, "%s %" PRIu64 "\n", x->path, v);
    return 0;
}

/* --diff=OLD: difffolded.pl's "PATH OLD NEW" lines (stackdiff.h). */
static int diff_finish(struct folded_export *x)
{
    struct ct_stackdiff sd;
    int status = ct_stackdiff_load(&sd, x->w.ex.diff_base, &x->w.tree, x->which,
                                   "folded");
    if (status == 0) {
        uint64_t *v = ct_stack_values(&x->w.tree, x->which);
        ct_stackdiff_folded(x->w.out, &sd, &x->w.tree, v);
        free(v);
    }
    ct_stackdiff_free(&sd);
    return status;
}

static int folded_finish(struct ct_exporter *ex, struct ct_profile *profile)
{
    (void)profile;
    struct folded_export *x = (struct folded_export *)ex;
    x->which = ct_stack_writer_close(&x->w,
                                     ex->opts && ex->opts->folded_calls,
                                     "folded");
    if (x->which < 0)
        return 1;
    if (ex->diff_base)
        return diff_finish(x);
    x->ns.ns_per_tick = x->w.info->ns_per_tick;
    ct_grow_zeroed(&x->off, &x->noff, 0, sizeof *x->off);
    ct_stacktree_walk(&x->w.tree, line, x);
    return 0;
}

static void folded_free(struct ct_exporter *ex)
{
    struct folded_export *x = (struct folded_export *)ex;
    ct_stacktree_free(&x->w.tree);
    free(x->path);
    free(x->off);
    free(x);
}

struct ct_exporter *ct_export_folded_new(FILE *out, struct ct_trace_info *info,
                                   const struct ct_view_opts *opts)
{
    struct folded_export *x = ct_xcalloc(1, sizeof *x);
    ct_stack_writer_init(&x->w, out, info, opts, folded_finish, folded_free);
    return &x->w.ex;
}
