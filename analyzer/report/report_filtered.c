/*
 * The summary's account of record-time filters: the rules in force and
 * how many calls each left out, so that nothing the tracer did not record
 * goes unmentioned.  The functions most often left out as too short are
 * named, since their time is inside their callers' figures.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "analyzer/model/filtered.h"
#include "analyzer/model/functab.h"
#include "analyzer/report/report_private.h"

#define NAMED_SHORT 10

static void reason_text(const struct ct_filtered *f, uint64_t gen,
                        uint32_t reason, char *dst, size_t cap)
{
    char item[256];
    switch (reason & 7) {
    case CT_LEFT_EXCLUDED:
        ct_filtered_rule_text(f, gen, reason >> 3, item, sizeof item);
        snprintf(dst, cap, "excluded by %s", item);
        break;
    case CT_LEFT_OUTSIDE:
        snprintf(dst, cap, "not below an included function");
        break;
    case CT_LEFT_DEPTH:
        /* reason >> 3: 0 for depth=, else 1 + a :depth=N rule's index */
        if (reason >> 3)
            ct_filtered_rule_text(f, gen, (reason >> 3) - 1, item,
                                  sizeof item);
        else
            ct_filtered_item(f, gen, "depth=", item, sizeof item);
        snprintf(dst, cap, "deeper than %s", item[0] ? item : "depth=?");
        break;
    case CT_LEFT_SHORT:
        if (reason >> 3) {
            ct_filtered_rule_text(f, gen, (reason >> 3) - 1, item,
                                  sizeof item);
            snprintf(dst, cap, "shorter than %s allows", item);
        } else {
            ct_filtered_item(f, gen, "min=", item, sizeof item);
            snprintf(dst, cap, "shorter than %s",
                     item[0] ? item + 4 : "min=?");
        }
        break;
    case CT_LEFT_TRIGGER:
        snprintf(dst, cap, "while a trigger had recording off");
        break;
    case CT_LEFT_NOTRACE:
        ct_filtered_rule_text(f, gen, reason >> 3, item, sizeof item);
        snprintf(dst, cap, "left out with their callers by %s", item);
        break;
    case CT_LEFT_CALLER:
        snprintf(dst, cap, "on no path to a :caller function");
        break;
    case CT_LEFT_FINISHED:
        snprintf(dst, cap, "after a :finish function returned");
        break;
    default:
        snprintf(dst, cap, "reason %" PRIu32, reason);
        break;
    }
}

/* The rules that named no function when the tracer installed them: a
 * mistyped name records nothing, and the report must say why. */
static void print_unmatched(FILE *out, const struct ct_filtered *f)
{
    for (size_t i = 0; i < f->nunmatched; i++) {
        char item[256];
        ct_filtered_rule_text(f, f->unmatched[i].gen, f->unmatched[i].index,
                              item, sizeof item);
        fprintf(out, "%s%s", i ? ", " : " Filter rules matching no function: ",
                item);
    }
    if (f->nunmatched)
        fputs(" (no function of the objects loaded when the rules were "
              "installed had such a name, or such a size for size=N)\n", out);
}

void ct_report_filtered(struct ct_rep *r)
{
    struct ct_filtered *f = r->p->info->filtered;
    if (!f)
        return;
    FILE *out = r->out;
    ct_filtered_merge(f);
    for (size_t i = 0; i < f->nrules; i++)
        fprintf(out, " Filter%s: %s\n", f->nrules > 1 ? " (then)" : "",
                f->rules[i].text[0] ? f->rules[i].text : "none");
    print_unmatched(out, f);
    uint64_t total = 0;
    for (size_t i = 0; i < f->nleft; i++)
        total += f->left[i].count;
    fprintf(out, " Left out by the filter: %" PRIu64 " call%s", total,
            total == 1 ? "" : "s");
    /* One figure per reason: the entries are grouped by (gen, reason). */
    const char *sep = " (";
    for (size_t i = 0; i < f->nleft;) {
        size_t j = i;
        uint64_t n = 0;
        for (; j < f->nleft && f->left[j].gen == f->left[i].gen &&
               f->left[j].reason == f->left[i].reason; j++)
            n += f->left[j].count;
        char why[320];
        reason_text(f, f->left[i].gen, f->left[i].reason, why, sizeof why);
        fprintf(out, "%s%" PRIu64 " %s", sep, n, why);
        sep = "; ";
        i = j;
    }
    fputs(total ? ")\n" : "\n", out);
    int named = 0;
    for (size_t i = 0; i < f->nleft && named < NAMED_SHORT; i++) {
        if ((f->left[i].reason & 7) != CT_LEFT_SHORT)
            continue;
        fprintf(out, "%s%s %" PRIu64, named ? ", " : " Left out as short: ",
                ct_functab_name(r->p->info->funcs, f->left[i].func),
                f->left[i].count);
        named++;
    }
    if (named)
        fputs(" (their time is in their callers')\n", out);
}
