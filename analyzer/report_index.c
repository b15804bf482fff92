/* Section 4: gprof's index of call-graph numbers by function name. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report_private.h"
#include "util.h"

struct cell {
    const char *name;
    int32_t cycle;      /* member of this cycle; or, with func NONE,
                           the cycle as a whole */
    uint32_t index;
    bool whole;
};

static int cmp_cell(const void *a, const void *b)
{
    const struct cell *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    if (c)
        return c;
    return x->cycle < y->cycle ? -1 : x->cycle > y->cycle;
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
                                       r->index[f], false};
    for (uint32_t c = 1; c <= p->ncycles; c++)
        cells[n++] = (struct cell){"<cycle", (int32_t)c, r->cycles[c].index,
                                   true};
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
    fputs("\f\n", r->out);
    free(cells);
}
