/* Section 1: where the data came from and where the time went. */
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analyzer/report/report_private.h"
#include "analyzer/util.h"

/* The first event's date; with no event, the start the input names (a
 * first time of 0 would be the clock's origin, the machine's boot). */
static void print_date(FILE *out, const struct ct_trace_info *info,
                       uint64_t first, bool any_event)
{
    if (!info->start_epoch_ns)
        return;
    double off = any_event ? ((double)first - (double)info->start_ticks) *
                                 info->ns_per_tick
                           : 0.0;
    int64_t ns = info->start_epoch_ns + (int64_t)off;
    time_t secs = (time_t)(ns / 1000000000);
    struct tm tm;
    char buf[64];
    if (!gmtime_r(&secs, &tm) ||
        !strftime(buf, sizeof buf, "%a %b %e %H:%M:%S UTC %Y", &tm))
        return;
    fprintf(out, " Date: %s\n", buf);
}

/* Threads by tid (and name); synthetic ones (readers' inventions, whose
 * tid is only a key) by name alone, after the others. */
static void print_threads(FILE *out, const struct ct_trace_info *info)
{
    /* --tid: the threads selected, then of how many */
    uint32_t selected = 0;
    for (uint32_t i = 0; i < info->nthreads; i++)
        selected += !info->threads[i].excluded;
    fprintf(out, " Threads: %" PRIu32, selected);
    if (selected < info->nthreads)
        fprintf(out, " of %" PRIu32 " (--tid)", info->nthreads);
    uint32_t shown = selected < 8 ? selected : 8;
    const char *sep = " (";
    for (int synthetic = 0; synthetic < 2; synthetic++) {
        bool any = false;
        for (uint32_t i = 0, k = 0; i < info->nthreads && k < shown; i++) {
            const struct ct_thread_info *t = &info->threads[i];
            if (t->excluded)
                continue;
            k++;
            if (t->synthetic != (synthetic == 1))
                continue;
            if (synthetic)
                fprintf(out, "%s%s", sep, t->name[0] ? t->name : "unnamed");
            else if (t->context) /* a coroutine: tid:context */
                fprintf(out, "%s%s%" PRIu64 ":%" PRIu64 "%s%s", sep,
                        any ? "" : "tid ", t->tid, t->context,
                        t->name[0] ? " " : "", t->name);
            else
                fprintf(out, "%s%s%" PRIu64 "%s%s", sep, any ? "" : "tid ",
                        t->tid, t->name[0] ? " " : "", t->name);
            sep = ", ";
            any = true;
        }
        if (any)
            sep = "; ";
    }
    if (shown)
        fprintf(out, "%s)", shown < selected ? ", ..." : "");
    fputc('\n', out);
}

/* Where one part of a bias measured in the run came from, or that the
 * calibration at start gave it. */
static void bias_source(char *buf, size_t len, const char *part, bool found,
                        bool bounded, uint64_t samples, const char *what,
                        const char *func, double spread)
{
    if (!found)
        snprintf(buf, len, "%s, the calibration's (too few clean calls)",
                 part);
    else
        snprintf(buf, len, "%s, the mean of %" PRIu64 " %s %s (spread "
                 "%.1f)%s", part, samples, what, func, spread,
                 bounded ? ", bounded by the other part and the "
                           "calibration's split" : "");
}

/* Where the figures measured in the run came from, and the calibration's
 * beside them. */
static void print_run_bias(FILE *out, const struct ct_trace_info *info)
{
    const struct ct_run_bias *r = &info->run_bias;
    char inside[256], caller[256];
    bias_source(inside, sizeof inside, "inside", r->self_found,
                r->self_bounded, r->self_samples, "leaf calls of", r->self_func,
                r->self_spread_ns);
    bias_source(caller, sizeof caller, "in the caller", r->child_found,
                r->child_bounded, r->child_samples, "gaps between calls in", r->child_func,
                r->child_spread_ns);
    fprintf(out, "       measured in the run: %s; %s; the calibration at "
            "start: %.1f (%.1f + %.1f)\n", inside, caller,
            info->bias_ns_per_call + info->bias_child_ns,
            info->bias_ns_per_call, info->bias_child_ns);
}

