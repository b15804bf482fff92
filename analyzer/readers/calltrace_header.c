/*
 * calltrace binary reader: the file header (include/calltrace_format.h).
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/readers/calltrace_follow.h"
#include "analyzer/readers/calltrace_reader.h"
#include "analyzer/util.h"

int ctr_probe(const struct ct_input *in)
{
    return in->size >= CT_FILE_MAGIC_LEN &&
                   memcmp(in->data, CT_FILE_MAGIC, CT_FILE_MAGIC_LEN) == 0
               ? 100
               : 0;
}

static int header_error(const char *path, size_t byte, const char *what)
{
    char where[48];
    snprintf(where, sizeof where, "byte %zu", byte);
    ct_input_error(path, where, "%s", what);
    return CT_EXIT_BAD_INPUT;
}

static void copy_string(char *dst, size_t cap, const char *src, size_t max)
{
    size_t n = strnlen(src, max);
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

int ctr_read_header(const struct ct_input *in, struct ct_trace_info *info,
                    struct ct_file_header *h)
{
    const char *path = in->path;
    if (in->size == 0)
        return header_error(path, 0, "empty file, expected a calltrace trace");
    if (in->size < CT_FILE_MAGIC_LEN ||
        memcmp(in->data, CT_FILE_MAGIC, CT_FILE_MAGIC_LEN) != 0)
        return header_error(path, 0,
                            "expected the calltrace magic \"CALLTRC\"");
    if (in->size < sizeof *h)
        return header_error(path, in->size,
                            "file header cut short (truncated file)");
    memcpy(h, in->data, sizeof *h);
    ctr_stream_final_header(in, h);
    char msg[256];
    if (h->version == 0 || h->version > CT_FORMAT_VERSION) {
        snprintf(msg, sizeof msg,
                 "format version %" PRIu32 ", expected %u%s", h->version,
                 CT_FORMAT_VERSION,
                 h->version ? " (written by a newer calltrace)" : "");
        return header_error(path, offsetof(struct ct_file_header, version),
                            msg);
    }
    if (h->header_size < sizeof *h || h->header_size % CT_BLOCK_ALIGN) {
        snprintf(msg, sizeof msg,
                 "header size %" PRIu32 ", expected %u", h->header_size,
                 CT_FILE_HEADER_SIZE);
        return header_error(
            path, offsetof(struct ct_file_header, header_size), msg);
    }
    if (in->size < h->header_size)
        return header_error(path, in->size,
                            "file header cut short (truncated file)");

    double ns_per_tick = h->tick_hz ? 1e9 / (double)h->tick_hz : 0;
    /* The end calibration spans the whole run: more precise when present. */
    if (h->end_ticks > h->start_ticks &&
        h->end_monotonic_ns > h->start_monotonic_ns)
        ns_per_tick = (double)(h->end_monotonic_ns - h->start_monotonic_ns) /
                      (double)(h->end_ticks - h->start_ticks);
    if (!(ns_per_tick > 0))
        return header_error(path, offsetof(struct ct_file_header, tick_hz),
                            "expected a tick rate (tick_hz is 0)");
    info->ns_per_tick = ns_per_tick;
    if (h->clock == CT_CLOCK_TSC)
        snprintf(info->clock, sizeof info->clock, "tsc %.2f GHz%s",
                 1.0 / ns_per_tick,
                 h->flags & CT_FILE_FENCED ? ", read in order (fenced)" : "");
    else if (h->clock == CT_CLOCK_MONOTONIC)
        snprintf(info->clock, sizeof info->clock, "monotonic ns");
    else
        snprintf(info->clock, sizeof info->clock, "clock %" PRIu32 ", %.3g Hz",
                 h->clock, 1e9 / ns_per_tick);

    copy_string(info->program, sizeof info->program, h->exe, sizeof h->exe);
    copy_string(info->command, sizeof info->command, h->cmdline,
                sizeof h->cmdline);
    info->pid = h->pid;
    info->ppid = h->ppid;
    info->start_epoch_ns = (int64_t)h->start_realtime_ns;
    info->start_ticks = h->start_ticks;
    info->bias_ns_per_call = (double)h->bias_ps / 1000.0;
    if (h->bias_self_ps) {  /* split by the tracer (docs/analysis.md) */
        info->bias_ns_per_call = (double)h->bias_self_ps / 1000.0;
        info->bias_child_ns = (double)h->bias_child_ps / 1000.0;
        info->bias_spread_ns = (double)h->bias_spread_ps / 1000.0;
    }
    info->bias_lib_ns = (double)h->bias_lib_ps / 1000.0;
    info->bias_lib_self_ns = (double)h->bias_lib_self_ps / 1000.0;
    info->sampled = (h->flags & CT_FILE_SAMPLED) != 0;
    info->sample_interval_ns = h->sample_interval_ns;
    info->oncpu = h->oncpu <= CT_ONCPU_CLOCK ? h->oncpu : CT_ONCPU_NONE;
    info->oncpu_errno = (int)h->oncpu_errno;
    enum ct_writer writer = ct_writer_state(h);
    if (writer != CT_WRITER_DONE) {
        ct_writer_describe(writer, h->pid, msg, sizeof msg);
        ct_trace_add_meta(info, "trace", msg);
    }
    if (h->flags & CT_FILE_FAILED)
        ct_trace_add_meta(info, "tracer",
                          "stopped early after a write failure");
    if (h->flags & CT_FILE_NO_CALLS_RAN)
        ct_trace_add_meta(info, "calls",
                          "none: the program ran no instrumented function; "
                          "build it with -finstrument-functions, or use "
                          "CALLTRACE_MODE=sample");
    return CT_EXIT_OK;
}

bool ct_calltrace_header(const struct ct_input *in, struct ct_file_header *h,
                         char *state, size_t len)
{
    if (in->size < sizeof *h)
        return false;
    memcpy(h, in->data, sizeof *h);
    ctr_stream_final_header(in, h);
    enum ct_writer w = ct_writer_state(h);
    if (w == CT_WRITER_DONE)
        snprintf(state, len, "closed cleanly%s",
                 h->flags & CT_FILE_FAILED
                     ? "; the tracer stopped early after a write failure"
                     : "");
    else
        ct_writer_describe(w, h->pid, state, len);
    return true;
}

int ct_calltrace_has_tid(const struct ct_input *in, const uint64_t *tids,
                         size_t n)
{
    struct ct_trace_info info;
    ct_trace_info_init(&info, in->path, "calltrace");
    struct ct_file_header h;
    int has = -1;
    if (ctr_probe(in) > 0 && ctr_read_header(in, &info, &h) == CT_EXIT_OK) {
        size_t nb;
        struct block *b = ctr_index_blocks(in, &info, &h, &nb);
        has = 0;
        for (size_t i = 0; i < nb && !has; i++)
            for (size_t k = 0; k < n && !has; k++)
                has = b[i].kind == CT_BLOCK_EVENTS && b[i].tid == tids[k];
        free(b);
    }
    ct_trace_info_free(&info);
    return has;
}
