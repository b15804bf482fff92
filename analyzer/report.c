/* Placeholder until the report lands. */
#include "report.h"
#include "util.h"

int ct_report_print(FILE *out, struct ct_profile *p,
                    const struct ct_options *opts)
{
    (void)out;
    (void)p;
    (void)opts;
    ct_error("the report is not built yet");
    return CT_EXIT_BAD_INPUT;
}

struct ct_sink *ct_tree_new(FILE *out, struct ct_trace_info *info,
                            const struct ct_options *opts)
{
    (void)out;
    (void)info;
    (void)opts;
    return NULL;
}

void ct_tree_finish(struct ct_sink *tree)
{
    (void)tree;
}
