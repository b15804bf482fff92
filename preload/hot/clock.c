/*
 * Time source.  The TSC costs a few cycles and needs no system call, but
 * only an invariant TSC (constant_tsc and nonstop_tsc) ticks at a fixed
 * rate across frequency changes and idle states; otherwise, or on request,
 * CLOCK_MONOTONIC in nanoseconds.  The TSC rate is calibrated against
 * CLOCK_MONOTONIC over a short window at start (every process pays it, so
 * the window is spent on the tracer's other start steps, not in a wait),
 * and refined over the run so far at each new block, at a crash and at a
 * clean close, once the run is ten windows long: the longer the run, the
 * finer the rate, and a killed process keeps its last refinement.
 */
#include <cpuid.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "preload/base/rawsys.h"
#include "preload/tracer.h"

struct ct_clock ct_clock = {CT_CLOCK_MONOTONIC, 1000000000u, 0, 0};
int ct_clock_is_tsc;
int ct_clock_fenced;
int ct_tsc_off;
/* The start window asked for (the one measured may be longer if the
 * process was preempted): a refinement over a run shorter than ten of them is
 * no better than the start. */
static uint64_t calib_window_ns;

/* The vDSO reads the TSC: once the program has turned it off for itself,
 * the clock is read by system call (a few hundred ns). */
uint64_t ct_mono_ns(void)
{
    struct timespec ts;
    if (ct_unlikely(ct_tsc_off))
        ct_rsys(SYS_clock_gettime, CLOCK_MONOTONIC, (long)&ts, 0, 0, 0, 0);
    else
        clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t ct_tsc_gone_ticks(void)
{
    uint64_t ns = ct_mono_ns();
    uint64_t hz = __atomic_load_n(&ct_clock.tick_hz, __ATOMIC_RELAXED);
    if (ns <= ct_clock.start_mono_ns)
        return ct_clock.start_ticks;
    unsigned __int128 t = (unsigned __int128)(ns - ct_clock.start_mono_ns) * hz;
    return ct_clock.start_ticks + (uint64_t)(t / 1000000000u);
}

/* PR_SET_TSC turned the TSC off, or seccomp's strict mode will: the rate
 * is refined one last time while the TSC can still be read, then every
 * event takes its time from CLOCK_MONOTONIC, counted in the trace's TSC
 * ticks so a trace keeps one unit.  The hooks see the change at their
 * next event: a new generation of the global word sends each thread once
 * to its slow path, where it takes CT_STOP_CLOCK (its monotonic hooks). */
void ct_clock_tsc_gone(void)
{
    if (__atomic_load_n(&ct_tsc_off, __ATOMIC_ACQUIRE))
        return;
    if (ct_clock.kind == CT_CLOCK_TSC)
        ct_clock_checkpoint();
    __atomic_store_n(&ct_tsc_off, 1, __ATOMIC_RELEASE);
    __atomic_store_n(&ct_clock_is_tsc, 0, __ATOMIC_RELEASE);
    __atomic_fetch_add(&ct_global_word, 2, __ATOMIC_RELEASE);
}

/* A process started with the TSC off (PR_SET_TSC is kept across fork and
 * exec): CLOCK_MONOTONIC by system call from the start. */
static int tsc_readable(void)
{
    int mode = 0;
    if (ct_rsys(SYS_prctl, PR_GET_TSC, (long)&mode, 0, 0, 0, 0) == 0 &&
        mode == PR_TSC_SIGSEGV) {
        ct_tsc_off = 1;
        return 0;
    }
    return 1;
}

/* As ct_mono_ns: a forked child of a program that turned the TSC off
 * writes its new trace's header with it, and the vDSO would fault. */
uint64_t ct_realtime_ns(void)
{
    struct timespec ts;
    if (ct_unlikely(ct_tsc_off))
        ct_rsys(SYS_clock_gettime, CLOCK_REALTIME, (long)&ts, 0, 0, 0, 0);
    else
        clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int has_flag(const char *flags, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = flags; (p = strstr(p, name)) != NULL; p += n) {
        int starts = p == flags || p[-1] == ' ' || p[-1] == '\t';
        int ends = p[n] == ' ' || p[n] == '\n' || p[n] == '\0';
        if (starts && ends)
            return 1;
    }
    return 0;
}

/* The CPU's own word: CPUID 0x80000007 EDX bit 8 is the invariant TSC,
 * from which the kernel sets both flags.  Without it, the kernel's flags
 * decide (it sets them for a few older CPUs too). */
static int cpuid_invariant_tsc(void)
{
    unsigned a, b, c, d;
    return __get_cpuid(0x80000007u, &a, &b, &c, &d) && (d & (1u << 8));
}

int ct_tsc_invariant(void)
{
    if (cpuid_invariant_tsc())
        return 1;
    FILE *f = fopen("/proc/cpuinfo", "re");
    if (!f)
        return 0;
    char line[4096];
    int ok = 0;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "flags", 5) == 0) {
            ok = has_flag(line, "constant_tsc") && has_flag(line, "nonstop_tsc");
            break;
        }
    }
    fclose(f);
    return ok;
}

