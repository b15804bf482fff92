/* The --export registry: format name -> exporter. */
#include <string.h>

#include "analyzer/writers/export.h"
#include "analyzer/util.h"

#define EXPORTER(name)                                                     \
    struct ct_exporter *name(FILE *out, struct ct_trace_info *info,        \
                             const struct ct_view_opts *opts)
EXPORTER(ct_export_lms_new);
EXPORTER(ct_export_samplingprof_new);
EXPORTER(ct_export_callgrind_new);
EXPORTER(ct_export_dot_new);
EXPORTER(ct_export_chrome_new);
EXPORTER(ct_export_perfetto_new);
EXPORTER(ct_export_folded_new);
EXPORTER(ct_export_flamegraph_new);
EXPORTER(ct_export_pprof_new);

static EXPORTER(openlaszlo_new)
{
    (void)opts;
    return ct_dump_new(out, info);  /* --dump is the OpenLaszlo raw form */
}

static const struct {
    const char *name;
    struct ct_exporter *(*make)(FILE *out, struct ct_trace_info *info,
                                const struct ct_view_opts *opts);
} exporters[] = {
    {"openlaszlo", openlaszlo_new},
    {"lms", ct_export_lms_new},
    {"samplingprof", ct_export_samplingprof_new},
    {"callgrind", ct_export_callgrind_new},
    {"dot", ct_export_dot_new},
    {"chrome", ct_export_chrome_new},
    {"perfetto", ct_export_perfetto_new},
    {"folded", ct_export_folded_new},
    {"flamegraph", ct_export_flamegraph_new},
    {"pprof", ct_export_pprof_new},
};

struct ct_exporter *ct_exporter_new(const char *format, FILE *out,
                                    struct ct_trace_info *info,
                                    const struct ct_view_opts *opts)
{
    size_t n = sizeof exporters / sizeof exporters[0];
    for (size_t i = 0; i < n; i++)
        if (strcmp(exporters[i].name, format) == 0)
            return exporters[i].make(out, info, opts);
    char list[256] = "";
    for (size_t i = 0; i < n; i++) {
        strcat(list, i ? ", " : "");
        strcat(list, exporters[i].name);
    }
    ct_error("unknown export format '%s' (known: %s)", format, list);
    return NULL;
}
