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

#include "analyzer/report/diff.h"
#include "analyzer/writers/export.h"
#include "analyzer/report/info.h"
#include "analyzer/read/load.h"
#include "analyzer/options.h"
#include "analyzer/model/profile.h"
#include "analyzer/report/report.h"
#include "analyzer/writers/stacktree.h"
#include "analyzer/util.h"

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

/* What a reading takes of the command line. */
static struct ct_load_opts load_opts(const struct ct_options *o)
{
    return (struct ct_load_opts){
        .format = o->format,
        .lenient = o->lenient,
        .have_range = o->view.have_range,
        .range_from_ns = o->view.range_from_ns,
        .range_to_ns = o->view.range_to_ns,
        .hide = o->hide, .nhide = o->nhide,
        .notrace = o->notrace, .nnotrace = o->nnotrace,
        .callers = o->callers, .ncallers = o->ncallers,
        .tids = o->tids, .ntids = o->ntids,
        .whole_stream = o->view.per_thread || o->view.subtract_bias || o->view.slowest,
        .bias_from_run = o->view.subtract_bias && !o->view.bias_at_start,
        .jobs = o->jobs,
        .progress = !o->no_progress,
    };
}

/* --info: the trace read whole into a counter, no filter, no bar. */
static int run_info(FILE *out, struct ct_load *l)
{
    struct ct_load_opts plain = {0};
    struct ct_info_counter *c = ct_info_counter_new();
    int status = ct_load_read(l, &plain, ct_info_counter_sink(c), NULL);
    struct ct_file_header h;
    char state[256];
    bool binary = ct_load_header(l, &h, state, sizeof state);
    ct_info_print(out, l->in.path, l->in.size, &l->info, c,
                  binary ? &h : NULL, state);
    ct_info_counter_free(c);
    return status;
}

static int no_event_in_range(const char *path, const struct ct_options *o)
{
    ct_warn("%s: no event lies in --time-range %s", path, o->range_text);
    return CT_EXIT_USAGE;
}

/* The report form of --diff: the old run read as the new one was, into a
 * profile of its own. */
static int report_diff(FILE *out, struct ct_profile *newp,
                       const struct ct_options *o)
{
    struct ct_load_opts lo = load_opts(o);
    struct ct_load old;
    int status = ct_load_open(&old, o->diff_base, &lo);
    if (status != CT_EXIT_OK)
        return status;
    struct ct_profile_opts popts = {
        .subtract_bias = o->view.subtract_bias,
        .have_range = o->view.have_range,
        .range_from_ns = o->view.range_from_ns,
        .range_to_ns = o->view.range_to_ns,
        .stats = true,          /* the diff's p99 column */
    };
    struct ct_profile *oldp = ct_profile_new(&old.info, &popts);
    status = ct_load_read(&old, &lo, ct_profile_sink(oldp), oldp);
    ct_profile_finish(oldp);
    if (o->view.have_range && !oldp->counts.events) {
        int r = no_event_in_range(old.in.path, o);
        if (status == CT_EXIT_OK)
            status = r;
    }
    ct_diff_print(out, oldp, newp, &o->view);
    ct_profile_free(oldp);
    ct_load_close(&old);
    return status;
}

/* --diff with a stack export: the old run's call paths, read as the new
 * run was, for the exporter to match (writers/stackdiff.h). */
static int stack_diff_base(struct ct_load *old, struct ct_stacktree *tree,
                           const struct ct_options *o)
{
    struct ct_load_opts lo = load_opts(o);
    if (ct_load_open(old, o->diff_base, &lo) != CT_EXIT_OK)
        return CT_EXIT_BAD_INPUT;
    ct_stacktree_init(tree, &old->info, false, false);
    ct_stacktree_set_opts(tree, &o->view);
    int status = ct_load_read(old, &lo, &tree->sink, NULL);
    ct_stacktree_finish(tree);
    return status == CT_EXIT_OK ? CT_EXIT_OK : CT_EXIT_BAD_INPUT;
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
    if (o->view.have_range)
        return "--time-range";
    if (o->view.stats)
        return "--stats";
    if (o->view.slowest)
        return "--slowest";
    if (o->ncallers)
        return "--caller";
    for (size_t i = 0; o->export_format && i < 3; i++)
        if (strcmp(o->export_format, per_call[i][0]) == 0)
            return per_call[i][1];
    return NULL;
}

