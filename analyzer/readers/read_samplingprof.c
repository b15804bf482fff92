/*
 * SamplingProf output: four chunks separated by one empty line -- the
 * runtime in ms, the id map ("<file>:<line>:<method>,<id>", split at the
 * last comma), the counts ("<id>,<self>,<total>") and the call graph
 * ("<caller>,<callee>,<count>", caller -1 = root).  Several documents may
 * follow one another (one per thread or per output interval); their counts,
 * arcs and runtimes are added up, since the aggregated figures carry no
 * thread.
 *
 * A call element is split at the first ":<digits>:" so that file names may
 * hold colons ("C:/app/x.rb:3:run") and methods too ("block in <class:A>").
 * Elements are lines of code; the profile is by function, so elements with
 * the same method in the same file become one function (file and first
 * line kept).  The same method name in another file is named
 * "method (file)".  "?:0:" marks an unknown file, as the exporter writes it.
 */
#include <stdlib.h>
#include <string.h>

#include "analyzer/readers/reader.h"
#include "analyzer/readers/textscan.h"
#include "analyzer/util.h"

#define SP_MAX_ID (1u << 24)

struct counts {
    uint64_t self, total;
};

struct sp {
    uint32_t *func_of_id;       /* id -> func + 1, per document          */
    size_t ids_cap;
    struct counts *counts;      /* by func                               */
    size_t counts_cap;
    struct ct_sample_arc *arcs;
    size_t narcs, arcs_cap;
    unsigned documents;
    double runtime_ms;
};

enum chunk { RUNTIME, BLANK_AFTER_RUNTIME, MAP, COUNTS, GRAPH };

static uint32_t element_func(struct ct_trace_info *info, const char *p,
                             const char *e)
{
    const char *file = NULL, *file_end = NULL, *method = p;
    uint64_t line = 0;
    for (const char *c = ct_find(p, e, ':'); c; c = ct_find(c + 1, e, ':')) {
        const char *d = c + 1;
        uint64_t v;
        if (ct_parse_u64(&d, e, &v) && d < e && *d == ':' && v <= UINT32_MAX) {
            file = p;
            file_end = c;
            line = v;
            method = d + 1;
            break;
        }
    }
    if (file && file_end - file == 1 && *file == '?' && line == 0)
        file = NULL;
    uint32_t n0 = ct_functab_count(info->funcs);
    uint32_t id = ct_functab_intern_name(info->funcs, method,
                                         (size_t)(e - method));
    const struct ct_func *f = ct_functab_get(info->funcs, id);
    size_t flen = file ? (size_t)(file_end - file) : 0;
    bool fresh = id >= n0;
    bool same_file = f->file ? file && strlen(f->file) == flen &&
                                   memcmp(f->file, file, flen) == 0
                             : !file;
    if (!fresh && !same_file) {
        char name[1024];
        snprintf(name, sizeof name, "%.*s (%.*s)", (int)(e - method), method,
                 file ? (int)flen : 1, file ? file : "?");
        n0 = ct_functab_count(info->funcs);
        id = ct_functab_intern_name(info->funcs, name, strlen(name));
        f = ct_functab_get(info->funcs, id);
        fresh = id >= n0;
    }
    if (fresh && file)
        ct_functab_set_source(info->funcs, id, file, flen, (uint32_t)line);
    return id;
}

static bool map_line(struct sp *S, struct ct_trace_info *info, const char *l,
                     const char *e)
{
    const char *comma = ct_find_last(l, e, ',');
    uint64_t id;
    if (!comma || comma == l || !ct_whole_u64(comma + 1, e, &id) ||
        id >= SP_MAX_ID)
        return false;
    uint32_t f = element_func(info, l, comma);
    if (id >= S->ids_cap) {
        size_t old = S->ids_cap;
        ct_grow(&S->func_of_id, &S->ids_cap, id, sizeof *S->func_of_id);
        memset(S->func_of_id + old, 0,
               (S->ids_cap - old) * sizeof *S->func_of_id);
    }
    S->func_of_id[id] = f + 1;
    return true;
}

/* Three comma-separated integers; the first may be -1 (graph root). */
static bool triple(const char *l, const char *e, int64_t v[3])
{
    for (int i = 0; i < 3; i++) {
        if (!ct_parse_i64(&l, e, &v[i]) || (i < 2 ? l >= e || *l++ != ','
                                                  : l != e))
            return false;
    }
    return v[1] >= 0 && v[2] >= 0 && v[0] >= -1;
}

static bool lookup(struct sp *S, int64_t id, uint32_t *f)
{
    if (id < 0 || (uint64_t)id >= S->ids_cap || !S->func_of_id[id])
        return false;
    *f = S->func_of_id[id] - 1;
    return true;
}

static bool data_line(struct sp *S, enum chunk c, const char *l,
                      const char *e, const char **why)
{
    int64_t v[3];
    uint32_t a, b = CT_FUNC_NONE;
    if (!triple(l, e, v) || (c == COUNTS && v[0] < 0)) {
        *why = c == COUNTS ? "expected '<id>,<self>,<total>'"
                           : "expected '<caller id>,<callee id>,<count>'";
        return false;
    }
    if (!lookup(S, v[c == COUNTS ? 0 : 1], &a) ||
        (c == GRAPH && v[0] >= 0 && !lookup(S, v[0], &b))) {
        *why = "id not in the id map";
        return false;
    }
    if (c == COUNTS) {
        if (a >= S->counts_cap) {
            size_t old = S->counts_cap;
            ct_grow(&S->counts, &S->counts_cap, a, sizeof *S->counts);
            memset(S->counts + old, 0,
                   (S->counts_cap - old) * sizeof *S->counts);
        }
        S->counts[a].self += (uint64_t)v[1];
        S->counts[a].total += (uint64_t)v[2];
    } else {
        ct_grow(&S->arcs, &S->arcs_cap, S->narcs, sizeof *S->arcs);
        S->arcs[S->narcs++] = (struct ct_sample_arc){b, a, (uint64_t)v[2]};
    }
    return true;
}

