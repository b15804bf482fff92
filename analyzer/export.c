/* Placeholder until the exporters land. */
#include "export.h"
#include "util.h"

struct ct_exporter *ct_exporter_new(const char *format, FILE *out,
                                    struct ct_trace_info *info)
{
    (void)out;
    (void)info;
    ct_error("unknown export format '%s'", format);
    return NULL;
}