/* The bias line: the figure per call taken off (or that would be), its
 * split between the call and its caller, its spread, and when it was
 * measured in the run, where; docs/analysis.md says what they mean. */
static void print_bias(FILE *out, const struct ct_trace_info *info,
                       bool subtracted)
{
    const struct ct_run_bias *r = &info->run_bias;
    bool in_run = subtracted && (r->self_found || r->child_found);
    double self = in_run ? ct_bias_self_ns(info) : info->bias_ns_per_call;
    double child = in_run ? ct_bias_child_ns(info) : info->bias_child_ns;
    double spread = in_run ? (r->self_found ? r->self_spread_ns : 0) +
                                 (r->child_found ? r->child_spread_ns : 0)
                           : info->bias_spread_ns;
    if (self <= 0 && child <= 0) {
        fprintf(out, " Bias: not subtracted (not measured)\n");
        return;
    }
    char split[160] = "";
    if (child > 0)
        snprintf(split, sizeof split,
                 "%s%.1f inside the call, %.1f in its caller; spread %.1f%s",
                 subtracted ? " (" : ": ", self, child, spread,
                 subtracted ? ")" : "");
    if (!subtracted) {
        fprintf(out, " Bias: not subtracted (measured %.1f ns per call%s; "
                "see --subtract-bias)\n", self + child, split);
        return;
    }
    fprintf(out, " Bias: subtracted, %.1f ns per call%s\n", self + child,
            split);
    if (in_run)
        print_run_bias(out, info);
    double lib = ct_bias_lib_extra_ns(info);
    if (lib > 0)
        fprintf(out, "       library calls: %.1f ns each through the "
                "tracer's stub at start, %.1f more than a hooked call's "
                "(%.1f inside the call, %.1f in its caller), taken off "
                "them too\n", info->bias_lib_ns, lib,
                ct_bias_lib_self_extra_ns(info),
                ct_bias_lib_child_extra_ns(info));
}

static const char blurb[] =
    "\n"
    " functions  time with a traced function on top of the stack (its self\n"
    "            time): wall-clock time, on the CPU or off it (On-CPU below)\n"
    " overhead   time the tracer spent on itself (between S and E records,\n"
    "            and the per-call bias when it was subtracted)\n"
    " unmetered  time with no traced function on the stack\n"
    " unknown    time that cannot be attributed: before a return whose call\n"
    "            is missing, or where a call's return is missing\n"
    " elapsed    each thread's last event minus its first, summed over the\n"
    "            threads; functions + overhead + unmetered + unknown = elapsed\n"
    " on-CPU     the thread was running; off-CPU: blocked, asleep, or\n"
    "            preempted (runnable, waiting for a CPU)\n";

/*
 * Functions in stripped objects are named object+0xADDR; say how many, in
 * which objects, and how to get their names.
 */
static void print_unnamed(FILE *out, const struct ct_profile *p)
{
    struct ct_functab *tab = p->info->funcs;
    const char *objs[3] = {0};
    size_t nobjs = 0;
    uint64_t n = 0;
    for (uint32_t i = 0; i < p->nfuncs; i++) {
        const struct ct_fstats *s = &p->funcs[i];
        if (!(s->calls || s->self_calls || s->samples_total || s->self_ticks))
            continue;
        const struct ct_func *f = ct_functab_get(tab, i);
        if (!f || !f->unnamed)
            continue;
        n++;
        const char *o = f->object ? f->object : "?";
        size_t k = 0;
        while (k < nobjs && strcmp(objs[k], o) != 0)
            k++;
        if (k == nobjs && nobjs < 3)
            objs[nobjs++] = o;
    }
    if (!n)
        return;
    fprintf(out, " Unnamed: %" PRIu64 " function%s in stripped objects (",
            n, n == 1 ? "" : "s");
    for (size_t k = 0; k < nobjs; k++)
        fprintf(out, "%s%s", k ? ", " : "", objs[k]);
    fputs(nobjs == 3 ? ", ...)" : ")", out);
    fputs(", shown as object+0xADDR; their debug symbols name them (Debian:"
          " the object's -dbgsym or -dbg package, e.g. libc6-dbg, into\n"
          " /usr/lib/debug/.build-id)\n", out);
}

