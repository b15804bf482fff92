/*
 * --export dot: the call graph for Graphviz, in the manner of gprof2dot.
 *
 * A node is a function: its total (self + children) and self time with
 * their share of all time, and its calls.  An edge is an arc: the time of
 * those calls (the arc's self + children) and their count; a self-arc
 * (or an arc inside a cycle) shows its count only, as in the profile.  Functions whose total share is
 * under --node-threshold (default 0.5 %) are left out, and so are arcs
 * under --edge-threshold (default 0.1 %) or to a function left out.
 * Colour runs from blue (cold) to red (hot) with the total share, as
 * gprof2dot's default colour map does.  Sampled data counts samples.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/writers/export.h"
#include "analyzer/model/view_opts.h"
#include "analyzer/model/profile.h"
#include "analyzer/util.h"

#define DEFAULT_NODE_THRESHOLD 0.5
#define DEFAULT_EDGE_THRESHOLD 0.1

struct dot_export {
    struct ct_profile_writer w;
    double node_pct, edge_pct;
};

/* A DOT string's contents: quotes and backslashes escaped, no newlines. */
static void put_escaped(FILE *out, const char *s)
{
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', out);
        fputc(*s == '\n' || *s == '\r' ? ' ' : *s, out);
    }
}

/* Time with a unit that keeps three significant figures readable. */
static void put_time(FILE *out, double ns)
{
    if (ns < 1e3)
        fprintf(out, "%.0f ns", ns);
    else if (ns < 1e6)
        fprintf(out, "%.3g us", ns / 1e3);
    else if (ns < 1e9)
        fprintf(out, "%.3g ms", ns / 1e6);
    else
        fprintf(out, "%.3g s", ns / 1e9);
}

static void put_amount(FILE *out, const struct ct_trace_info *info,
                       bool sampled, uint64_t v)
{
    if (sampled)
        fprintf(out, "%" PRIu64 " samples", v);
    else
        put_time(out, ct_ticks_to_ns(info, v));
}

/* gprof2dot's colour map: hue from blue (0 %) to red (100 %), with
 * saturation and lightness rising with the share. */
static void put_colour(FILE *out, double share)
{
    double f = share < 0 ? 0 : share > 1 ? 1 : share;
    f = pow(f, 0.5);  /* small shares still tell apart */
    double h = (2.0 / 3.0) * (1 - f), s = 0.6 + 0.3 * f, l = 0.5;
    double c = (1 - fabs(2 * l - 1)) * s;
    double hp = h * 6, x = c * (1 - fabs(fmod(hp, 2) - 1)), m = l - c / 2;
    double r = 0, g = 0, b = 0;
    if (hp < 1) r = c, g = x;
    else if (hp < 2) r = x, g = c;
    else if (hp < 3) g = c, b = x;
    else if (hp < 4) g = x, b = c;
    else if (hp < 5) r = x, b = c;
    else r = c, b = x;
    fprintf(out, "#%02x%02x%02x", (unsigned)lround((r + m) * 255),
            (unsigned)lround((g + m) * 255), (unsigned)lround((b + m) * 255));
}

static int dot_finish(struct ct_exporter *ex, struct ct_profile *p)
{
    struct dot_export *x = (struct dot_export *)ex;
    struct ct_trace_info *info = x->w.info;
    FILE *out = x->w.out;
    if (!p) {
        ct_error("--export dot needs the profile");
        return 1;
    }
    bool sampled = info->sampled && !p->counts.calls;
    uint64_t all = 0;
    for (uint32_t i = 0; i < p->nfuncs; i++)
        all += sampled ? p->funcs[i].samples_self : p->funcs[i].self_ticks;
    double denom = all ? (double)all : 1.0;

    bool *shown = ct_xcalloc(p->nfuncs + 1, sizeof *shown);
    fputs("digraph calltrace {\n"
          "  graph [fontname=\"Helvetica\", nodesep=0.25, ranksep=0.25];\n"
          "  node [fontname=\"Helvetica\", shape=box, style=filled, "
          "fontcolor=\"#ffffff\"];\n"
          "  edge [fontname=\"Helvetica\"];\n",
          out);
    for (uint32_t i = 0; i < p->nfuncs; i++) {
        const struct ct_fstats *f = &p->funcs[i];
        uint64_t self = sampled ? f->samples_self : f->self_ticks;
        uint64_t total = sampled ? f->samples_total
                                 : f->self_ticks + f->child_ticks;
        double share = (double)total / denom;
        if (!(f->calls || f->self_calls || total) ||
            share * 100 < x->node_pct)
            continue;
        shown[i] = true;
        fprintf(out, "  f%" PRIu32 " [label=\"", i);
        put_escaped(out, ct_functab_name(info->funcs, i));
        fprintf(out, "\\n%.2f%%\\n(%.2f%%)\\n", share * 100,
                (double)self / denom * 100);
        if (sampled) {
            fprintf(out, "%" PRIu64 " samples", total);
        } else {
            put_amount(out, info, false, total);
            fputs(" total\\n", out);
            put_amount(out, info, false, self);
            fputs(" self\\n", out);
            /* gprof's N+M: calls from others, then recursive ones */
            if (f->self_calls)
                fprintf(out, "%" PRIu64 "+%" PRIu64 "\xc3\x97", f->calls,
                        f->self_calls);
            else
                fprintf(out, "%" PRIu64 "\xc3\x97", f->calls);
        }
        fputs("\", fillcolor=\"", out);
        put_colour(out, share);
        fprintf(out, "\", fontsize=%.1f];\n", 10 + 8 * share);
    }
    for (uint32_t i = 0; i < p->narcs; i++) {
        const struct ct_arc *a = &p->arcs[i];
        if (a->caller == CT_FUNC_NONE || !shown[a->caller] ||
            !shown[a->callee])
            continue;
        /* Arcs inside a cycle carry counts only, like self-arcs: the
         * cycle's time is charged to the arcs that enter it. */
        int32_t cyc = p->funcs[a->caller].cycle;
        bool self_arc = a->caller == a->callee ||
                        (cyc && cyc == p->funcs[a->callee].cycle);
        uint64_t t = sampled ? a->count : a->self_ticks + a->child_ticks;
        double share = self_arc ? 0 : (double)t / denom;
        if (!self_arc && share * 100 < x->edge_pct)
            continue;
        fprintf(out, "  f%" PRIu32 " -> f%" PRIu32 " [label=\"", a->caller,
                a->callee);
        if (sampled) {
            fprintf(out, "%" PRIu64 " samples", a->count);
        } else {
            if (!self_arc) {
                put_amount(out, info, false, t);
                fprintf(out, " (%.2f%%)\\n", share * 100);
            }
            fprintf(out, "%" PRIu64 "\xc3\x97", a->count);
        }
        fputs("\", color=\"", out);
        put_colour(out, share);
        fprintf(out, "\", penwidth=%.2f];\n", 1 + 3 * share);
    }
    fputs("}\n", out);
    free(shown);
    return 0;
}

struct ct_exporter *ct_export_dot_new(FILE *out, struct ct_trace_info *info,
                                      const struct ct_view_opts *opts)
{
    struct dot_export *x = ct_profile_writer_new(sizeof *x, out, info,
                                                 dot_finish);
    x->node_pct = opts && opts->node_threshold >= 0 ? opts->node_threshold
                                                    : DEFAULT_NODE_THRESHOLD;
    x->edge_pct = opts && opts->edge_threshold >= 0 ? opts->edge_threshold
                                                    : DEFAULT_EDGE_THRESHOLD;
    return &x->w.ex;
}
