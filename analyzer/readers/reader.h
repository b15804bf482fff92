/*
 * Readers: one per input format.  A reader pushes the input's events into a
 * sink (see trace.h) and fills the trace info.
 */
#ifndef CT_READER_H
#define CT_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyzer/model/trace.h"

struct ct_input {
    const char *path;
    const uint8_t *data;   /* whole file, read-only mapping             */
    size_t size;
};

struct ct_profile;

struct ct_read_opts {
    bool lenient;          /* skip malformed lines, count them          */
    bool have_range;       /* only events in [from, to] are needed      */
    int64_t range_from_ns; /* relative to the trace's first event       */
    int64_t range_to_ns;
    /* The sink is this profile and nothing else: a reader may decode on
     * `jobs` threads into parts of it (profile.h) and merge them. */
    struct ct_profile *profile;
    unsigned jobs;
};

struct ct_reader {
    const char *name;         /* --format NAME                            */
    const char *description;  /* one line for --help                      */
    /* 0 = not this format; higher = more certain (100 = magic matched). */
    int (*probe)(const struct ct_input *in);
    /*
     * Returns CT_EXIT_OK, or CT_EXIT_BAD_INPUT after printing one error
     * naming the file and the place.  On damage it pushes everything before
     * it, sets info->stopped, and returns CT_EXIT_BAD_INPUT: the caller
     * still reports what was read.
     */
    int (*read)(const struct ct_input *in, struct ct_trace_info *info,
                struct ct_sink *sink, const struct ct_read_opts *opts);
};

extern const struct ct_reader ct_reader_calltrace;
extern const struct ct_reader ct_reader_openlaszlo;
extern const struct ct_reader ct_reader_lms;
extern const struct ct_reader ct_reader_rtl;
extern const struct ct_reader ct_reader_samplingprof;
extern const struct ct_reader ct_reader_evlog;

/* All readers, NULL-terminated. */
extern const struct ct_reader *const ct_readers[];

const struct ct_reader *ct_reader_find(const char *name);
const struct ct_reader *ct_reader_detect(const struct ct_input *in);

/* Maps the file; prints an error and returns -1 on failure. */
int ct_input_open(struct ct_input *in, const char *path);
void ct_input_close(struct ct_input *in);
/* mmap of a whole file of SIZE bytes (FLAGS: MAP_PRIVATE or MAP_SHARED)
 * whose holes read as zeros and never fault from the file (SIGBUS on a
 * full tmpfs); MAP_FAILED with errno on failure.  Unmap with munmap. */
void *ct_map_input(int fd, size_t size, int flags);

/* Whether in is a calltrace file of the profile mode (CT_FILE_PROFILE):
 * call paths' sums, no calls one by one (calltrace_profile.c). */
bool ct_calltrace_is_profile(const struct ct_input *in);

#endif /* CT_READER_H */
