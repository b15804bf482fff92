/*
 * --export flamegraph: an interactive SVG flame graph, self-contained (the
 * script of flamegraph_script.c is embedded), so a browser opens it
 * directly and no Perl is needed.
 *
 * Each frame is a call path of the stack tree (stacktree.h); its width is
 * its value with everything it called: time in ns for traced data, samples
 * for sampled data, calls with --folded-value=calls.  The root "all" spans
 * the whole width and equals the report's total (cpu time, or samples).
 * Children sit on their parent (flame) or hang below it (--icicle), in the
 * order they were first seen.  The tooltip gives the time, share of the
 * total, self part and calls (with calls as the measure: the calls of the
 * frame and its callees, and the frame's own).  Frames narrower than
 * MIN_PX pixels are left out, as flamegraph.pl does; their value stays
 * inside their parent's width.  --threads adds a frame per thread under the root.
 *
 * --diff=OLD draws the differential flame graph of FlameGraph's
 * difffolded.pl and flamegraph.pl: the frames and their widths are the new
 * run's (FILE), each frame's colour its own (self) change from the old
 * run's same call path: red where the new run spends more, blue where it
 * spends less, white where nothing changed, deeper with the size of the
 * change (the largest change in the graph the deepest).  A path only the
 * old run has has no width and is not drawn, as in flamegraph.pl.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/writers/export.h"
#include "analyzer/writers/flamegraph_script.h"
#include "analyzer/model/view_opts.h"
#include "analyzer/writers/stackdiff.h"
#include "analyzer/writers/stacktree.h"
#include "analyzer/writers/textesc.h"
#include "analyzer/util.h"

#define WIDTH 1200      /* pixels */
#define PAD 10
#define ROW 16
#define TOP 40          /* title and buttons */
#define BOTTOM 28       /* details line */
#define MIN_PX 0.1

struct fg_export {
    struct ct_stack_writer w;
    /* while writing */
    int which;
    uint64_t *sum;              /* per node, over the subtree           */
    uint64_t *x;                /* per depth: where the next child goes */
    size_t nx;
    uint32_t rows;
    bool icicle;
    struct ct_ns_rounder *rounder;
    struct ct_stackdiff *diff;  /* --diff=OLD, NULL without             */
    uint64_t maxdelta;          /* the largest |own change| of a frame   */
};

static double px(const struct fg_export *x, uint64_t v)
{
    uint64_t total = x->sum[CT_ST_ROOT];
    return total ? (double)v * (WIDTH - 2 * PAD) / (double)total : 0;
}

/* Row d's y: the root at the bottom (flame) or the top (icicle). */
static uint32_t row_y(const struct fg_export *x, uint32_t depth)
{
    return x->icicle ? TOP + depth * ROW : TOP + (x->rows - 1 - depth) * ROW;
}

static void amount(struct fg_export *x, uint64_t v)
{
    if (x->which == CT_ST_SAMPLES) {
        fprintf(x->w.out, "%" PRIu64 " sample%s", v, v == 1 ? "" : "s");
    } else if (x->which == CT_ST_CALLS) {
        fprintf(x->w.out, "%" PRIu64 " call%s", v, v == 1 ? "" : "s");
    } else {
        double ns = (double)v;   /* converted to ns by fg_finish */
        static const char *unit[] = {"ns", "us", "ms", "s"};
        int u = 0;
        while (u < 3 && ns >= 1000) {
            ns /= 1000;
            u++;
        }
        fprintf(x->w.out, u ? "%.3f %s" : "%.0f %s", ns, unit[u]);
    }
}

/* The colour of a name: a warm hue from a hash, so a function keeps its
 * colour everywhere. */
static void colour(FILE *out, const char *name, bool synthetic)
{
    if (synthetic) {
        fputs("rgb(200,200,205)", out);
        return;
    }
    uint32_t h = 2166136261u;
    for (const char *p = name; *p; p++)
        h = (h ^ (uint8_t)*p) * 16777619u;
    fprintf(out, "rgb(%u,%u,%u)", 205 + h % 50, (h >> 8) % 230,
            (h >> 16) % 55);
}

/* --diff: flamegraph.pl's color_scale, from white to red (more in the
 * new run) or blue (less). */
static void diff_colour(FILE *out, int64_t delta, uint64_t max)
{
    unsigned r = 255, g = 255, b = 255;
    double scale = max ? (double)(max - (uint64_t)llabs(delta)) / (double)max
                       : 1;
    if (delta > 0)
        g = b = (unsigned)(210 * scale);
    else if (delta < 0)
        r = g = (unsigned)(210 * scale);
    fprintf(out, "rgb(%u,%u,%u)", r, g, b);
}

