/*
 * The profile mode's own cost per call, measured at start the way bias.c
 * measures the trace mode's, so that the analyzer takes off what the
 * profile's path costs, not the trace's: enter + exit pairs of a leaf
 * through the real hooks and the slow path, on a scratch thread state
 * with a table in memory of its own, split at the profile's clock reads
 * (the entry's start, the return's time) into the part inside the call
 * and the part in its caller.  A library call's, through a stub, is
 * measured the same way (plt_bias.c).
 */
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload/profile/profile_mode.h"
#include "preload/tracer.h"

enum { ROUNDS = 5, PAIRS = 50 };

static volatile uint64_t calib_work;

/* A function as -finstrument-functions makes it (see bias.c). */
__attribute__((noinline)) static uintptr_t calib_leaf(uintptr_t x)
{
    __cyg_profile_func_enter((void *)calib_leaf, __builtin_return_address(0));
    calib_work = x;
    __asm__("" : "+r"(x));
    __cyg_profile_func_exit((void *)calib_leaf, __builtin_return_address(0));
    return x + 1;
}

static struct ct_bias_round one_round(struct ct_thread *t,
                                     uintptr_t (*call)(uintptr_t))
{
    struct ct_bias_round r = {0, 0, 0};
    uint64_t t0 = ct_mono_ns(), last_exit = 0;
    uintptr_t x = 0;
    for (int i = 0; i < PAIRS; i++) {
        x = call(x);
        uint64_t in, out;
        ct_profile_bias_stamps(t, &in, &out);
        r.inside += out > in ? out - in : 0;
        if (i)
            r.between += in > last_exit ? in - last_exit : 0;
        last_exit = out;
    }
    __asm__("" : : "r"(x));
    r.ns = ct_mono_ns() - t0;
    return r;
}

int ct_profile_bias_measure(uintptr_t (*call)(uintptr_t),
                            struct ct_bias_figures *f)
{
    size_t len = sizeof(struct ct_thread);
    struct ct_thread *t = mmap(NULL, len, PROT_READ | PROT_WRITE,
                               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (t == MAP_FAILED)
        return -1;
    if (ct_profile_bias_begin(t) != 0) {
        munmap(t, len);
        return -1;
    }
    struct ct_thread *saved_self = ct_self;
    uint64_t saved_word = ct_global_word;
    int saved_ran = ct_proc.calls_ran;
    /* The measurement's calls are the tracer's: as if a call had run, so
     * that the slow path does not make the trace file for them (a
     * program that runs no instrumented code leaves none, in this mode
     * as in the others), restored after. */
    __atomic_store_n(&ct_proc.calls_ran, 1, __ATOMIC_RELAXED);
    ct_global_word = 0;
    ct_self = t;
    t->tid = (uint32_t)syscall(SYS_gettid);  /* 0 would be a forked child */
    t->expect = 0;
    t->stop = ct_profile_stop | (ct_clock_is_tsc ? 0 : CT_STOP_CLOCK);
    struct ct_bias_round r[ROUNDS];
    for (int i = 0; i < ROUNDS; i++)
        r[i] = one_round(t, call);
    ct_self = saved_self;
    ct_global_word = saved_word;
    ct_proc.calls_ran = saved_ran;
    ct_profile_bias_end(t);
    munmap(t, len);
    ct_bias_figures_of(r, ROUNDS, PAIRS, f);
    return 0;
}

void ct_profile_measure_bias(void)
{
    struct ct_bias_figures f;
    if (ct_profile_bias_measure(calib_leaf, &f) != 0)
        return;
    ct_proc.bias_ps = f.pair_ps;
    ct_proc.bias_self_ps = f.self_ps;
    ct_proc.bias_child_ps = f.child_ps;
    ct_proc.bias_spread_ps = f.spread_ps;
}
