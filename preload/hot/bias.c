/*
 * The tracer's own cost per traced call, measured at start, for the
 * analyzer's bias subtraction (docs/analysis.md).  The hooks' time is cut
 * in two by their clock reads: what runs after the enter hook's read and
 * before the exit hook's lands inside the called function's interval (its
 * self time); the rest (the exit hook after its read, the return, the
 * next call, the enter hook before its read) lands in the caller's self
 * time, once per call the caller makes.  Both parts are read from the
 * timestamps the hooks themselves record, so the split is the hooks' own.
 */
#include <stdint.h>
#include <sys/mman.h>

#include "preload/tracer.h"

/* 5 x 50 pairs: a round of 1-2 us is still long beside the clock's jitter
 * (tens of ns), and the fastest round is the undisturbed one.  Over 40 runs
 * of an empty program each, 5 x 50 gave a median of 20.8 ns per call
 * (20.6-23.2), 5 x 200 20.5 (20.4-25.1): the same figure within 2 %, for a
 * quarter of the start-up time. */
enum { BIAS_ROUNDS = 5, BIAS_PAIRS = 50, BIAS_BUF = BIAS_PAIRS * 48 + 4096 };
/* A mapping of its own, given back at once: in .bss it took 72 KiB of
 * every traced process's address space for good (RLIMIT_AS counts .bss
 * whole), for the price of a system call, a fault per page touched and an
 * munmap at start (about 0.2 ms in a VM whose page faults are dear;
 * bench/RESULTS-tracer.md, "Start-up").  Zero, as the hooks need it. */
struct bias_scratch {
    struct ct_thread thread;
    uint8_t buf[BIAS_BUF];
};

/* One round: its ns, and the ticks inside the calls and between them. */
/* The enter hook's clock read in the last call of calib_leaf. */
static volatile uint64_t calib_in;

/*
 * A function as -finstrument-functions makes it: its hooks called through
 * the PLT from its own frame, the return address as the call site, so the
 * calibration pays what the program's calls pay (the calls, the saved
 * argument, the hooks' prologues), not only the hooks' bodies.  The one
 * store after the enter hook stands for the smallest function's work.
 */
#define CALIB_LEAF(name, enter, exit)                                         \
    __attribute__((noinline)) static uintptr_t name(uintptr_t x)              \
    {                                                                         \
        enter((void *)name, __builtin_return_address(0));                     \
        calib_in = ct_self->prev_ticks;                                       \
        __asm__("" : "+r"(x));                                                \
        exit((void *)name, __builtin_return_address(0));                      \
        return x + 1;                                                         \
    }
CALIB_LEAF(calib_leaf, __cyg_profile_func_enter, __cyg_profile_func_exit)
/* With CALLTRACE_CLOCK=tsc-fenced, the hooks the program's calls are
 * pointed at (clock_hooks.c). */
CALIB_LEAF(calib_leaf_fenced, ct_fenced_enter, ct_fenced_exit)

static struct ct_bias_round bias_round(struct ct_thread *scratch, uint8_t *buf,
                                       const struct ct_bias_call *call)
{
    volatile uint64_t *stamp = &scratch->prev_ticks;
    struct ct_bias_round r = {0, 0, 0};
    scratch->pos = buf;
    scratch->end = ct_hot_end(buf + BIAS_BUF);
    scratch->prev_ticks = ct_now();
    uint64_t t0 = ct_mono_ns(), last_exit = 0;
    uintptr_t x = 0;
    for (int i = 0; i < BIAS_PAIRS; i++) {
        x = call->call(x);
        uint64_t in = *call->in, out = *stamp;  /* the two clock reads */
        r.inside += out - in;
        if (i)
            r.between += in - last_exit;
        last_exit = out;
    }
    __asm__("" : : "r"(x));
    r.ns = ct_mono_ns() - t0;
    return r;
}

/* Sorts the rounds by time (five of them: insertion). */
void ct_bias_figures_of(struct ct_bias_round *r, int n, int pairs,
                        struct ct_bias_figures *f)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && r[j].ns < r[j - 1].ns; j--) {
            struct ct_bias_round x = r[j];
            r[j] = r[j - 1];
            r[j - 1] = x;
        }
    uint64_t pair = r[0].ns * 1000 / (uint64_t)pairs;
    /* Per pair in ticks: inside over `pairs` calls, between over the
     * pairs - 1 gaps; the split applies to the pair's picoseconds. */
    double in = (double)r[0].inside / pairs;
    double between = (double)r[0].between / (pairs - 1);
    double frac = in + between > 0 ? in / (in + between) : 0.5;
    f->pair_ps = pair;
    f->self_ps = (uint64_t)((double)pair * frac + 0.5);
    if (!f->self_ps)
        f->self_ps = 1;  /* 0 means "not split" to readers */
    f->child_ps = pair > f->self_ps ? pair - f->self_ps : 0;
    f->spread_ps = (r[n / 2].ns - r[0].ns) * 1000 / (uint64_t)pairs;
}

/*
 * BIAS_ROUNDS rounds of BIAS_PAIRS calls of call->call into a scratch
 * buffer, with this thread's state swapped for a scratch one (at start:
 * one thread, tracing not yet seen by any other).  The figures come from
 * the fastest round (noise only adds): the pair, its split at the clock
 * reads, and the median round's excess over the fastest.  0 when the
 * scratch memory cannot be had.
 */
int ct_bias_measure(const struct ct_bias_call *call, struct ct_bias_figures *f)
{
    struct bias_scratch *bs = mmap(NULL, sizeof *bs, PROT_READ | PROT_WRITE,
                                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (bs == MAP_FAILED)
        return -1;
    struct ct_thread *scratch = &bs->thread;
    struct ct_thread *saved_self = ct_self;
    uint64_t saved_word = ct_global_word;
    ct_global_word = 0;
    ct_self = scratch;
    scratch->expect = 0;
    scratch->stop = ct_clock_is_tsc ? 0 : CT_STOP_CLOCK;  /* as the slow path sets it */
    struct ct_bias_round r[BIAS_ROUNDS];
    for (int i = 0; i < BIAS_ROUNDS; i++)
        r[i] = bias_round(scratch, bs->buf, call);
    ct_self = saved_self;
    ct_global_word = saved_word;
    munmap(bs, sizeof *bs);
    ct_bias_figures_of(r, BIAS_ROUNDS, BIAS_PAIRS, f);
    return 0;
}

/*
 * The hooks' figures: ct_proc.bias_ps, its split into bias_self_ps and
 * bias_child_ps, and bias_spread_ps.
 */
uint64_t ct_measure_bias(void)
{
    if (ct_proc.bias_ps)
        return ct_proc.bias_ps;
    const struct ct_bias_call call = {
        ct_clock_fenced ? calib_leaf_fenced : calib_leaf, &calib_in};
    struct ct_bias_figures f;
    if (ct_bias_measure(&call, &f) != 0)
        return 0;
    ct_proc.bias_ps = f.pair_ps;
    ct_proc.bias_self_ps = f.self_ps;
    ct_proc.bias_child_ps = f.child_ps;
    ct_proc.bias_spread_ps = f.spread_ps;
    return f.pair_ps;
}