/* The tooltip's part for --diff: the old run's own value and the change. */
static void diff_title(struct fg_export *x, uint64_t old, uint64_t self)
{
    fputs(x->which == CT_ST_CALLS ? "; old own " : "; old self ", x->w.out);
    amount(x, old);
    fputs(", change ", x->w.out);
    fputc(self >= old ? '+' : '-', x->w.out);
    amount(x, self >= old ? self - old : old - self);
    if (old)
        fprintf(x->w.out, " (%+.1f%%)",
                100.0 * ((double)self - (double)old) / (double)old);
    else if (self)
        fputs(" (new)", x->w.out);
}

static void label(FILE *out, const char *name, double w)
{
    size_t fit = w > 6 ? (size_t)((w - 6) / 7) : 0;
    size_t n = strlen(name);
    if (fit < 3)
        return;
    if (n <= fit) {
        ct_xml_text(out, name, n);
        return;
    }
    /* cut at a character boundary */
    size_t cut = fit - 2;
    while (cut > 0 && ((unsigned char)name[cut] & 0xc0) == 0x80)
        cut--;
    ct_xml_text(out, name, cut);
    fputs("..", out);
}

static int frame(void *ctx, uint32_t node, uint32_t depth)
{
    struct fg_export *x = ctx;
    ct_grow_zeroed(&x->x, &x->nx, depth + 1, sizeof *x->x);
    uint64_t at = x->x[depth];
    x->x[depth] += x->sum[node];
    x->x[depth + 1] = at;
    double fx = px(x, at), fw = px(x, x->sum[node]);
    if (fw < MIN_PX || !x->sum[node])
        return 0;
    const struct ct_st_node *n = &x->w.tree.nodes[node];
    char buf[96];
    const char *name = ct_stacktree_name(&x->w.tree, node, buf, sizeof buf);
    uint64_t total = x->sum[CT_ST_ROOT];
    uint64_t self = ct_st_value(n, x->which);
    FILE *out = x->w.out;
    fprintf(out, "<g class=\"f\" data-x=\"%.4f\" data-w=\"%.4f\" "
            "data-d=\"%" PRIu32 "\" data-v=\"%" PRIu64 "\" data-n=\"",
            fx, fw, depth, x->sum[node]);
    ct_xml_text(out, name, strlen(name));
    fputs("\"><title>", out);
    ct_xml_text(out, name, strlen(name));
    fputs(": ", out);
    amount(x, x->sum[node]);
    fprintf(out, " (%.2f%%)", total ? 100.0 * (double)x->sum[node] /
                                          (double)total : 0.0);
    /* calls: the width counts the callees' calls too */
    fputs(x->which == CT_ST_CALLS ? ", own " : ", self ", out);
    amount(x, self);
    if (x->which == CT_ST_SELF)
        fprintf(out, ", %" PRIu64 " call%s", n->calls,
                n->calls == 1 ? "" : "s");
    if (x->diff && node != CT_ST_ROOT)
        diff_title(x, ct_stackdiff_old(x->diff, node), self);
    fputs("</title>", out);
    fprintf(out, "<rect x=\"%.4f\" y=\"%" PRIu32 "\" width=\"%.4f\" "
            "height=\"%d\" fill=\"", PAD + fx, row_y(x, depth), fw, ROW - 1);
    if (x->diff && node != CT_ST_ROOT)
        diff_colour(out, (int64_t)(self - ct_stackdiff_old(x->diff, node)),
                    x->maxdelta);
    else
        colour(out, name, n->func == CT_FUNC_NONE || node == CT_ST_ROOT ||
                              (x->w.tree.by_thread &&
                               n->parent == CT_ST_ROOT));
    fprintf(out, "\"/><text x=\"%.4f\" y=\"%" PRIu32 "\">", PAD + fx + 3,
            row_y(x, depth) + ROW - 4);
    label(out, name, fw);
    fputs("</text></g>\n", out);
    return 0;
}

