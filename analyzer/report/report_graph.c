/* Section 3: the call graph, in GNU gprof's layout (cg_print). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/report/report_private.h"
#include "analyzer/util.h"

static const char separator[] =
    "-----------------------------------------------\n";

struct graph {
    struct ct_rep *r;
    uint32_t *by_callee, *by_caller;  /* arc indices, grouped          */
    uint32_t *callee_off, *caller_off;/* per func: [off[f], off[f+1])  */
    bool *in_focus;                   /* NULL = every function         */
};

static int32_t cycle_of(const struct ct_profile *p, uint32_t f)
{
    return f == CT_FUNC_NONE ? 0 : p->funcs[f].cycle;
}

/* Self-calls and calls between members of one cycle carry counts only. */
static bool internal_arc(const struct ct_profile *p, const struct ct_arc *a)
{
    if (a->caller == a->callee)
        return true;
    int32_t c = cycle_of(p, a->callee);
    return c && c == cycle_of(p, a->caller);
}

static void group(const struct ct_profile *p, bool by_callee, uint32_t **idx,
                  uint32_t **off)
{
    uint32_t n = p->nfuncs;
    *off = ct_xcalloc((size_t)n + 2, sizeof **off);
    *idx = ct_xcalloc(p->narcs + 1, sizeof **idx);
    for (uint32_t a = 0; a < p->narcs; a++) {
        uint32_t f = by_callee ? p->arcs[a].callee : p->arcs[a].caller;
        if (f != CT_FUNC_NONE)
            (*off)[f + 2]++;
    }
    for (uint32_t i = 0; i < n; i++)
        (*off)[i + 2] += (*off)[i + 1];
    for (uint32_t a = 0; a < p->narcs; a++) {
        uint32_t f = by_callee ? p->arcs[a].callee : p->arcs[a].caller;
        if (f != CT_FUNC_NONE)
            (*idx)[(*off)[f + 1]++] = a;
    }
}

static void print_name(struct ct_rep *r, uint32_t f)
{
    fputs(ct_rep_short_name(r, f), r->out);
    if (r->p->funcs[f].cycle)
        fprintf(r->out, " <cycle %" PRId32 ">", r->p->funcs[f].cycle);
    fprintf(r->out, " [%" PRIu32 "]\n", r->index[f]);
}

/* Calls of f as gprof's "total": from outside its cycle, if any. */
static uint64_t total_calls(struct ct_rep *r, uint32_t f)
{
    int32_t c = r->p->funcs[f].cycle;
    return c ? r->cycles[c].calls : r->p->funcs[f].calls;
}

static struct graph *sort_graph;
static bool sort_parents_up;

/* Count-only arcs first; then by time (parents: lightest first, so the
 * heaviest sits next to the primary line; children: heaviest first). */
static int cmp_arc(const void *x, const void *y)
{
    const struct ct_profile *p = sort_graph->r->p;
    const struct ct_arc *a = &p->arcs[*(const uint32_t *)x];
    const struct ct_arc *b = &p->arcs[*(const uint32_t *)y];
    bool ia = internal_arc(p, a), ib = internal_arc(p, b);
    if (ia != ib)
        return ia ? -1 : 1;
    uint64_t ta = a->self_ticks + a->child_ticks;
    uint64_t tb = b->self_ticks + b->child_ticks;
    int dir = sort_parents_up ? 1 : -1;
    if (ta != tb)
        return ta < tb ? -dir : dir;
    if (a->count != b->count)
        return a->count < b->count ? -dir : dir;
    uint32_t fa = sort_parents_up ? a->caller : a->callee;
    uint32_t fb = sort_parents_up ? b->caller : b->callee;
    return strcmp(ct_rep_name(sort_graph->r, fa),
                  ct_rep_name(sort_graph->r, fb));
}

