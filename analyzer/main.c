/*
 * calltrace-report: reads a calltrace trace (or another profiler's log) and
 * prints a gprof-format report, a call tree, a raw dump, or an export.
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diff.h"
#include "export.h"
#include "hide.h"
#include "info.h"
#include "options.h"
#include "profile.h"
#include "progress.h"
#include "reader.h"
#include "report.h"
#include "tidsel.h"
#include "util.h"

static bool is_input(const struct ct_input *in, int fd)
{
    struct stat st, input;
    return fstat(fd, &st) == 0 && stat(in->path, &input) == 0 &&
           st.st_dev == input.st_dev && st.st_ino == input.st_ino;
}

/* The input is mapped, not copied: writing over it would change what is
 * being read (and a shorter file kills the reader with SIGBUS).  The
 * output is opened without truncating so that a symbolic or hard link to
 * the input is found by its inode before anything is lost. */
static FILE *open_output(const char *path, const struct ct_input *in)
{
    if (!path) {
        if (is_input(in, STDOUT_FILENO)) {
            ct_error("standard output is the input file %s: refusing to "
                     "write over it", in->path);
            return NULL;
        }
        return stdout;
    }
    int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0) {
        ct_error("cannot write %s: %m", path);
        return NULL;
    }
    if (is_input(in, fd)) {
        ct_error("-o %s is the input file %s: refusing to write over it",
                 path, in->path);
        close(fd);
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && ftruncate(fd, 0) != 0) {
        ct_error("cannot truncate %s: %m", path);
        close(fd);
        return NULL;
    }
    FILE *f = fdopen(fd, "w");
    if (!f) {
        ct_error("cannot write %s: %m", path);
        close(fd);
    }
    return f;
}

static int close_output(FILE *out, const char *path)
{
    if (fflush(out) != 0 || ferror(out)) {
        ct_error("error writing %s: %m", path ? path : "standard output");
        return CT_EXIT_BAD_INPUT;
    }
    if (out != stdout)
        fclose(out);
    return CT_EXIT_OK;
}

static bool has_samples(const struct ct_profile *p)
{
    return p->info->sampled || p->counts.samples || p->info->nsample_counts;
}

/* The view asked for when it needs every call (which a profile does not
 * keep), else NULL. */
static const char *profile_refuses(const struct ct_options *o)
{
    static const char *const per_call[][2] = {
        {"chrome", "--export chrome"}, {"perfetto", "--export perfetto"},
        {"lms", "--export lms"}};
    if (o->tree)
        return "--tree";
    if (o->dump)
        return "--dump";
    if (o->have_range)
        return "--time-range";
    if (o->stats)
        return "--stats";
    if (o->slowest)
        return "--slowest";
    for (size_t i = 0; o->export_format && i < 3; i++)
        if (strcmp(o->export_format, per_call[i][0]) == 0)
            return per_call[i][1];
    return NULL;
}