/* "KEY: VALUE" with VALUE's control characters escaped (\n, \xNN): a
 * newline in a program's name must not break the header's lines.  A value
 * without any is printed as it is: the command line is quoted as a shell
 * would quote it ('it'\''s'), and a doubled backslash would spoil that. */
static void print_escaped(FILE *out, const char *key, const char *s)
{
    int plain = 1;
    for (const unsigned char *c = (const unsigned char *)s; *c; c++)
        plain &= *c >= 0x20 && *c != 0x7f;
    if (plain) {
        fprintf(out, "%s%s\n", key, s);
        return;
    }
    char *e = ct_escape_line(s, strlen(s));
    fprintf(out, "%s%s\n", key, e);
    free(e);
}

/* Lost events, or the count saturated or beyond any trace's with a word:
 * a damaged block's lost count (2^63 in each of 32 blocks) must not sum
 * to a small number nor read as a real one. */
static void print_lost(FILE *out, uint64_t lost)
{
    if (lost == UINT64_MAX)
        fprintf(out, " Lost events: %" PRIu64 " or more (damaged: the "
                "blocks' lost counts are impossibly large; their sum is "
                "saturated)\n", lost);
    else if (lost > CT_LOST_MAX_PLAUSIBLE)
        fprintf(out, " Lost events: %" PRIu64 " (damaged: more than any "
                "trace can have counted)\n", lost);
    else
        fprintf(out, " Lost events: %" PRIu64 "\n", lost);
}

