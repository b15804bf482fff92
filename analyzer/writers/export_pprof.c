/*
 * --export pprof: a gzipped profile.proto, the format of Go's pprof and of
 * continuous-profiling servers (Pyroscope, Parca), so traced processes can
 * be merged and queried beyond one machine.
 *
 * Each call path of the trace (stacktree.h) is one Sample, its stack leaf
 * first, with two values: the calls that opened the path (calls, count)
 * and the path's self time (time, nanoseconds).  `pprof -top` then shows a
 * function's flat time as the report's self time and its cumulative time
 * as self + children (a path is counted once however often the function
 * recurs in it), and `-sample_index=calls` its calls, recursive ones
 * included.  Sampled data has (samples, count) and (cpu, nanoseconds) =
 * samples x the interval.  One Location and one Function per function,
 * with its source file and line where libbfd knows them.
 *
 * With --stats each traced sample also carries numeric labels, in
 * nanoseconds, of the distribution of its leaf function's calls (the total
 * time of each, docs/analysis.md): min, p50, p90, p99 and max.  A sample's
 * values are summed over paths and they are not, so they are labels:
 * `pprof -tags` shows them, `-tagfocus=max=10ms:` keeps the paths of the
 * functions one of whose calls lasted 10 ms or more.  Callgrind has no
 * such place (the tools add up every event into the callers' inclusive
 * cost), so it carries none.
 *
 *   Sample: label 3                    Label: key 1, num 3, num_unit 4
 *
 * profile.proto field numbers (github.com/google/pprof, proto/profile.proto):
 *   Profile: sample_type 1, sample 2, location 4, function 5,
 *            string_table 6, time_nanos 9, duration_nanos 10,
 *            period_type 11, period 12, default_sample_type 14
 *   ValueType: type 1, unit 2          Sample: location_id 1, value 2
 *   Location: id 1, line 4             Line: function_id 1, line 2
 *   Function: id 1, name 2, system_name 3, filename 4, start_line 5
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "analyzer/model/profile_dist.h"
#include "analyzer/writers/export.h"
#include "analyzer/writers/protobuf.h"
#include "analyzer/writers/stacktree.h"
#include "analyzer/util.h"

struct pprof_export {
    struct ct_stack_writer w;
    /* while writing */
    struct pb_buf pb;
    bool sampled;
    /* The profile: with --stats it keeps the distributions, and each
     * sample is labelled with its leaf's (ct_profile_func_dist is NULL
     * otherwise). */
    const struct ct_profile *stats;
    struct ct_ns_rounder ns;
    uint64_t *path;          /* location ids by depth                    */
    size_t npath;
    /* string table: index by content, linear hash */
    char **strings;
    uint32_t nstrings;
    size_t strings_cap;
    uint32_t *slots;
    uint32_t nslots;
};

static uint32_t hash_str(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 16777619u;
    return h;
}

/* Index of s in the string table, added if new (index 0 is ""). */
static int64_t str_id(struct pprof_export *x, const char *s)
{
    if (!s || !*s)
        return 0;
    if (2 * (x->nstrings + 1) > x->nslots) {
        uint32_t n = x->nslots ? 2 * x->nslots : 1024;
        uint32_t *slots = ct_xcalloc(n, sizeof *slots);
        for (uint32_t i = 1; i < x->nstrings; i++) {
            uint32_t k = hash_str(x->strings[i]) & (n - 1);
            while (slots[k])
                k = (k + 1) & (n - 1);
            slots[k] = i;
        }
        free(x->slots);
        x->slots = slots;
        x->nslots = n;
    }
    uint32_t k = hash_str(s) & (x->nslots - 1);
    while (x->slots[k]) {
        if (strcmp(x->strings[x->slots[k]], s) == 0)
            return x->slots[k];
        k = (k + 1) & (x->nslots - 1);
    }
    ct_grow(&x->strings, &x->strings_cap, x->nstrings, sizeof *x->strings);
    x->strings[x->nstrings] = ct_xstrdup(s);
    x->slots[k] = x->nstrings;
    return x->nstrings++;
}

