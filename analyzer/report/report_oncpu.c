/* The summary's on-CPU lines: what the trace can tell of on-CPU and
 * off-CPU time, overall and per thread (docs/report-format.md). */
#include <inttypes.h>
#include <string.h>

#include "analyzer/report/report_private.h"

/* Whether some thread's on-CPU time is told this way. */
static bool any_mode(const struct ct_profile *p, uint8_t mode)
{
    for (uint32_t i = 0; i < p->nthread_time; i++)
        if (p->thread_time[i].oncpu == mode)
            return true;
    return false;
}

static void why_no_switches(FILE *out, const struct ct_trace_info *info)
{
    if (info->oncpu_errno)
        fprintf(out, " (context-switch records refused: perf_event_open: %s)",
                strerror(info->oncpu_errno));
    else
        fprintf(out, " (CALLTRACE_CPUTIME=clock, or context-switch records "
                "unavailable)");
}

static void thread_line(struct ct_rep *r, uint32_t i)
{
    const struct ct_profile *p = r->p;
    const struct ct_thread_time *tt = &p->thread_time[i];
    const struct ct_trace_info *info = p->info;
    uint64_t tid = i < info->nthreads ? info->threads[i].tid : i;
    uint64_t ctx = i < info->nthreads ? info->threads[i].context : 0;
    /* a coroutine as the Threads line names it: tid:context */
    char who[48];
    if (ctx)
        snprintf(who, sizeof who, "%" PRIu64 ":%" PRIu64, tid, ctx);
    else
        snprintf(who, sizeof who, "%" PRIu64, tid);
    char a[32], b[32], c[32], d[32];
    if (tt->oncpu == CT_ONCPU_SWITCH) {
        uint64_t off = tt->off < tt->elapsed ? tt->off : tt->elapsed;
        ct_rep_dur(a, sizeof a, ct_rep_ns(r, tt->elapsed));
        ct_rep_dur(b, sizeof b, ct_rep_ns(r, tt->elapsed - off));
        ct_rep_dur(c, sizeof c, ct_rep_ns(r, off));
        ct_rep_dur(d, sizeof d, ct_rep_ns(r, tt->preempted));
        fprintf(r->out, "  tid %s: %s(elapsed) %s(on-CPU) "
                "%s(off-CPU, of which %s preempted)\n", who, a, b, c, d);
    } else if (tt->oncpu == CT_ONCPU_CLOCK && tt->clock_ticks) {
        double wall = ct_rep_ns(r, tt->clock_ticks);
        double cpu = (double)tt->clock_cpu_ns;
        if (cpu > wall)
            cpu = wall;
        ct_rep_dur(a, sizeof a, wall);
        ct_rep_dur(b, sizeof b, cpu);
        ct_rep_dur(c, sizeof c, wall - cpu);
        fprintf(r->out, "  tid %s: %s(between its first and last "
                "CPU-clock reading) %s(on-CPU) %s(off-CPU)\n", who, a, b, c);
    } else if (tt->elapsed) {
        fprintf(r->out, "  tid %s: on-CPU time not recorded\n", who);
    }
}

void ct_report_oncpu(struct ct_rep *r)
{
    FILE *out = r->out;
    const struct ct_profile *p = r->p;
    const struct ct_trace_info *info = p->info;
    bool sw = any_mode(p, CT_ONCPU_SWITCH);
    bool clk = any_mode(p, CT_ONCPU_CLOCK);
    if (!sw && !clk) {
        fprintf(out, "On-CPU: not recorded; every time here is wall-clock "
                "time, on or off the CPU");
        if (info->oncpu == CT_ONCPU_NONE && strcmp(info->format, "calltrace") == 0)
            fprintf(out, " (tracer without on-CPU records, or "
                    "CALLTRACE_CPUTIME=off)");
        else if (strcmp(info->format, "calltrace") != 0)
            fprintf(out, " (the %s format has none)", info->format);
        fputc('\n', out);
        return;
    }
    if (sw) {
        char a[32], b[32];
        ct_rep_dur(a, sizeof a, ct_rep_ns(r, p->totals.cpu - p->totals.offcpu));
        ct_rep_dur(b, sizeof b, ct_rep_ns(r, p->totals.offcpu));
        fprintf(out, "On-CPU: from context switches; of the functions' time "
                "%s(on-CPU) %s(off-CPU: blocked, asleep or preempted)\n",
                a, b);
        if (info->switches_lost)
            fprintf(out, " %" PRIu64 " context-switch records were lost "
                    "(ring full): off-CPU figures are a lower bound\n",
                    info->switches_lost);
    }
    if (clk) {
        fprintf(out, "On-CPU: %sper-thread CPU-time clock only, not per "
                "function", sw ? "some threads by " : "");
        why_no_switches(out, info);
        fputc('\n', out);
    }
    for (uint32_t i = 0; i < p->nthread_time; i++)
        thread_line(r, i);
}
