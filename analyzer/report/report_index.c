/* Section 4: gprof's index of call-graph numbers by function name. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/report/report_private.h"
#include "analyzer/util.h"

struct cell {
    const char *name;
    int32_t cycle;      /* member of this cycle; or, with func NONE,
                           the cycle as a whole */
    uint32_t index;
    bool whole;
    uint32_t func;      /* functab id, unless whole */
};

static int cmp_cell(const void *a, const void *b)
{
    const struct cell *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    if (c)
        return c;
    return x->cycle < y->cycle ? -1 : x->cycle > y->cycle;
}

/*
 * gprof's index names functions only; the debug information says where
 * each one is defined, so list that too (libbfd's file:line, or the object
 * when the binary has no line information).
 */
static void print_sources(struct ct_rep *r, const struct cell *cells,
                          size_t n)
{
    struct ct_functab *tab = r->p->info->funcs;
    bool header = false;
    for (size_t i = 0; i < n; i++) {
        if (cells[i].whole)
            continue;
        uint32_t f = cells[i].func;
        const struct ct_func *fn = ct_functab_get(tab, f);
        if (!fn || (!fn->file && !fn->object))
            continue;
        if (!header) {
            fputs("\nWhere the functions are defined\n\n", r->out);
            header = true;
        }
        char idx[24];
        snprintf(idx, sizeof idx, "[%" PRIu32 "]", cells[i].index);
        fprintf(r->out, "%6s %-30s ", idx, cells[i].name);
        if (fn->file)
            fprintf(r->out, "%s:%" PRIu32, fn->file, fn->line);
        /* The executable is named in the summary; name other objects. */
        if (fn->object && (!fn->file ||
                           strcmp(fn->object, r->p->info->program) != 0)) {
            const char *base = strrchr(fn->object, '/');
            fprintf(r->out, "%s(%s)", fn->file ? " " : "",
                    base ? base + 1 : fn->object);
        }
        fputc('\n', r->out);
    }
}

#define CELL_NAME 20
#define PER_LINE 3

void ct_report_index(struct ct_rep *r)
{
    const struct ct_profile *p = r->p;
    struct cell *cells =
        ct_xcalloc((size_t)p->nfuncs + p->ncycles + 1, sizeof *cells);
    size_t n = 0;
    for (uint32_t f = 0; f < p->nfuncs; f++)
        if (ct_rep_listed(r, f))
            cells[n++] = (struct cell){ct_rep_name(r, f), p->funcs[f].cycle,
                                       r->index[f], false, f};
    for (uint32_t c = 1; c <= p->ncycles; c++)
        cells[n++] = (struct cell){"<cycle", (int32_t)c, r->cycles[c].index,
                                   true, CT_FUNC_NONE};
    qsort(cells, n, sizeof *cells, cmp_cell);
    fputs("Index by function name\n\n", r->out);
    for (size_t i = 0; i < n; i++) {
        char idx[24], name[4096];
        snprintf(idx, sizeof idx, "[%" PRIu32 "]", cells[i].index);
        if (cells[i].whole)
            snprintf(name, sizeof name, "<cycle %" PRId32 ">", cells[i].cycle);
        else if (cells[i].cycle)
            snprintf(name, sizeof name, "%s <cycle %" PRId32 ">",
                     cells[i].name, cells[i].cycle);
        else
            snprintf(name, sizeof name, "%s", cells[i].name);
        bool last = (i + 1) % PER_LINE == 0 || i + 1 == n;
        if (last)
            fprintf(r->out, "%6s %s\n", idx, name);
        else
            fprintf(r->out, "%6s %-*s", idx, CELL_NAME, name);
    }
    print_sources(r, cells, n);
    fputs("\f\n", r->out);
    free(cells);
}