static void value_type(struct pprof_export *x, uint32_t field,
                       const char *type, const char *unit)
{
    size_t m = pb_begin(&x->pb, field);
    pb_int(&x->pb, 1, str_id(x, type));
    pb_int(&x->pb, 2, str_id(x, unit));
    pb_end(&x->pb, m);
}

/* The labels of a sample whose leaf is func (--stats). */
static void dist_labels(struct pprof_export *x, uint32_t func)
{
    const struct ct_call_dist *d =
        func == CT_FUNC_NONE ? NULL : ct_profile_func_dist(x->stats, func);
    if (!d || !d->total.count)
        return;
    static const struct {
        const char *key;
        unsigned permille;   /* 0: min, 1000: max */
    } figs[] = {{"min", 0}, {"p50", 500}, {"p90", 900}, {"p99", 990},
                {"max", 1000}};
    for (size_t i = 0; i < sizeof figs / sizeof *figs; i++) {
        uint64_t t = figs[i].permille == 0      ? d->total.min
                     : figs[i].permille == 1000 ? d->total.max
                     : ct_hist_quantile(&d->total, figs[i].permille);
        size_t m = pb_begin(&x->pb, 3);
        pb_int(&x->pb, 1, str_id(x, figs[i].key));
        pb_int(&x->pb, 3, (int64_t)llround(ct_ticks_to_ns(x->w.info, t)));
        pb_int(&x->pb, 4, str_id(x, "nanoseconds"));
        pb_end(&x->pb, m);
    }
}

static int sample(void *ctx, uint32_t node, uint32_t depth)
{
    struct pprof_export *x = ctx;
    if (node == CT_ST_ROOT)
        return 0;
    const struct ct_st_node *n = &x->w.tree.nodes[node];
    ct_grow_zeroed(&x->path, &x->npath, depth, sizeof *x->path);
    x->path[depth] = n->func == CT_FUNC_NONE ? 0 : (uint64_t)n->func + 1;
    uint64_t a, b;
    if (x->sampled) {
        a = n->samples;
        b = n->samples * x->w.info->sample_interval_ns;
    } else {
        a = n->calls;
        b = ct_ns_round(&x->ns, n->self);
    }
    if (!a && !b)
        return 0;
    size_t m = pb_begin(&x->pb, 2);
    size_t l = pb_begin(&x->pb, 1);  /* packed location ids, leaf first */
    for (uint32_t d = depth; d >= 1; d--)
        if (x->path[d])
            pb_varint(&x->pb, x->path[d]);
    pb_end(&x->pb, l);
    size_t v = pb_begin(&x->pb, 2);
    pb_varint(&x->pb, a);
    pb_varint(&x->pb, b);
    pb_end(&x->pb, v);
    if (x->stats && !x->sampled)
        dist_labels(x, n->func);   /* with --stats only */
    pb_end(&x->pb, m);
    return 0;
}

static void functions(struct pprof_export *x)
{
    uint32_t nfuncs = ct_functab_count(x->w.info->funcs);
    bool *used = ct_xcalloc(nfuncs + 1, sizeof *used);
    for (uint32_t i = 0; i < x->w.tree.nnodes; i++)
        if (x->w.tree.nodes[i].func < nfuncs)
            used[x->w.tree.nodes[i].func] = true;
    for (uint32_t id = 0; id < nfuncs; id++) {
        if (!used[id])
            continue;
        const struct ct_func *f = ct_functab_get(x->w.info->funcs, id);
        int64_t name = str_id(x, f && f->name ? f->name : "?");
        size_t m = pb_begin(&x->pb, 4);  /* Location */
        pb_uint(&x->pb, 1, (uint64_t)id + 1);
        size_t ln = pb_begin(&x->pb, 4);
        pb_uint(&x->pb, 1, (uint64_t)id + 1);
        if (f && f->line)
            pb_int(&x->pb, 2, f->line);
        pb_end(&x->pb, ln);
        pb_end(&x->pb, m);
        m = pb_begin(&x->pb, 5);  /* Function */
        pb_uint(&x->pb, 1, (uint64_t)id + 1);
        pb_int(&x->pb, 2, name);
        pb_int(&x->pb, 3, name);
        if (f && f->file)
            pb_int(&x->pb, 4, str_id(x, f->file));
        if (f && f->line)
            pb_int(&x->pb, 5, f->line);
        pb_end(&x->pb, m);
    }
    free(used);
}