static void header(struct fg_export *x, uint32_t height)
{
    FILE *out = x->w.out;
    const char *what = x->which == CT_ST_SAMPLES ? "samples"
                       : x->which == CT_ST_CALLS ? "calls" : "time";
    fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\" "
            "standalone=\"no\"?>\n"
            "<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" "
            "width=\"%d\" height=\"%" PRIu32 "\" viewBox=\"0 0 %d %" PRIu32
            "\" data-pad=\"%d\" data-w=\"%d\" data-total=\"%" PRIu64
            "\" data-measure=\"%s\" onload=\"init()\">\n",
            WIDTH, height, WIDTH, height, PAD, WIDTH - 2 * PAD,
            x->sum[CT_ST_ROOT], what);
    fprintf(out, "<style>%s</style>\n<script type=\"text/ecmascript\">"
            "<![CDATA[\n%s]]></script>\n", ct_flamegraph_style,
            ct_flamegraph_script);
    fputs("<rect x=\"0\" y=\"0\" width=\"100%\" height=\"100%\" "
          "fill=\"#f6f6f2\"/>\n", out);
    fprintf(out, "<text id=\"title\" x=\"%d\" y=\"24\">%s%s graph of ",
            WIDTH / 2, x->diff ? "Differential " : "",
            x->diff ? (x->icicle ? "icicle" : "flame")
                    : (x->icicle ? "Icicle" : "Flame"));
    const char *prog = x->w.info->program[0] ? x->w.info->program
                                           : x->w.info->path;
    ct_xml_text(out, prog, strlen(prog));
    fprintf(out, " (%s)", what);
    if (x->diff) {
        fputs(": red more, blue less than in ", out);
        ct_xml_text(out, x->diff->old->info->path, strlen(x->diff->old->info->path));
    }
    fputs("</text>\n", out);
    fprintf(out, "<text id=\"unzoom\" class=\"hide\" x=\"%d\" y=\"24\">"
            "Reset zoom</text>\n", PAD);
    fprintf(out, "<text id=\"search\" x=\"%d\" y=\"24\">Search</text>\n",
            WIDTH - PAD - 60);
    fprintf(out, "<text id=\"matched\" x=\"%d\" y=\"%" PRIu32 "\"> </text>\n",
            WIDTH - PAD - 160, height - 10);
    fprintf(out, "<text id=\"details\" x=\"%d\" y=\"%" PRIu32 "\"> </text>\n",
            PAD, height - 10);
}

/* The rows drawn: the deepest frame wide enough, plus one. */
static uint32_t count_rows(const struct fg_export *x)
{
    const struct ct_stacktree *t = &x->w.tree;
    uint32_t *depth = ct_xcalloc(t->nnodes ? t->nnodes : 1, sizeof *depth);
    uint32_t rows = 1;
    for (uint32_t i = 1; i < t->nnodes; i++) {
        depth[i] = depth[t->nodes[i].parent] + 1;
        if (x->sum[i] && px(x, x->sum[i]) >= MIN_PX && depth[i] + 1 > rows)
            rows = depth[i] + 1;
    }
    free(depth);
    return rows;
}

static int round_ns(void *ctx, uint32_t node, uint32_t depth)
{
    (void)depth;
    struct fg_export *x = ctx;
    struct ct_st_node *n = &x->w.tree.nodes[node];
    n->self = ct_ns_round(x->rounder, n->self);
    return 0;
}

/* --diff=OLD: the old run's paths, and the largest change of a frame
 * (the deepest colour). */
static int load_diff(struct fg_export *x)
{
    x->diff = ct_xcalloc(1, sizeof *x->diff);
    if (ct_stackdiff_load(x->diff, x->w.ex.diff_base, &x->w.tree, x->which,
                          "flamegraph") != 0)
        return 1;
    for (uint32_t i = 1; i < x->w.tree.nnodes; i++) {
        uint64_t v = ct_st_value(&x->w.tree.nodes[i], x->which);
        uint64_t old = ct_stackdiff_old(x->diff, i);
        uint64_t d = v > old ? v - old : old - v;
        if (d > x->maxdelta)
            x->maxdelta = d;
    }
    return 0;
}

static int fg_finish(struct ct_exporter *ex, struct ct_profile *profile)
{
    (void)profile;
    struct fg_export *x = (struct fg_export *)ex;
    x->which = ct_stack_writer_close(&x->w,
                                     ex->opts && ex->opts->folded_calls,
                                     "flamegraph");
    if (x->which < 0)
        return 1;
    x->icicle = ex->opts && ex->opts->icicle;
    if (x->which == CT_ST_SELF) {
        /* whole ns, rounded in the folded export's order, so that the
         * frames add up and both exports give the same figures */
        struct ct_ns_rounder r = {.ns_per_tick = x->w.info->ns_per_tick};
        x->rounder = &r;
        ct_stacktree_walk(&x->w.tree, round_ns, x);
        x->rounder = NULL;
    }
    if (ex->diff_base && load_diff(x) != 0)
        return 1;
    x->sum = ct_stacktree_totals(&x->w.tree, x->which);
    x->rows = count_rows(x);
    header(x, TOP + x->rows * ROW + BOTTOM);
    fputs("<g id=\"frames\">\n", x->w.out);
    ct_stacktree_walk(&x->w.tree, frame, x);
    fputs("</g>\n</svg>\n", x->w.out);
    return 0;
}

static void fg_free(struct ct_exporter *ex)
{
    struct fg_export *x = (struct fg_export *)ex;
    ct_stacktree_free(&x->w.tree);
    if (x->diff)
        ct_stackdiff_free(x->diff);
    free(x->diff);
    free(x->sum);
    free(x->x);
    free(x);
}

struct ct_exporter *ct_export_flamegraph_new(FILE *out,
                                             struct ct_trace_info *info,
                                             const struct ct_view_opts *opts)
{
    struct fg_export *x = ct_xcalloc(1, sizeof *x);
    ct_stack_writer_init(&x->w, out, info, opts, fg_finish, fg_free);
    return &x->w.ex;
}