int main(int argc, char **argv)
{
    struct ct_options opts;
    ct_options_parse(&opts, argc, argv);

    struct ct_input in;
    if (ct_input_open(&in, opts.input) != 0)
        return CT_EXIT_BAD_INPUT;

    const struct ct_reader *reader =
        opts.format ? ct_reader_find(opts.format) : ct_reader_detect(&in);
    if (!reader) {
        if (opts.format)
            ct_error("unknown format '%s' (see --help)", opts.format);
        else
            ct_input_error(in.path, "byte 0",
                           "not a calltrace trace nor a known profiler log "
                           "(use --format to name one)");
        ct_input_close(&in);
        return opts.format ? CT_EXIT_USAGE : CT_EXIT_BAD_INPUT;
    }

    /* The binary trace is read up to its damage: there is no line to skip. */
    if (opts.lenient && strcmp(reader->name, "calltrace") == 0) {
        ct_error("--lenient is for text logs; %s is a calltrace trace, read "
                 "up to any damage", in.path);
        ct_input_close(&in);
        return CT_EXIT_USAGE;
    }

    const char *needs_calls = profile_refuses(&opts);
    if (needs_calls && strcmp(reader->name, "calltrace") == 0 &&
        ct_calltrace_is_profile(&in)) {
        ct_error("%s is a profile (CALLTRACE_MODE=profile): it keeps each "
                 "call path's sums, not the calls one by one %s needs",
                 in.path, needs_calls);
        ct_input_close(&in);
        return CT_EXIT_USAGE;
    }

    FILE *out = open_output(opts.output, &in);
    if (!out) {
        ct_input_close(&in);
        return CT_EXIT_USAGE;
    }

    struct ct_trace_info info;
    ct_trace_info_init(&info, in.path, reader->name);
    struct ct_read_opts ropts = {
        .lenient = opts.lenient,
        .have_range = opts.have_range,
        .range_from_ns = opts.range_from_ns,
        .range_to_ns = opts.range_to_ns,
    };
    struct ct_profile_opts popts = {
        .per_thread = opts.per_thread,
        .subtract_bias = opts.subtract_bias,
        .have_range = opts.have_range,
        .range_from_ns = opts.range_from_ns,
        .range_to_ns = opts.range_to_ns,
        .stats = opts.stats || ct_sort_needs_stats(opts.sort),
        .slowest = opts.slowest ? opts.slowest_n : 0,
    };

    int status = CT_EXIT_OK;
    struct ct_profile *profile = NULL;
    struct ct_exporter *exporter = NULL;
    struct ct_sink *tree = NULL;
    struct ct_tee tee;
    struct ct_range_filter range = {0};
    struct ct_hide_filter hide = {0};
    struct ct_tid_filter tidsel = {0};
    struct ct_sink *sink;

    if (opts.info) {
        status = ct_info_run(out, &in, reader, &info);
        goto done;
    }
    if (opts.dump || opts.export_format) {
        exporter = opts.dump ? ct_dump_new(out, &info)
                             : ct_exporter_new(opts.export_format, out, &info,
                                             &opts);
        if (!exporter) {
            status = CT_EXIT_USAGE;
            goto done;
        }
        profile = ct_profile_new(&info, &popts);
        /* The profile honours the window itself; the exporter is fed
         * only what lies inside it. */
        struct ct_sink *written = &exporter->sink;
        if (opts.have_range && !exporter->clips_range) {
            ct_range_filter_init(&range, written, &info, opts.range_from_ns,
                                 opts.range_to_ns);
            exporter->range = &range;
            written = &range.sink;
        }
        ct_tee_init(&tee, ct_profile_sink(profile), written);
        sink = &tee.sink;
    } else if (opts.tree) {
        sink = tree = ct_tree_new(out, &info, &opts);
    } else {
        profile = ct_profile_new(&info, &popts);
        sink = ct_profile_sink(profile);
    }

    /* Hidden functions are taken out before any view sees the events,
     * so that every view leaves out the same calls. */
    if (opts.nhide || opts.nnotrace) {
        ct_hide_filter_init(&hide, sink, &info, opts.hide, opts.nhide);
        ct_hide_filter_notrace(&hide, opts.notrace, opts.nnotrace);
        sink = &hide.sink;
    }
    /* Threads left out by --tid, likewise, before any view. */
    if (opts.ntids) {
        ct_tid_filter_init(&tidsel, sink, &info, opts.tids, opts.ntids);
        sink = &tidsel.sink;
    }

    /* Only the profile alone can be made in parts and merged. */
    if (profile && sink == ct_profile_sink(profile) && !opts.per_thread &&
        !opts.subtract_bias && !opts.slowest) {
        ropts.profile = profile;
        ropts.jobs = opts.jobs;
    }

    ct_progress_start(in.path, in.size, !opts.no_progress);
    status = reader->read(&in, &info, sink, &ropts);
    ct_progress_end();
    if (info.stopped[0] && status == CT_EXIT_OK)
        status = CT_EXIT_BAD_INPUT;

    if (opts.ntids && !ct_tid_filter_finish(&tidsel)) {
        ct_error("%s: --tid names no thread of the trace ('calltrace info "
                 "%s' lists them)", in.path, in.path);
        if (status == CT_EXIT_OK)
            status = CT_EXIT_USAGE;
    }

    uint64_t in_window = 0;
    if (tree)
        in_window = ct_tree_finish(tree);
    if (profile) {
        ct_profile_finish(profile);
        in_window = profile->counts.events;
    }
    if (opts.have_range && !in_window) {
        ct_warn("%s: no event lies in --time-range %s", in.path,
                opts.range_text);
        if (status == CT_EXIT_OK)
            status = CT_EXIT_USAGE;
    }
    if (exporter) {
        if (exporter->finish && exporter->finish(exporter, profile) != 0)
            status = CT_EXIT_BAD_INPUT;
    } else if (profile && opts.by_line && !has_samples(profile)) {
        ct_error("--by-line needs samples; %s has none (every call is "
                 "timed: use CALLTRACE_MODE=sample or both)", in.path);
        status = CT_EXIT_USAGE;
    } else if (profile) {
        int r = opts.diff_base ? ct_diff_print(out, profile, &opts)
                : opts.slowest ? ct_report_slowest(out, profile, &opts)
                               : ct_report_print(out, profile, &opts);
        if (r != CT_EXIT_OK)
            status = r;
    }
    if (info.skipped_lines)
        ct_warn("%s: skipped %llu malformed line(s) (--lenient)", in.path,
                (unsigned long long)info.skipped_lines);

done:
    if (close_output(out, opts.output) != CT_EXIT_OK)
        status = CT_EXIT_BAD_INPUT;
    if (exporter && exporter->free)
        exporter->free(exporter);
    ct_range_filter_free(&range);
    ct_hide_filter_free(&hide);
    free(opts.hide);
    free(opts.tids);
    free(opts.notrace);
    ct_profile_free(profile);
    ct_trace_info_free(&info);
    ct_input_close(&in);
    return status;
}