/* The whole message, gzipped as pprof and the servers expect it. */
static int write_gzip(struct pprof_export *x)
{
    if (x->pb.len > UINT32_MAX) {
        ct_error("--export pprof: profile too large for one zlib call");
        return 1;
    }
    z_stream z = {0};
    if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
                     Z_DEFAULT_STRATEGY) != Z_OK) {
        ct_error("--export pprof: cannot start zlib");
        return 1;
    }
    z.next_in = x->pb.data;
    z.avail_in = (uInt)x->pb.len;
    unsigned char buf[65536];
    int r;
    do {
        z.next_out = buf;
        z.avail_out = sizeof buf;
        r = deflate(&z, Z_FINISH);
        fwrite(buf, 1, sizeof buf - z.avail_out, x->w.out);
    } while (r == Z_OK);
    deflateEnd(&z);
    if (r != Z_STREAM_END) {
        ct_error("--export pprof: zlib failed (%d)", r);
        return 1;
    }
    return 0;
}

static int pprof_finish(struct ct_exporter *ex, struct ct_profile *profile)
{
    struct pprof_export *x = (struct pprof_export *)ex;
    x->stats = profile;
    int which = ct_stack_writer_close(&x->w, false, "pprof");
    if (which < 0)
        return 1;
    x->sampled = which == CT_ST_SAMPLES;
    x->ns.ns_per_tick = x->w.info->ns_per_tick;
    ct_grow(&x->strings, &x->strings_cap, 0, sizeof *x->strings);
    if (!x->nstrings) {
        x->strings[0] = ct_xstrdup("");
        x->nstrings = 1;
    }
    if (x->sampled) {
        value_type(x, 1, "samples", "count");
        value_type(x, 1, "cpu", "nanoseconds");
        value_type(x, 11, "cpu", "nanoseconds");
        pb_int(&x->pb, 12, (int64_t)x->w.info->sample_interval_ns);
    } else {
        value_type(x, 1, "calls", "count");
        value_type(x, 1, "time", "nanoseconds");
    }
    pb_int(&x->pb, 14, str_id(x, x->sampled ? "cpu" : "time"));
    ct_grow_zeroed(&x->path, &x->npath, 0, sizeof *x->path);
    ct_stacktree_walk(&x->w.tree, sample, x);
    functions(x);
    if (x->w.info->start_epoch_ns > 0)
        pb_int(&x->pb, 9, x->w.info->start_epoch_ns);
    for (uint32_t i = 0; i < x->nstrings; i++)
        pb_string(&x->pb, 6, x->strings[i]);
    return write_gzip(x);
}

static void pprof_free(struct ct_exporter *ex)
{
    struct pprof_export *x = (struct pprof_export *)ex;
    ct_stacktree_free(&x->w.tree);
    pb_free(&x->pb);
    for (uint32_t i = 0; i < x->nstrings; i++)
        free(x->strings[i]);
    free(x->strings);
    free(x->slots);
    free(x->path);
    free(x);
}

struct ct_exporter *ct_export_pprof_new(FILE *out, struct ct_trace_info *info,
                                        const struct ct_view_opts *opts)
{
    struct pprof_export *x = ct_xcalloc(1, sizeof *x);
    ct_stack_writer_init(&x->w, out, info, opts, pprof_finish, pprof_free);
    return &x->w.ex;
}