static void print_arcs(struct graph *g, uint32_t f, bool parents)
{
    struct ct_rep *r = g->r;
    const struct ct_profile *p = r->p;
    uint32_t *idx = parents ? g->by_callee : g->by_caller;
    uint32_t *off = parents ? g->callee_off : g->caller_off;
    uint32_t n = 0, *list = ct_xmalloc((off[f + 1] - off[f] + 1) *
                                       sizeof *list);
    bool spontaneous = false;
    for (uint32_t i = off[f]; i < off[f + 1]; i++) {
        const struct ct_arc *a = &p->arcs[idx[i]];
        if (parents && a->caller == CT_FUNC_NONE)
            spontaneous = true;
        else
            list[n++] = idx[i];
    }
    if (spontaneous || (parents && !n))
        fprintf(r->out, "%6.6s %5.5s %7.7s %7.7s %7.7s %7.7s     "
                "<spontaneous>\n", "", "", "", "", "", "");
    sort_graph = g;
    sort_parents_up = parents;
    qsort(list, n, sizeof *list, cmp_arc);
    for (uint32_t i = 0; i < n; i++) {
        const struct ct_arc *a = &p->arcs[list[i]];
        uint32_t other = parents ? a->caller : a->callee;
        if (internal_arc(p, a))
            fprintf(r->out, "%6.6s %5.5s %7.7s %7.7s %7" PRIu64 " %7.7s     ",
                    "", "", "", "", a->count, "");
        else
            fprintf(r->out, "%6.6s %5.5s %7.2f %7.2f %7" PRIu64 "/%-7" PRIu64
                    "     ", "", "", ct_rep_val(r, a->self_ticks),
                    ct_rep_val(r, a->child_ticks), a->count,
                    total_calls(r, a->callee));
        print_name(r, other);
    }
    free(list);
}

static double percent(const struct ct_rep *r, uint64_t ticks)
{
    return r->print_ticks ? 100.0 * (double)ticks / (double)r->print_ticks
                          : 0.0;
}

static void print_function(struct graph *g, uint32_t f)
{
    struct ct_rep *r = g->r;
    const struct ct_fstats *fs = &r->p->funcs[f];
    print_arcs(g, f, true);
    char buf[24];
    snprintf(buf, sizeof buf, "[%" PRIu32 "]", r->index[f]);
    fprintf(r->out, "%-6s %5.1f %7.2f %7.2f", buf,
            percent(r, fs->self_ticks + fs->child_ticks),
            ct_rep_val(r, fs->self_ticks), ct_rep_val(r, fs->child_ticks));
    uint64_t called = fs->calls;
    if (called + fs->self_calls) {
        fprintf(r->out, " %7" PRIu64, called);
        if (fs->self_calls)
            fprintf(r->out, "+%-7" PRIu64 " ", fs->self_calls);
        else
            fprintf(r->out, " %7.7s ", "");
    } else {
        fprintf(r->out, " %7.7s %7.7s ", "", "");
    }
    print_name(r, f);
    print_arcs(g, f, false);
}

static int cmp_member(const void *x, const void *y)
{
    const struct ct_rep *r = sort_graph->r;
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    const struct ct_fstats *fa = &r->p->funcs[a], *fb = &r->p->funcs[b];
    uint64_t ta = fa->self_ticks + fa->child_ticks;
    uint64_t tb = fb->self_ticks + fb->child_ticks;
    if (ta != tb)
        return ta > tb ? -1 : 1;
    return strcmp(ct_rep_name(r, a), ct_rep_name(r, b));
}

static void print_cycle(struct graph *g, int32_t c)
{
    struct ct_rep *r = g->r;
    const struct ct_profile *p = r->p;
    const struct ct_rcycle *cy = &r->cycles[c];
    char buf[24];
    snprintf(buf, sizeof buf, "[%" PRIu32 "]", cy->index);
    fprintf(r->out, "%-6s %5.1f %7.2f %7.2f %7" PRIu64, buf,
            percent(r, cy->self + cy->child), ct_rep_val(r, cy->self),
            ct_rep_val(r, cy->child), cy->calls);
    if (cy->internal)
        fprintf(r->out, "+%-7" PRIu64, cy->internal);
    else
        fprintf(r->out, " %7.7s", "");
    fprintf(r->out, " <cycle %" PRId32 " as a whole> [%" PRIu32 "]\n", c,
            cy->index);
    uint32_t n = 0, *members = ct_xmalloc((p->nfuncs + 1) * sizeof *members);
    for (uint32_t f = 0; f < p->nfuncs; f++)
        if (p->funcs[f].cycle == c)
            members[n++] = f;
    sort_graph = g;
    qsort(members, n, sizeof *members, cmp_member);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t f = members[i];
        const struct ct_fstats *fs = &p->funcs[f];
        fprintf(r->out, "%6.6s %5.5s %7.2f %7.2f %7" PRIu64, "", "",
                ct_rep_val(r, fs->self_ticks), ct_rep_val(r, fs->child_ticks),
                fs->calls);
        if (fs->self_calls)
            fprintf(r->out, "+%-7" PRIu64, fs->self_calls);
        else
            fprintf(r->out, " %7.7s", "");
        fputs("     ", r->out);
        print_name(r, f);
    }
    free(members);
}