void ct_report_summary(struct ct_rep *r)
{
    FILE *out = r->out;
    const struct ct_profile *p = r->p;
    const struct ct_trace_info *info = p->info;
    const struct ct_totals *t = &p->totals;
    const struct ct_counts *c = &p->counts;
    print_escaped(out, "Profiling: ",
                  info->program[0] ? info->program : "(program unknown)");
    if (info->command[0])
        print_escaped(out, " Command: ", info->command);
    fprintf(out, " Input: %s (%s format)\n", info->path ? info->path : "-",
            info->format ? info->format : "?");
    if (info->pid)
        fprintf(out, " Pid: %" PRIu64 "\n", info->pid);
    print_threads(out, info);
    fprintf(out, " Clock: %s%s1 tick = %g ns\n", info->clock,
            info->clock[0] ? ", " : "", info->ns_per_tick);
    print_date(out, info, t->first, t->first || t->last);
    for (size_t i = 0; i < info->nmeta; i++)
        fprintf(out, " %s: %s\n", info->meta[i].key, info->meta[i].value);
    /* Aggregated samples (SamplingProf) come as counts, not events. */
    uint64_t samples = c->samples, top = 0;
    for (uint32_t f = 0; f < p->nfuncs; f++)
        top += p->funcs[f].samples_self;
    if (top > samples)
        samples = top;
    fprintf(out, " Events: %" PRIu64 " (%" PRIu64 " calls, %" PRIu64
            " returns, %" PRIu64 " user events, %" PRIu64 " samples)\n",
            c->events, c->calls, c->returns, c->user_events, samples);
    uint64_t lost = c->lost > info->lost_events ? c->lost : info->lost_events;
    print_lost(out, lost);
    if (info->profile_mode) {
        char ot[32];
        ct_rep_dur(ot, sizeof ot,
                   ct_ticks_to_ns(info, info->profile_over_ticks));
        fprintf(out, " Profile: each call path's sums (CALLTRACE_MODE=profile)"
                "; calls outside the tables' room (CALLTRACE_PROFILE_PATHS): "
                "%" PRIu64 " (%s)\n", info->profile_over_calls, ot);
    }
    ct_report_filtered(r);
    fprintf(out, " Unmatched: %" PRIu64 " returns with no call, %" PRIu64
            " calls with no return, %" PRIu64 " frames open at the end\n",
            c->unmatched_returns, c->unmatched_calls, c->open_at_end);
    print_bias(out, info, p->bias_subtracted);
    char iv[32];
    ct_rep_dur(iv, sizeof iv, (double)info->sample_interval_ns);
    if (p->samples_apart) {
        fprintf(out, " Measured: every call timed; the %" PRIu64 " stack "
                "samples%s%s%s are shown apart (Sampled flat profile)\n",
                c->samples, info->sample_interval_ns ? " (one every " : "",
                info->sample_interval_ns ? iv : "",
                info->sample_interval_ns ? ")" : "");
    } else if (info->sampled || c->samples || info->nsample_counts) {
        uint64_t n = 0;
        for (uint32_t f = 0; f < p->nfuncs; f++)
            n += p->funcs[f].samples_self;
        fprintf(out, " Sampled: figures are statistical; %" PRIu64
                " samples%s%s\n", n, info->sample_interval_ns ? ", every " : "",
                info->sample_interval_ns ? iv : "");
        if (n)
            fprintf(out, " Sampling error: %" PRIu64 " samples: a share is "
                    "known to about +-%.1f points (1 s.e. at 50%%), +-%.1f "
                    "at 10%%; each row's in the flat profile's +- column "
                    "(100 sqrt(p(1-p)/N))\n", n,
                    100 * sqrt(0.25 / (double)n),
                    100 * sqrt(0.09 / (double)n));
    } else {
        fprintf(out, " Measured: every call timed (not sampled)\n");
    }
    print_unnamed(out, p);
    if (info->skipped_lines)
        fprintf(out, " Skipped lines: %" PRIu64 " (--lenient)\n",
                info->skipped_lines);
    if (p->opts.have_range) {
        char a[32], b[32];
        ct_rep_dur(a, sizeof a, (double)p->opts.range_from_ns);
        if (p->opts.range_to_ns == INT64_MAX)
            snprintf(b, sizeof b, "end");
        else
            ct_rep_dur(b, sizeof b, (double)p->opts.range_to_ns);
        fprintf(out, " Time range: %s..%s after the first event\n", a, b);
    }
    if (info->stopped[0])
        fprintf(out, " Reading stopped: %s (the report covers what came "
                "before)\n", info->stopped);

    char cpu[32], ovh[32], unm[32], unk[32], ela[32], span[32];
    ct_rep_dur(cpu, sizeof cpu, ct_rep_ns(r, t->cpu));
    ct_rep_dur(ovh, sizeof ovh, ct_rep_ns(r, t->overhead));
    ct_rep_dur(unm, sizeof unm, ct_rep_ns(r, t->unmetered));
    ct_rep_dur(unk, sizeof unk, ct_rep_ns(r, t->unknown));
    ct_rep_dur(ela, sizeof ela, ct_rep_ns(r, t->elapsed));
    ct_rep_dur(span, sizeof span, ct_rep_ns(r, t->last - t->first));
    fprintf(out, "\nTotal time: %s(functions) %s(overhead) %s(unmetered) "
            "%s(unknown) %s(elapsed)\n", cpu, ovh, unm, unk, ela);
    if (t->first || t->last || !t->cpu)
        fprintf(out, "Wall span: %s (first to last event, all threads)\n",
                span);
    else
        fputs("Wall span: unknown (the input has no timestamps)\n", out);
    fprintf(out, "In ticks: %" PRIu64 " + %" PRIu64 " + %" PRIu64 " + %" PRIu64
            " = %" PRIu64 "\n", t->cpu, t->overhead, t->unmetered, t->unknown,
            t->elapsed);
    ct_report_oncpu(r);
    if (!r->o->brief)
        fputs(blurb, out);
    fputs("\n", out);
}
