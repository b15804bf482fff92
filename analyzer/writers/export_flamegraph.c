#include "export.h"
#include "util.h"
struct ct_exporter *ct_export_flamegraph_new(FILE *out, struct ct_trace_info *info,
                                   const struct ct_options *opts)
{
    (void)out;
    (void)info;
    (void)opts;
    ct_error("--export flamegraph: not written yet");
    return NULL;
}