/* --focus: the functions it named and everything they reach. */
static bool *focus_set(struct graph *g)
{
    const struct ct_profile *p = g->r->p;
    bool *in = ct_xcalloc(p->nfuncs + 1, sizeof *in);
    uint32_t *work = ct_xmalloc((p->nfuncs + 1) * sizeof *work);
    uint32_t top = 0;
    for (uint32_t f = 0; f < p->nfuncs && f < g->r->nfocus; f++)
        if (g->r->focus[f]) {
            in[f] = true;
            work[top++] = f;
        }
    while (top) {
        uint32_t f = work[--top];
        for (uint32_t i = g->caller_off[f]; i < g->caller_off[f + 1]; i++) {
            uint32_t c = p->arcs[g->by_caller[i]].callee;
            if (!in[c]) {
                in[c] = true;
                work[top++] = c;
            }
        }
    }
    free(work);
    return in;
}

static const char blurb[] =
    "\n"
    " Each entry is one function: the lines above its [index] line are its\n"
    " callers (parents), the lines below are the functions it called\n"
    " (children).  Entries are sorted by self + children time.\n"
    "\n"
    " The function's own line:\n"
    "  index     its number in this listing (names carry it in brackets).\n"
    "  % time    share of the total self time spent in it and in what it\n"
    "            called; recursion is counted once.\n"
    "  self      time spent in the function itself.\n"
    "  children  time spent in the functions it called.\n"
    "  called    how often it was called from other functions (members of\n"
    "            its cycle included); \"+M\" adds the direct recursive calls.\n"
    "  name      the function, with <cycle N> if it is part of a cycle.\n"
    "\n"
    " Caller lines:\n"
    "  self      the part of the function's self time spent on behalf of\n"
    "            calls from this caller (measured, not estimated).\n"
    "  children  the part of the function's children time spent on behalf\n"
    "            of this caller.\n"
    "  called    calls from this caller / all calls of the function (from\n"
    "            outside its cycle).  Self-calls and calls from the same\n"
    "            cycle show a count only.\n"
    "  <spontaneous>  the function was also entered with no traced caller.\n"
    "\n"
    " Callee lines:\n"
    "  self      the callee's self time spent on behalf of this function.\n"
    "  children  the time of the callee's own callees on behalf of it.\n"
    "  called    calls from this function / all calls of the callee.\n"
    "\n"
    " A cycle (functions that call each other in a loop) is also listed as\n"
    " a whole: its self and children time, the calls entering it + the\n"
    " calls between its members, and its members below.  Time spent inside\n"
    " a cycle is charged to the calls that entered it from outside.\n";

void ct_report_graph(struct ct_rep *r)
{
    struct ct_profile *p = r->p;
    struct graph g = {.r = r};
    group(p, true, &g.by_callee, &g.callee_off);
    group(p, false, &g.by_caller, &g.caller_off);
    if (r->focus)
        g.in_focus = focus_set(&g);
    FILE *out = r->out;
    fputs(r->o->brief ? "\t\t     Call graph\n\n"
                      : "\t\t     Call graph (explanation follows)\n\n", out);
    char gran[64];
    fprintf(out, "\ngranularity: %s; times in %s, of %.6f seconds\n\n",
            ct_rep_granularity(r, gran, sizeof gran), r->unit.column,
            ct_rep_ns(r, r->print_ticks) / 1e9);
    fputs("index % time    self  children    called     name\n", out);
    for (uint32_t i = 0; i < r->norder; i++) {
        int64_t e = r->order[i];
        if (e < 0) {
            int32_t c = (int32_t)~e;
            const struct ct_rcycle *cy = &r->cycles[c];
            if (percent(r, cy->self + cy->child) < r->o->min_percent)
                continue;
            if (g.in_focus) {
                bool any = false;
                for (uint32_t f = 0; f < p->nfuncs && !any; f++)
                    any = p->funcs[f].cycle == c && g.in_focus[f];
                if (!any)
                    continue;
            }
            print_cycle(&g, c);
        } else {
            uint32_t f = (uint32_t)e;
            const struct ct_fstats *fs = &p->funcs[f];
            if (r->o->min_percent > 0 &&
                percent(r, fs->self_ticks + fs->child_ticks) <
                    r->o->min_percent)
                continue;
            if (g.in_focus && !g.in_focus[f])
                continue;
            print_function(&g, f);
        }
        fputs(separator, out);
    }
    if (!r->o->brief)
        fputs(blurb, out);
    fputs("\f\n", out);
    free(g.by_callee);
    free(g.by_caller);
    free(g.callee_off);
    free(g.caller_off);
    free(g.in_focus);
}