int main(int argc, char **argv)
{
    struct ct_options opts;
    ct_options_parse(&opts, argc, argv);
    struct ct_load_opts lo = load_opts(&opts);

    struct ct_load load;
    int status = ct_load_open(&load, opts.input, &lo);
    if (status != CT_EXIT_OK)
        return status;
    struct ct_trace_info *info = &load.info;

    /* The binary trace is read up to its damage: there is no line to skip. */
    if (opts.lenient && strcmp(load.reader->name, "calltrace") == 0) {
        ct_error("--lenient is for text logs; %s is a calltrace trace, read "
                 "up to any damage", load.in.path);
        ct_load_close(&load);
        return CT_EXIT_USAGE;
    }

    const char *needs_calls = profile_refuses(&opts);
    if (needs_calls && strcmp(load.reader->name, "calltrace") == 0 &&
        ct_calltrace_is_profile(&load.in)) {
        ct_error("%s is a profile (CALLTRACE_MODE=profile): it keeps each "
                 "call path's sums, not the calls one by one %s needs",
                 load.in.path, needs_calls);
        ct_load_close(&load);
        return CT_EXIT_USAGE;
    }

    FILE *out = open_output(opts.output, &load.in);
    if (!out) {
        ct_load_close(&load);
        return CT_EXIT_USAGE;
    }

    struct ct_profile_opts popts = {
        .per_thread = opts.view.per_thread,
        .subtract_bias = opts.view.subtract_bias,
        .have_range = opts.view.have_range,
        .range_from_ns = opts.view.range_from_ns,
        .range_to_ns = opts.view.range_to_ns,
        .stats = opts.view.stats || ct_sort_needs_stats(opts.view.sort) ||
                 opts.diff_base,   /* the diff's p99 column */
        .slowest = opts.view.slowest ? opts.view.slowest_n : 0,
    };

    struct ct_profile *profile = NULL;
    struct ct_exporter *exporter = NULL;
    struct ct_sink *tree = NULL;
    struct ct_tee tee;
    struct ct_range_filter range = {0};
    struct ct_load old = {0};
    struct ct_stacktree old_tree;
    bool have_old_tree = false;
    struct ct_sink *sink;

    if (opts.info) {
        status = run_info(out, &load);
        goto done;
    }
    if (opts.dump || opts.export_format) {
        exporter = opts.dump ? ct_dump_new(out, info)
                             : ct_exporter_new(opts.export_format, out, info,
                                             &opts.view);
        if (!exporter) {
            status = CT_EXIT_USAGE;
            goto done;
        }
        profile = ct_profile_new(info, &popts);
        /* The profile honours the window itself; the exporter is fed
         * only what lies inside it. */
        struct ct_sink *written = &exporter->sink;
        if (opts.view.have_range && !exporter->clips_range) {
            ct_range_filter_init(&range, written, info, opts.view.range_from_ns,
                                 opts.view.range_to_ns);
            exporter->range = &range;
            written = &range.sink;
        }
        ct_tee_init(&tee, ct_profile_sink(profile), written);
        sink = &tee.sink;
    } else if (opts.tree) {
        sink = tree = ct_tree_new(out, info, &opts.view);
    } else {
        profile = ct_profile_new(info, &popts);
        sink = ct_profile_sink(profile);
    }

    status = ct_load_read(&load, &lo, sink, profile);

    uint64_t in_window = 0;
    if (tree)
        in_window = ct_tree_finish(tree);
    if (profile) {
        ct_profile_finish(profile);
        in_window = profile->counts.events;
    }
    if (opts.view.have_range && !in_window) {
        int r = no_event_in_range(load.in.path, &opts);
        if (status == CT_EXIT_OK)
            status = r;
    }
    if (exporter) {
        int r = CT_EXIT_OK;
        if (opts.diff_base) {
            have_old_tree = true;
            r = stack_diff_base(&old, &old_tree, &opts);
            exporter->diff_base = &old_tree;
        }
        if (r != CT_EXIT_OK ||
            (exporter->finish && exporter->finish(exporter, profile) != 0))
            status = CT_EXIT_BAD_INPUT;
    } else if (profile && opts.view.by_line && !has_samples(profile)) {
        ct_error("--by-line needs samples; %s has none (every call is "
                 "timed: use CALLTRACE_MODE=sample or both)", load.in.path);
        status = CT_EXIT_USAGE;
    } else if (profile) {
        int r = opts.diff_base ? report_diff(out, profile, &opts)
                : opts.view.slowest ? ct_report_slowest(out, profile, &opts.view)
                               : ct_report_print(out, profile, &opts.view);
        if (r != CT_EXIT_OK)
            status = r;
    }
    if (info->skipped_lines)
        ct_warn("%s: skipped %llu malformed line(s) (--lenient)", load.in.path,
                (unsigned long long)info->skipped_lines);

done:
    if (close_output(out, opts.output) != CT_EXIT_OK)
        status = CT_EXIT_BAD_INPUT;
    if (exporter && exporter->free)
        exporter->free(exporter);
    if (have_old_tree && old.opened)
        ct_stacktree_free(&old_tree);
    ct_load_close(&old);
    ct_range_filter_free(&range);
    free(opts.hide);
    free(opts.tids);
    free(opts.notrace);
    free(opts.callers);
    ct_profile_free(profile);
    ct_load_close(&load);
    return status;
}
