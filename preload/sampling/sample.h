/*
 * Sampling mode (CALLTRACE_MODE=sample or both): every thread gets a timer
 * on its own CPU clock (or the monotonic clock) that sends it SIGPROF; the
 * handler walks the interrupted stack with libunwind and appends one
 * CT_EXT_SAMPLE record to the thread's current block through the tracer.
 * docs/sampling.md explains the choices.
 */
#ifndef CT_SAMPLE_H
#define CT_SAMPLE_H

#include <stddef.h>
#include <stdint.h>

#define CT_SAMPLE_DEFAULT_NS 10000000ull  /* 10 ms                          */
#define CT_SAMPLE_MIN_NS 10000ull         /* 10 us: below it, timer noise   */
#define CT_SAMPLE_MAX_NS 60000000000ull   /* 60 s                           */
#define CT_SAMPLE_MAX_DEPTH 128u          /* deeper stacks are cut at root  */
/* The most user stack the kernel copies into a sample (perf record's
 * default); sample_perf.c asks for less where a thread's walks need less. */
#define CT_SAMPLE_STACK_MAX 8192u
/* weight + depth + CT_SAMPLE_MAX_DEPTH pcs, 10 bytes each at most. */
#define CT_SAMPLE_PAYLOAD_MAX (10u * (2u + CT_SAMPLE_MAX_DEPTH))

/* Called from the tracer's start-up (preload/control/init.c) once the trace
 * file is open: reads CALLTRACE_MODE, CALLTRACE_SAMPLE_INTERVAL and
 * CALLTRACE_SAMPLE_CLOCK and, when sampling, installs the SIGPROF handler
 * and arms the calling thread's timer. */
void ct_sample_init(void);
/* Called in the child of fork(): timers are not inherited, so the one
 * thread of the child gets a new one. */
void ct_sample_after_fork_child(void);
/* Called before the trace file is closed: no sample is written after it. */
void ct_sample_stop(void);

/* 1 when CALLTRACE_MODE asks for samples (sample, both). */
int ct_sample_wanted(void);

/* "10ms", "500us", "2s", "250000ns"; a bare number is milliseconds.
 * Returns 0 and sets *ns, or -1 for anything else or out of range. */
int ct_sample_parse_interval(const char *text, uint64_t *ns);

/* CT_MODE_PROFILE: calls kept as per-thread tables (profile_mode.c), no samples */
enum ct_sample_mode { CT_MODE_TRACE, CT_MODE_SAMPLE, CT_MODE_BOTH,
                      CT_MODE_PROFILE };
/* "trace", "sample", "both"; NULL or "" is trace.  -1 when unknown. */
int ct_sample_parse_mode(const char *text);

/* The CT_EXT_SAMPLE payload: varint weight, varint depth, depth x varint
 * pc, leaf first.  out must hold CT_SAMPLE_PAYLOAD_MAX bytes; depth is cut
 * to CT_SAMPLE_MAX_DEPTH.  Returns the length. */
size_t ct_sample_encode(uint8_t *out, uint64_t weight, const uintptr_t *pcs,
                        unsigned depth);

/* What the SIGPROF handler does, without the signal: decides how to walk
 * the stack of `ucontext` (a ucontext_t *), fills pcs[0..max) leaf first
 * and returns the depth (0: nothing to record, the call was re-entered).
 * Inside the loader (see below) only the leaf is taken. */
unsigned ct_sample_take(void *ucontext, uintptr_t *pcs, unsigned max);

/* The per-thread re-entry guard of ct_sample_take: enter returns 1 and
 * holds it, or 0 when this thread holds it already. */
int ct_sample_guard_enter(void);
void ct_sample_guard_leave(void);

/* sample_unwind.c: the libunwind walk from a signal's ucontext.  The leaf
 * is the interrupted pc; above it, return addresses as libunwind gives
 * them.  Returns the depth, 0 when libunwind cannot start. */
unsigned ct_sample_unwind(void *ucontext, uintptr_t *pcs, unsigned max);
/* The interrupted pc alone. */
uintptr_t ct_sample_leaf_pc(const void *ucontext);
/* Loads libunwind (dlopen: only a sampling process maps it) and runs its
 * first-use set-up, once, outside any signal handler.  -1 when libunwind
 * cannot be loaded, -2 when its calls cannot be kept off the program's
 * descriptors (ct_unwind_fds_off): ct_sample_unwind then returns 0 (the
 * leaf only). */
int ct_sample_unwind_prepare(void);
/* Points the calls of pipe2, pipe, read, write, syscall and close of the
 * libunwind object dlopen gave as handle at unwind_fds.c, before it
 * runs, so that its address checks use no descriptor; -1 when the
 * object is not found among those loaded. */
