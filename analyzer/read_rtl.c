/* Placeholder until the rtl reader lands. */
#include "reader.h"
#include "util.h"

static int probe(const struct ct_input *in)
{
    (void)in;
    return 0;
}

static int read_rtl(const struct ct_input *in, struct ct_trace_info *info,
                   struct ct_sink *sink, const struct ct_read_opts *opts)
{
    (void)info;
    (void)sink;
    (void)opts;
    ct_input_error(in->path, NULL, "the rtl reader is not built yet");
    return CT_EXIT_BAD_INPUT;
}

const struct ct_reader ct_reader_rtl = {"rtl", "(not built yet)", probe, read_rtl};