static int arc_cmp(const void *x, const void *y)
{
    const struct ct_sample_arc *a = x, *b = y;
    if (a->caller != b->caller)
        return a->caller < b->caller ? -1 : 1;
    return a->callee < b->callee ? -1 : a->callee > b->callee;
}

static void publish(struct sp *S, struct ct_trace_info *info)
{
    info->sampled = true;
    info->sample_runtime_ms = S->runtime_ms;
    for (size_t f = 0; f < S->counts_cap; f++)
        if (S->counts[f].self || S->counts[f].total)
            ct_trace_add_sample_count(info, (uint32_t)f, S->counts[f].self,
                                      S->counts[f].total);
    if (S->narcs)
        qsort(S->arcs, S->narcs, sizeof *S->arcs, arc_cmp);
    for (size_t i = 0; i < S->narcs;) {
        struct ct_sample_arc a = S->arcs[i++];
        while (i < S->narcs && S->arcs[i].caller == a.caller &&
               S->arcs[i].callee == a.callee)
            a.count += S->arcs[i++].count;
        ct_trace_add_sample_arc(info, a.caller, a.callee, a.count);
    }
    if (S->documents > 1) {
        char v[64];
        snprintf(v, sizeof v, "%u (counts and runtimes added up)",
                 S->documents);
        ct_trace_add_meta(info, "SamplingProf documents", v);
    }
}

static int read_samplingprof(const struct ct_input *in,
                             struct ct_trace_info *info, struct ct_sink *sink,
                             const struct ct_read_opts *opts)
{
    (void)sink;  /* aggregated counts only: no events */
    struct sp S = {0};
    struct ct_scan s;
    ct_scan_init(&s, in);
    ct_scan_check(&s, info, opts);
    info->ns_per_tick = 1e6;
    snprintf(info->clock, sizeof info->clock, "samples (runtime in ms)");
    enum chunk c = RUNTIME;
    const char *l;
    size_t n;
    int status = CT_EXIT_OK;
    while (ct_scan_line(&s, &l, &n)) {
        const char *e = l + n;
        const char *why = NULL;
        double rt;
        if (c == GRAPH && n && !ct_find(l, e, ','))
            c = RUNTIME;  /* the next document begins */
        if (n == 0) {
            if (c == BLANK_AFTER_RUNTIME)
                c = MAP;
            else if (c == MAP || c == COUNTS)
                c++;
            else if (c == GRAPH)
                c = RUNTIME;
            continue;
        }
        switch (c) {
        case RUNTIME:
            if (!ct_whole_double(l, e, &rt) || rt < 0) {
                why = "expected the runtime in ms (a number)";
                break;
            }
            S.runtime_ms += rt;
            S.documents++;
            if (S.func_of_id)
                memset(S.func_of_id, 0, S.ids_cap * sizeof *S.func_of_id);
            c = BLANK_AFTER_RUNTIME;
            break;
        case BLANK_AFTER_RUNTIME:
            why = "expected an empty line after the runtime";
            break;
        case MAP:
            if (!map_line(&S, info, l, e))
                why = "expected '<file>:<line>:<method>,<id>'";
            break;
        case COUNTS:
        case GRAPH:
            data_line(&S, c, l, e, &why);
            break;
        }
        if (why && ct_scan_bad(&s, info, opts, "%s", why)) {
            status = CT_EXIT_BAD_INPUT;
            break;
        }
    }
    if (s.failed)
        status = CT_EXIT_BAD_INPUT;
    if (status == CT_EXIT_OK && S.documents == 0) {
        ct_input_error(in->path, "line 1", "expected the runtime in ms (no "
                       "SamplingProf document found)");
        snprintf(info->stopped, sizeof info->stopped, "no document found");
        status = CT_EXIT_BAD_INPUT;
    }
    publish(&S, info);
    free(S.func_of_id);
    free(S.counts);
    free(S.arcs);
    return status;
}

static int probe(const struct ct_input *in)
{
    struct ct_scan s;
    struct ct_input head = *in;
    if (head.size > 4096)
        head.size = 4096;
    ct_scan_init(&s, &head);
    const char *l;
    size_t n;
    double rt;
    if (!ct_scan_line(&s, &l, &n) || !ct_whole_double(l, l + n, &rt))
        return 0;
    if (!ct_scan_line(&s, &l, &n) || n != 0)
        return 0;
    if (!ct_scan_line(&s, &l, &n))
        return 10;
    const char *comma = ct_find_last(l, l + n, ',');
    uint64_t id;
    if (n == 0)  /* an empty id map */
        return 40;
    return comma && ct_whole_u64(comma + 1, l + n, &id) ? 70 : 0;
}

const struct ct_reader ct_reader_samplingprof = {
    "samplingprof", "SamplingProf output (runtime, id map, counts, graph)",
    probe, read_samplingprof};