int ct_unwind_fds_off(void *handle);

/* The loader guard: dlopen, dlclose and dl_iterate_phdr wrappers count
 * themselves in, per thread and process-wide.  Non-zero means a stack walk
 * now could wait for the loader lock (libunwind calls dl_iterate_phdr). */
int ct_sample_loader_busy(void);
/* Around the tracer's dlopen and dlmopen wrappers (wrap.c).  Returns 0,
 * and guards nothing, inside the sampler's own signal handler. */
int ct_loader_enter(void);
void ct_loader_leave(void);

struct ct_sample_stats {
    uint64_t samples;     /* records written                               */
    uint64_t leaf_only;   /* taken while the loader was busy: leaf pc only */
    uint64_t reentered;   /* a SIGPROF arrived inside the handler          */
    uint64_t unwind_failed; /* libunwind could not start: leaf pc only     */
    uint64_t not_written; /* the tracer had no room or was not running     */
};
void ct_sample_get_stats(struct ct_sample_stats *out);

/* ---- signal-free sampling: the kernel's perf_event task-clock ------- */

/* A sample's user registers in libunwind's x86-64 numbering: rax rdx rcx
 * rbx rsi rdi rbp rsp r8..r15 rip. */
struct ct_perf_regs {
    uint64_t r[17];
};

/* sample_perf.c.  open: 0 when the calling thread's event and ring are set
 * up (*slot set), else an errno.  end: the thread is ending; its ring is
 * drained and unmapped by the sampler's thread.  start: the sampler's
 * thread.  stop: the last drain, by the caller, and no thread after it.
 * after_fork_child: the parent's rings and thread are gone. */
int ct_perf_thread_open(uint64_t period_ns, int *slot);
void ct_perf_thread_end(int slot);
int ct_perf_start(uint64_t interval_ns);
/* CALLTRACE_SAMPLE_CLOCK=wall, before the first thread's open: every
 * thread's switches out are sampled too, weighted by the time off the CPU
 * that follows.  0, or the errno of the refused context-switch event. */
int ct_perf_wall(uint64_t interval_ns);
void ct_perf_stop(void);
void ct_perf_after_fork_child(void);
struct ct_perf_stats {
    uint64_t records, lost, leaf_only, not_written;
    uint64_t in_tracer;   /* the tracer's own code on top: dropped */
    uint64_t cut;         /* walks ended at a smaller copy's end    */
};
void ct_perf_get_stats(struct ct_perf_stats *out);

/* sample.c: the loader guard for a walk outside a signal handler.  begin
 * returns 1 once no loader call or fork is under way and none can start
 * until end (it waits up to wait_ms), 0 when it gave up.  *changed is set
 * when objects were loaded or unloaded since the previous walk. */
int ct_sample_walk_begin(unsigned wait_ms, int *changed);
void ct_sample_walk_end(void);

/* Whether a walk's read at addr, outside a stack copy of len bytes from
 * lo, lies past the copy's end where the stack goes on (within the 8 MiB
 * of a main thread's default stack): a larger copy would have held it.
 * Anything else (below the stack pointer, a wild value) is a frame no
 * copy would help.  Both walks (sample_cfi.c, sample_remote.c) ask it. */
static inline int ct_sample_past_copy(uintptr_t addr, uintptr_t lo, size_t len)
{
    return addr >= lo && addr - lo + 8 > len && addr - lo < ((size_t)8 << 20);
}

/* sample_remote.c: libunwind's remote interface over a sample's copy.
 * load: the library and its functions (dlopen), 0 or -1; prepare: load,
 * then its first use (which opens a pipe, where the caller's table takes
 * it), 0 or -1. */
int ct_sample_remote_load(void);
int ct_sample_remote_prepare(void);
struct dl_phdr_info;
void ct_sample_remote_objects_changed(
    int (*iterate)(int (*)(struct dl_phdr_info *, size_t, void *), void *));
/* *need: the bytes of the copy the walk read up to, SIZE_MAX when the
 * walk ended at the copy's end, 0 when not known. */
unsigned ct_sample_remote_unwind(const struct ct_perf_regs *regs,
                                 const uint8_t *stack, size_t stack_len,
                                 const void *plt_slot,
                                 uintptr_t *pcs, unsigned max, size_t *need);
/* CALLTRACE_SAMPLE_UNWIND, read at start.  stats: the walks so far, and
 * in check mode (returns 1) how many the fast walk (sample_cfi.c) took,
 * each walked by libunwind too, and how many of those differ. */
void ct_sample_remote_choose(void);
int ct_sample_remote_stats(uint64_t *walks, uint64_t *checked, uint64_t *differ);

#endif /* CT_SAMPLE_H */