/* One (tsc, monotonic) pair, the TSC read between two clock reads so the
 * pair is as tight as the clock_gettime call allows. */
static void paired_read(uint64_t *tsc, uint64_t *mono)
{
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < 5; i++) {
        uint64_t a = ct_mono_ns();
        uint64_t t = __rdtsc();
        uint64_t b = ct_mono_ns();
        if (b - a < best) {
            best = b - a;
            *tsc = t;
            *mono = a + (b - a) / 2;
        }
    }
}

void ct_clock_begin(int force_monotonic)
{
    calib_window_ns = 0;
    if (!tsc_readable() || force_monotonic || !ct_tsc_invariant()) {
        ct_clock.kind = CT_CLOCK_MONOTONIC;
        ct_clock.tick_hz = 1000000000u;
        ct_clock_is_tsc = 0;
        ct_clock.start_mono_ns = ct_mono_ns();
        ct_clock.start_ticks = ct_clock.start_mono_ns;
        return;
    }
    paired_read(&ct_clock.start_ticks, &ct_clock.start_mono_ns);
    ct_clock.kind = CT_CLOCK_TSC;
    ct_clock_is_tsc = !ct_clock_fenced;
}

/* The TSC hooks' fast path has no fence (that is what makes it fast):
 * with ct_clock_is_tsc clear, every thread takes the stop bit that sends
 * its events to the fenced twins (hot.c).  Without the TSC there is
 * nothing to fence, and ct_clock_fenced stays 0: it says the fenced TSC
 * is the clock. */
void ct_clock_fence(void)
{
    if (ct_clock.kind != CT_CLOCK_TSC)
        return;
    ct_clock_fenced = 1;
    ct_clock_is_tsc = 0;
}

void ct_clock_calibrate(unsigned calib_us)
{
    if (ct_clock.kind != CT_CLOCK_TSC || ct_tsc_off)
        return;
    uint64_t t0 = ct_clock.start_ticks, m0 = ct_clock.start_mono_ns;
    uint64_t want = calib_us ? (uint64_t)calib_us * 1000u : 1;
    uint64_t t1 = 0, m1 = 0;
    do
        paired_read(&t1, &m1);
    while (m1 <= m0 || m1 - m0 < want || t1 <= t0);
    ct_clock.tick_hz = (uint64_t)((double)(t1 - t0) * 1e9 / (double)(m1 - m0));
    calib_window_ns = (uint64_t)calib_us * 1000u;
}

void ct_clock_init(int force_monotonic, unsigned calib_us)
{
    ct_clock_begin(force_monotonic);
    ct_clock_calibrate(calib_us);
}

void ct_clock_refine(uint64_t end_ticks, uint64_t end_mono_ns)
{
    /* Without the TSC the ticks are made from the clock at the last rate:
     * nothing to refine. */
    if (ct_clock.kind != CT_CLOCK_TSC || ct_tsc_off)
        return;
    uint64_t dm = end_mono_ns - ct_clock.start_mono_ns;
    if (end_mono_ns <= ct_clock.start_mono_ns || dm <= 10 * calib_window_ns ||
        end_ticks <= ct_clock.start_ticks)
        return;
    /* Threads at a block switch may refine at once: each value is good. */
    __atomic_store_n(&ct_clock.tick_hz,
                     (uint64_t)((double)(end_ticks - ct_clock.start_ticks) *
                                1e9 / (double)dm),
                     __ATOMIC_RELAXED);
}

/* A refinement now, into the header too, so a trace whose process is
 * killed has the rate over the run until its last block.  A few hundred
 * ns, once a block: not on the hot path. */
void ct_clock_checkpoint(void)
{
    struct ct_file_header *h = ct_proc.hdr;
    if (ct_clock.kind != CT_CLOCK_TSC || !h ||
        __atomic_load_n(&ct_tsc_off, __ATOMIC_ACQUIRE))
        return;
    uint64_t t, m;
    paired_read(&t, &m);
    ct_clock_refine(t, m);
    __atomic_store_n(&h->tick_hz, __atomic_load_n(&ct_clock.tick_hz, __ATOMIC_RELAXED),
                     __ATOMIC_RELAXED);
}

uint64_t ct_ns_to_ticks(uint64_t ns)
{
    if (!ns)
        return 0;
    uint64_t hz = __atomic_load_n(&ct_clock.tick_hz, __ATOMIC_RELAXED);
    if (ct_clock.kind != CT_CLOCK_TSC || !hz)
        return ns;
    unsigned __int128 t = (unsigned __int128)ns * hz;
    uint64_t ticks = (uint64_t)(t / 1000000000u);
    return ticks ? ticks : 1;
}
