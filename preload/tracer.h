/*
 * Internal interface of libcalltrace.so.  Nothing here is exported: the
 * library is built with -fvisibility=hidden and only the hooks, the public
 * *_impl functions and the libc wrappers carry default visibility.
 *
 * The map of the folder, every file with one line, is preload/README.md
 * (tests/e2e/house_check.sh keeps it complete); the path from a call to a
 * report line is docs/architecture.md.
 */
#ifndef CT_TRACER_H
#define CT_TRACER_H

#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <x86intrin.h>

#include "calltrace_format.h"

/* Declarations below name hidden symbols, so the hot path reaches the
 * globals directly instead of through the GOT. */
#pragma GCC visibility push(hidden)

#define CT_API __attribute__((visibility("default")))
#define CT_COLD __attribute__((noinline, cold))
#define ct_likely(x) __builtin_expect(!!(x), 1)
#define ct_unlikely(x) __builtin_expect(!!(x), 0)
/* Keeps the compiler from moving stores across it; enough against a signal
 * handler on the same thread, which is the only concurrency a thread's
 * state sees. */
#define ct_signal_fence() __atomic_signal_fence(__ATOMIC_SEQ_CST)

/* ---------------------------------------------------------------- config */

#define CT_DEFAULT_OUTPUT "calltrace-%p.raw"
#define CT_DEFAULT_BUFSIZE (1u << 20)
#define CT_MIN_BUFSIZE 4096u
#define CT_MAX_BUFSIZE (1u << 30)
/* The flight recorder's smallest ring: two threads with a block each, and
 * room to turn (calltrace record says when --flight asks for less). */
#define CT_FLIGHT_MIN_SLOTS 4u
/* Thread's first blocks are this small (thread.c); a slot holds one. */
#define CT_FLIGHT_MIN_SLOT (64u << 10)
/* calltrace_event messages: longer ones keep their first bytes and end in
 * CT_USER_MSG_CUT with the count of bytes left out. */
#define CT_USER_MSG_MAX 1024
#define CT_USER_MSG_CUT "...[%zu more bytes]"

struct ct_config {
    char output[CT_PATH_MAX];
    uint32_t bufsize;     /* bytes, multiple of CT_BLOCK_ALIGN               */
    uint64_t limit;       /* largest trace file in bytes, 0 = unlimited      */
    int clock_monotonic;  /* CALLTRACE_CLOCK=monotonic                       */
    int start_paused;
    int toggle_signal;    /* 0 = none                                        */
    int toggle_action;    /* CT_SIGACT_*: what the signal does               */
    int quiet;
    int follow;           /* CALLTRACE_FOLLOW: trace children (wrap_spawn.c) */
    int cputime;          /* CT_CPUTIME_*: CALLTRACE_CPUTIME                 */
    int libcalls;         /* CALLTRACE_LIBCALLS: CT_LIBCALLS_* (plt.h)     */
    uint64_t flight;      /* CALLTRACE_FLIGHT ring bytes, 0 = off (flight.c) */
    int flight_signal;    /* CALLTRACE_FLIGHT_SIGNAL: snapshot, 0 = none    */
    int control;          /* CALLTRACE_CONTROL: control socket (control.c)  */
    uint64_t stream_backlog;     /* CALLTRACE_STREAM_BACKLOG, bytes        */
    uint32_t stream_timeout_ms;  /* CALLTRACE_STREAM_TIMEOUT               */
    int supplier;         /* CALLTRACE_SUPPLIER: blocks mapped ahead (supply.c) */
};

/* ct_config.cputime: how on-CPU time is told from off-CPU time */
#define CT_CPUTIME_SWITCH 0   /* context-switch records, else the clock    */
#define CT_CPUTIME_CLOCK  1   /* CLOCK_THREAD_CPUTIME_ID at block bounds   */
#define CT_CPUTIME_OFF    2

/* Reads one variable; returns NULL when it is unset. */
typedef const char *(*ct_getenv_fn)(const char *name);
/* Receives one complete diagnostic line, without the newline. */
typedef void (*ct_warn_fn)(const char *line);

void ct_config_defaults(struct ct_config *c);
/* Fills c from the environment; every bad value produces exactly one
 * warning line and falls back to the default. */
void ct_config_load(struct ct_config *c, ct_getenv_fn get, ct_warn_fn warn);
/* "64K", "4M", "1G", "4096": 0 on success. */
int ct_parse_size(const char *s, uint64_t *out);
/* "USR2", "SIGUSR2", "12": the signal number, or -1. */
int ct_parse_signal(const char *s);
/* 1 for the signals CALLTRACE_SIGNAL may take: USR1, USR2, real-time. */
int ct_toggle_signal_allowed(int sig);
/* CALLTRACE_SIGNAL=SIG@ACTION (uftrace's --signal): toggle (the default),
 * on, off, or finish (off, and later signals change nothing). */
#define CT_SIGACT_TOGGLE 0
#define CT_SIGACT_ON     1
#define CT_SIGACT_OFF    2
#define CT_SIGACT_FINISH 3
/* "1"/"0" and yes/no/true/false/on/off, any case; "" is 0: 0 or 1, or -1. */
int ct_parse_bool(const char *s);
/* Expands %p to pid; appends ".<pid>" for a forked child when the pattern
 * has no %p.  Returns 0, or -1 when the result does not fit. */
int ct_output_name(char *dst, size_t cap, const char *pattern, long pid,
                   int forked_child);
/* Formats a size for messages: 1M, 64K, 1000. */
void ct_format_size(char *dst, size_t cap, uint64_t v);

/* The environment the tracer started with (env.c).  ct_env_capture runs
 * first thing at start, before libc may have set `environ`. */
void ct_env_capture(void);
/* A setting: getenv once libc has the environment, else the captured
 * copy (CALLTRACE_* only). */
const char *ct_env_get(const char *name);
/* The captured CALLTRACE_* entries, "NAME=value". */
size_t ct_env_count(void);
const char *ct_env_entry(size_t i);
/* This library's file: absolute when it was loaded by a path with a
 * slash, else the bare name it was loaded by; "" when unknown.  Name: as
 * the loader has it. */
const char *ct_env_self_path(void);
const char *ct_env_self_name(void);
/* msg holds the first cap - 1 bytes (NUL-terminated) of a message of full
 * bytes; marks a cut visibly.  Returns the length to record. */
size_t ct_user_message_cut(char *msg, size_t cap, size_t full);

/* ----------------------------------------------------------------- clock */

struct ct_clock {
    uint32_t kind;          /* CT_CLOCK_TSC or CT_CLOCK_MONOTONIC           */
    uint64_t tick_hz;
    uint64_t start_ticks;
    uint64_t start_mono_ns;
};

extern struct ct_clock ct_clock;
extern int ct_clock_is_tsc;   /* read on the hot path */

uint64_t ct_mono_ns(void);
uint64_t ct_realtime_ns(void);
/* 1 when the TSC is invariant: CPUID says so, or /proc/cpuinfo reports
 * constant_tsc and nonstop_tsc. */
int ct_tsc_invariant(void);
/* Picks the clock (TSC unless forced or not invariant) and takes the
 * first (TSC, CLOCK_MONOTONIC) pair of the start window. */
void ct_clock_begin(int force_monotonic);
/* Sets the TSC rate over the window since ct_clock_begin, waiting until
 * it is at least calib_us microseconds long (0: as long as it is).  Later
 * refinements must span ten such windows. */
void ct_clock_calibrate(unsigned calib_us);
/* Both at once: a window of calib_us microseconds. */
void ct_clock_init(int force_monotonic, unsigned calib_us);
/* Recomputes tick_hz from start to (end_ticks, end_mono_ns) when the
 * interval is long enough (ten start windows) to improve on the start
 * calibration. */
void ct_clock_refine(uint64_t end_ticks, uint64_t end_mono_ns);
/* Refines tick_hz to now and stores it in the file header. */
void ct_clock_checkpoint(void);
/* A duration in the clock's ticks: 0 stays 0, anything else is at least
 * one tick. */
uint64_t ct_ns_to_ticks(uint64_t ns);

/*
 * The TSC read of every event.  bench/overhead.sh builds a second copy of
 * the library with -DCT_BENCH_FAKE_CLOCK, where it is a counter stepping by
 * 64 ticks (records keep their usual size), to measure what the hooks cost
 * besides the clock.  The shipped library has no such mode.
 */
#ifdef CT_BENCH_FAKE_CLOCK
extern uint64_t ct_bench_ticks;
#define ct_read_tsc() (ct_bench_ticks += 64)
#else
#define ct_read_tsc() __rdtsc()
#endif

/* Set once the program turned the TSC off (PR_SET_TSC, seccomp strict):
 * CLOCK_MONOTONIC is then read by system call (clock.c). */
extern int ct_tsc_off;
/* CLOCK_MONOTONIC in the trace's TSC ticks, at the rate calibrated. */
uint64_t ct_tsc_gone_ticks(void);
/* Before the TSC goes away: every later event reads CLOCK_MONOTONIC. */
void ct_clock_tsc_gone(void);

/* The time of an event when the TSC is not read: CLOCK_MONOTONIC, in ns
 * for a monotonic trace, in ticks for a TSC trace whose TSC was turned
 * off. */
static inline __attribute__((always_inline)) uint64_t ct_mono_ticks(void)
{
    if (ct_likely(ct_clock.kind != CT_CLOCK_TSC))
        return ct_mono_ns();
    return ct_tsc_gone_ticks();
}

static inline __attribute__((always_inline)) uint64_t ct_now(void)
{
    if (ct_likely(ct_clock_is_tsc))
        return ct_read_tsc();
    return ct_mono_ticks();
}

/* ---------------------------------------------------------------- thread */

#define CT_MAX_DEPTH 4096u
/* Bytes kept free at the end of every block for the records written when
 * it is closed: LOST (up to 23), OVERHEAD_START or THREAD_END (12 each). */
#define CT_BLOCK_RESERVE 64u

/* ct_thread.flags */
#define CT_T_NOBLOCK 0x1u  /* the size limit was reached: no more blocks    */
#define CT_T_DEAD    0x2u  /* the thread has ended                          */
/* A context switch whose CONTEXT record the block could not hold: nothing
 * more goes into that block (a reader would put it on the stack of the
 * context left); the next block's mark names the context. */
#define CT_T_CTX_GAP 0x4u

/* ct_thread.seq: set once the exiting thread has taken the number of
 * this thread's last block (ct_threads_end_others): no block may follow
 * it, and the thread records nothing more. */
#define CT_SEQ_ENDED 0x80000000u

/* ct_thread.stop bits: any set sends every event to the slow path. */
#define CT_STOP_REGION 0x1u  /* inside CALLTRACE_OFF() ... CALLTRACE_ON()   */
#define CT_STOP_HIDDEN 0x2u  /* hidden frames are open                      */
#define CT_STOP_DEAD   0x4u
#define CT_STOP_FILTER 0x8u  /* record-time filters in force (filter.c)      */
/* The clock is CLOCK_MONOTONIC: the TSC hooks hand every event to their
 * monotonic twins (hot.c), so they need no test of the clock kind. */
#define CT_STOP_MONO   0x10u
/* The trace failed with its file still there: every event is counted as
 * lost (file.c, ct_fail). */
#define CT_STOP_FAILED 0x20u
/* A child made by clone(CLONE_VM) without a TLS of its own shares this
 * thread's TLS, so its ct_self too: while such children live every event
 * of both comes to the slow path, which records the owner's (by thread
 * id) and counts the others' lost (wrap_clone.c). */
#define CT_STOP_SHARED 0x40u

/* How one thread's on-CPU time is kept (cputime.c). */
struct ct_cpu {
    void *ring;             /* perf ring: header page + data, or NULL      */
    uint32_t ring_len;
    uint32_t mode;          /* CT_ONCPU_* for this thread                  */
    uint64_t out_ns;        /* switched out at (ns), no switch-in yet; 0   */
    uint32_t out_preempt;   /* that switch-out was a preemption            */
    uint64_t lost;          /* switch records lost, not yet told           */
};

struct ct_thread {
    /* Hot path fields: one cache line. */
    uint8_t *pos;           /* next record goes here                        */
    uint8_t *end;           /* a hot record may start below end: set with
                               ct_hot_end(limit of records), so the hook
                               compares without adding CT_REC_MAX_HOT     */
    uint64_t prev_ticks;
    uintptr_t prev_fn;
    uintptr_t prev_site;
    uint32_t depth;         /* frames open, hidden ones included            */
    uint32_t region;        /* CALLTRACE_OFF nesting                        */
    uint64_t expect;        /* ct_global_word when this thread last synced
                               and tracing was on; ~0 otherwise             */
    /* The hot path tests both words with one load of `gate`. */
    union {
        struct {
            uint32_t stop;          /* CT_STOP_*                            */
            volatile uint32_t busy; /* recursion guard                      */
        };
        uint64_t gate;
    };

    /* Slow path fields. */
    struct ct_block_header *blk;  /* current block, mapped, or NULL         */
    uint8_t *limit;               /* end of the current block               */
    uint32_t tid;
    uint32_t seq;                 /* number of the next block               */
    uint32_t flags;               /* CT_T_*                                 */
    uint32_t hidden_count;
    /* Frames entered while tracing was off and nothing was open: not on
     * the shadow stack at all, only counted, so a paused call costs next
     * to nothing (hot.c; once the thread's trace shows it paused,
     * last_on == 0); their exits come at depth 0 and are dropped. */
    uint64_t blind;
    uint64_t retry_at;    /* no block to be had until this tick (file.c)    */
    uint64_t seen_word;           /* ct_global_word last synced to          */
    int last_on;                  /* tracing state the trace last showed    */
    uint64_t lost_unrecorded;     /* lost, not yet in a LOST record         */
    uint64_t lost_pending;        /* lost during re-entry, not yet in blk   */
    struct ct_thread *next, *prev; /* registry of live threads              */
    struct ct_cpu cpu;            /* on-CPU records (cputime.c)             */
    void *filter;                 /* record-time filter state (filter.c)    */
    int32_t supply_slot;          /* supply.c: slot + 1, 0 none yet, -1 never */
    uint8_t *tstack_lo;           /* its tracer stack; NULL for a scratch one */
    uint32_t context;             /* the context (stack) the thread runs, 0
                                     its own; the shadow stack is its frames */
    void *contexts;               /* other contexts' frames (context.c)     */
    /* The last block the exiting thread wrote for this thread at a clean
     * close (thread.c, end_other), still mapped so the thread can move its
     * start past a record of its own written later. */
    struct ct_block_header *exit_blk;
    uint32_t sharers;     /* live CLONE_VM children sharing the TLS (atomic) */
    uint32_t vforked;     /* a vfork child may be running on this state     */

    uintptr_t stack[CT_MAX_DEPTH];         /* shadow stack of entered fns   */
    /* ~(caller stack pointer) at each frame's enter hook, one slot up:
     * sp_not[d + 1] is level d's, and the zero in sp_not[0] lets the
     * hook compare with the top without a test for depth 0 (jump.c). */
    uintptr_t sp_not[CT_MAX_DEPTH + 1];
    uint64_t hidden[CT_MAX_DEPTH / 64];    /* bit set: frame is hidden      */
} __attribute__((aligned(64)));

/* The `end` of a thread whose records must stay below lim: a record of
 * up to CT_REC_MAX_HOT bytes starting below it fits. */
static inline uint8_t *ct_hot_end(uint8_t *lim)
{
    return lim - (CT_REC_MAX_HOT - 1);
}

/* Where records must stop, from a thread's `end` (its inverse). */
static inline uint8_t *ct_room_end(const uint8_t *end)
{
    return (uint8_t *)end + (CT_REC_MAX_HOT - 1);
}

/* The caller stack pointer of level d's enter hook; levels deeper than
 * the shadow stack give the deepest kept one's. */
static inline uintptr_t ct_frame_sp(const struct ct_thread *t, uint32_t d)
{
    return ~t->sp_not[(d < CT_MAX_DEPTH ? d : CT_MAX_DEPTH - 1) + 1];
}

extern __thread struct ct_thread *ct_self
    __attribute__((tls_model("initial-exec")));

/*
 * Global switch read by the hot path: (generation << 1) | off.  Every
 * change bumps the generation, so a thread that compares its `expect` with
 * it notices any change (and then writes a TOGGLE record from its slow
 * path).  off is set while tracing is disabled, not yet started, or
 * stopped after a failure.
 */
extern uint64_t ct_global_word;

CT_API void __cyg_profile_func_enter(void *fn, void *site);
CT_API void __cyg_profile_func_exit(void *fn, void *site);
/* The enter hook for a frame whose caller's stack pointer is sp (a library
 * call recorded by plt.c). */
void ct_enter_at(void *fn, void *site, uintptr_t sp);

/* Slow paths of the hooks. */
void ct_enter_slow(uintptr_t fn, uintptr_t site, uintptr_t sp) CT_COLD;
void ct_exit_slow(uintptr_t fn, uintptr_t site) CT_COLD;

/* The calling thread's state, created on first use; NULL when it cannot
 * be created or the thread has ended. */
struct ct_thread *ct_thread_get(void);
/* The calling thread records nothing more, and makes no system call for
 * it (its events are counted lost, in memory): seccomp strict mode. */
void ct_thread_retire_current(void);

/* The tracer's own stack of each thread, in the mapping of its state:
 * [struct ct_thread][guard page][CT_TRACER_STACK].  The deep work (block
 * switch, a sample's stack walk) runs there, so the program's stack, or
 * its small signal stack, only holds the hooks' small frames
 * (docs/reliability.md, "The program's stack"). */
#define CT_TRACER_STACK (64u << 10)
/* Calls fn(arg) with the stack pointer at top (stack.S). */
void ct_stack_call(void (*fn)(void *), void *arg, void *top);
/* Calls fn(arg) on t's tracer stack, or where it is when already on it.
 * block: the signals that may come at any time are blocked meanwhile, so
 * that no handler of the program runs on the tracer's stack (faults stay
 * deliverable). */
void ct_deep_call(struct ct_thread *t, void (*fn)(void *), void *arg,
                  int block);

/*
 * Appends one EXT record to the calling thread's current block, opening a
 * block if needed.  Safe to call from a signal handler running on that
 * thread (e.g. a SIGPROF sampler writing CT_EXT_SAMPLE): when the handler
 * interrupted the tracer itself the recursion guard drops the record and
 * counts it as lost.  Returns 0 when written, -1 when dropped.
 */
int ct_tracer_append_ext(unsigned subtype, const void *payload, size_t len);

/* Ends now the calling thread's open frames, innermost first, as long as
 * left(frame's stack pointer at its enter hook, arg) holds (jump.c). */
void ct_leave_frames(int (*left)(uintptr_t sp, const void *arg),
                     const void *arg);

/* The calling thread goes over to context id (context.c): under the
 * slow path's guard, swap(t, id, arg) exchanges the shadow stack for
 * that context's, then a CONTEXT record lists its frames. */
void ct_thread_switch_context(uint32_t id,
                              void (*swap)(struct ct_thread *t, uint32_t id,
                                           void *arg),
                              void *arg);
/* A thread's state is going away: its saved contexts with it. */
void ct_context_thread_release(struct ct_thread *t);

/* The definition of name that a wrapper of the tracer's stands in front
 * of: RTLD_NEXT's, else the first loaded object's that is not the tracer
 * (a library dlopened RTLD_LOCAL), else NULL (next.c). */
void *ct_next_definition(const char *name);

/* The file the loader would open for dlopen(name) called from caller,
 * where that depends on the caller's DT_RUNPATH or DT_RPATH: a path to
 * give back with ct_runpath_free (NULL is fine).  NULL when name is a path,
 * is already loaded (as loaded(name, arg) tells), or the caller's own
 * search path does not hold it.  errno is kept by both (runpath.c). */
char *ct_runpath_resolve(const void *caller, const char *name,
                         int (*loaded)(const char *name, void *arg),
                         void *arg);
void ct_runpath_free(char *path);
/* One entry (len bytes) of a search path, $ORIGIN and ${ORIGIN} expanded,
 * "/name" appended, into out: 0, or -1 for an entry with another token
 * ($LIB, $PLATFORM), $ORIGIN unknown (origin ""), or no room. */
int ct_runpath_entry(const char *entry, size_t len, const char *origin,
                     const char *name, char *out, size_t cap);

/* Whether a C++ runtime (libstdc++, libc++) is loaded: what the tracer
 * would look up in one is not looked up otherwise, since a dlsym that fails
 * mallocs its error message (jump.c). */
int ct_cxx_runtime_loaded(void);

/* 0 when one of the two stack pointers is on the thread's alternate
 * signal stack and the other is not. */
int ct_same_stack(uintptr_t a, uintptr_t b);

/* Marks the file as holding stack samples taken every interval_ns
 * (sample.c, CALLTRACE_MODE=sample or both). */
void ct_tracer_set_sampled(uint64_t interval_ns);

/* Time since the thread's previous record, clamped so it never goes
 * back; advances prev_ticks. */
static inline uint64_t ct_tick_delta(struct ct_thread *t, uint64_t now)
{
    if (now < t->prev_ticks)
        now = t->prev_ticks;
    uint64_t d = now - t->prev_ticks;
    t->prev_ticks = now;
    return d;
}

/*
 * On-CPU records (cputime.c).  A thread gets a perf_event_open ring of its
 * context switches (CALLTRACE_CPUTIME=switch, the default) or, where that
 * is refused or CALLTRACE_CPUTIME=clock, reads its CPU-time clock at block
 * boundaries.  The records are written by the slow path only: at each
 * block's start, every CT_CPU_CHECK_BYTES of records (the hot path's
 * `end` is set that far ahead, so it comes to the slow path by itself),
 * and at the thread's end.
 */
#define CT_CPU_CHECK_BYTES (1u << 10)
void ct_cpu_thread_start(struct ct_thread *t);
/* Writes the thread's SWITCH or CPUTIME record at pos, using no more than
 * up to lim; force writes a SWITCH record even with nothing new. */
void ct_cpu_record(struct ct_thread *t, uint8_t *lim, int force);
/* Whether the ring has records not yet drained. */
int ct_cpu_pending(const struct ct_thread *t);
/* The thread ends (or a forked child drops its parent's ring). */
void ct_cpu_thread_release(struct ct_thread *t, int forked_child);
/* A forked child's new file header learns what its thread could open. */
void ct_cpu_header_after_fork(void);

/* For filter.c, inside a slow path: room for need bytes (0, or -1 when
 * no block can be had), the bytes left before the block's reserve, and
 * events lost. */
int ct_thread_room(struct ct_thread *t, size_t need);
size_t ct_thread_room_left(const struct ct_thread *t);
void ct_thread_count_lost(struct ct_thread *t, uint64_t n);

/* Region toggle (CALLTRACE_OFF/ON) for the calling thread. */
void ct_thread_region(int on);

/* Closes the calling thread's block (when the thread is not inside the
 * tracer), flushing lost counts; last marks the thread's end. */
void ct_thread_close_current(int last);
/* At a clean close: every other live thread gets a last block whose
 * THREAD_END, at the time of the exit, ends its open frames. */
void ct_threads_end_others(void);
/* After a failed exec: the threads ended for it record again. */
void ct_threads_resume_others(void);
/* pthread key destructor: the thread is ending. */
void ct_thread_key_dtor(void *arg);
/* In a forked child: forget the parent's blocks and other threads, keep
 * this thread's shadow stack. */
void ct_thread_after_fork_child(void);
/* In the fork handlers, registry locked: thread states kept in the child
 * (1) or wiped there, as they are otherwise (0). */
void ct_threads_fork_keep(int keep);
/* Execution contexts made by clone() (wrap_clone.c).  A CLONE_VM child
 * that shares the calling thread's TLS starts (begin) and ends (end); the
 * state of a child with memory of its own starts with no frame open
 * (fresh); a context the tracer cannot give a state of its own gets one
 * that counts its events lost (lost). */
void ct_thread_share_begin(struct ct_thread *t);
/* The same for a vfork child: over once the caller runs again. */
void ct_thread_vfork_begin(struct ct_thread *t);
void ct_thread_share_end(struct ct_thread *t);
void ct_thread_clone_fresh(void);
void ct_thread_set_lost(void);
/* Whether the calling context is another one sharing t (CT_STOP_SHARED):
 * a test of the stop word, a system call only while t is shared. */
int ct_thread_foreign_slow(const struct ct_thread *t);
static inline int ct_thread_foreign(const struct ct_thread *t)
{
    if (ct_likely(!(__atomic_load_n(&t->stop, __ATOMIC_RELAXED) &
                    CT_STOP_SHARED)))
        return 0;
    return ct_thread_foreign_slow(t);
}
void ct_threads_lock(void);
void ct_threads_unlock(void);

/* Re-reads ct_global_word after ct_enabled / ct_failed / ct_started moved. */
void ct_global_update(void);
extern int ct_enabled;   /* calltrace_enable/disable, CALLTRACE_SIGNAL      */

/*
 * Encoders shared by the hot path, the slow path and the tests.  The plain
 * varint loop is kept on purpose: its branches are predicted (deltas keep
 * their length), so the next store's address goes ahead without waiting
 * for the rdtsc result.  A branch-free two-byte encoder made every store
 * wait for the clock and cost 1.4 ns more per call; an unrolled one- and
 * two-byte version was no faster (bench/RESULTS-tracer.md).
 */
static inline __attribute__((always_inline)) uint8_t *
ct_enc_entry(uint8_t *p, uint64_t dt, uintptr_t fn, uintptr_t prev_fn,
             uintptr_t site, uintptr_t prev_site)
{
    p = ct_put_varint(p, ct_head(dt, CT_REC_ENTRY));
    p = ct_put_varint(p, ct_zigzag((int64_t)(fn - prev_fn)));
    return ct_put_varint(p, ct_zigzag((int64_t)(site - prev_site)));
}

static inline __attribute__((always_inline)) uint8_t *
ct_enc_exit(uint8_t *p, uint64_t dt)
{
    return ct_put_varint(p, ct_head(dt, CT_REC_EXIT));
}

static inline uint8_t *ct_enc_ext_head(uint8_t *p, uint64_t dt, uint8_t sub,
                                       size_t len)
{
    p = ct_put_varint(p, ct_head(dt, CT_REC_EXT));
    *p++ = sub;
    return ct_put_varint(p, len);
}

/* ------------------------------------------------------------------ file */

/* The fields every block header is begun with, in this order; the others
 * stay as they are: zero in a new block of the file, or cleared by the
 * caller. */
static inline void ct_block_begin(struct ct_block_header *b, uint16_t kind,
                                  uint32_t size, uint32_t tid, uint32_t seq,
                                  uint64_t first_ticks)
{
    b->magic = CT_BLOCK_MAGIC;
    b->kind = kind;
    b->header_size = CT_BLOCK_HEADER_SIZE;
    b->size = size;
    b->tid = tid;
    b->seq = seq;
    b->first_ticks = first_ticks;
}

struct ct_proc {
    struct ct_config cfg;
    int have_file;                /* the trace file exists and is ours      */
    int streaming;                /* blocks live in a window (stream.c)     */
    struct ct_file_header *hdr;   /* mapped, or NULL                        */
    char path[CT_PATH_MAX + 32];  /* the name, as messages show it          */
    /* The absolute name: a keeper started again after an exec that failed
     * opens the file by it and checks it is the same (keeper.c). */
    char reopen[CT_PATH_MAX + 4096 + 32];
    uint64_t dev, ino;
    uint64_t next_off;            /* next free offset (atomic)              */
    int count_after_failure;  /* see ct_fail                          */
    int gap_told;         /* said once: a block could not be had for now */
    int fsize_hit;        /* the file size limit (ulimit -f) refused a block */
    int fsize_told;
    uint32_t pid;
    int started;                  /* 0 no, 1 starting, 2 running            */
    int failed;
    int finished;
    int calls_off;                /* CALLTRACE_MODE=sample: no call records */
    int calls_ran;                /* an instrumented function was entered   */
    uint64_t sample_interval_ns;  /* 0 when not sampling                    */
    uint64_t lost;                /* process-wide lost events (atomic)      */
    uint32_t threads;             /* threads seen (atomic)                  */
    uint64_t bias_ps;             /* tracer cost of a call (bias.c)         */
    uint64_t bias_self_ps;        /* its part inside the callee's interval  */
    uint64_t bias_child_ps;       /* its part in the caller's self time     */
    uint64_t bias_spread_ps;      /* median - best round                    */
};

extern struct ct_proc ct_proc;

/* Creates the output file and maps its header; forked_child selects the
 * naming rule for a child.  Returns 0, or -1 after reporting the failure. */
int ct_file_open(int forked_child, uint32_t ppid);
/* The same, made at the first block asked for (file.c): 0. */
int ct_file_open_lazily(int forked_child, uint32_t ppid);
/* 1 while a file made lazily is yet to be made. */
int ct_file_pending(void);
/* Makes a file opened lazily now, if it is yet to be made. */
void ct_file_make(void);
/* Reserves and maps a block of size bytes.  Returns NULL when the size
 * limit is reached (*limit_hit = CT_BLOCK_LIMIT), when a block cannot be
 * had for now and is worth trying for again later (CT_BLOCK_RETRY: no free
 * descriptor, memory or disk space), or on failure (tracing is stopped). */
#define CT_BLOCK_LIMIT 1
#define CT_BLOCK_RETRY 2
void *ct_file_new_block(uint32_t size, int *limit_hit);
/* Reports a write failure once and stops tracing; the events after it are
 * counted lost where the file can hold the count (file.c). */
void ct_fail(const char *what, int err);
/* The same for a trace file that is gone: nothing is counted. */
void ct_fail_gone(const char *what);
/* A library call whose entry was counted lost after a failure: its return,
 * which no hook will see, is counted too (thread.c). */
void ct_count_unseen_exit(void);
/* Writes the closing fields of the file header. */
void ct_file_finish(int clean);
/* SIGBUS at info->si_addr: when it is in a mapping of the trace file, the
 * mapping is covered with anonymous memory, tracing stops with one line,
 * and 1 is returned (the faulting store completes when the handler
 * returns); 0 for any other fault, the program's to take. */
int ct_file_fault(const siginfo_t *info);
/* Forgets the parent's file in a forked child (no writes to it). */
void ct_file_drop(void);
/* One line on standard error, as long as descriptor 2 is still the file
 * it was when ct_message_start ran (the process's start); errno kept. */
void ct_message(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void ct_message_start(void);

/* One signal held (blocked) around a call of the tracer's that may raise
 * it at the calling thread, SIGXFSZ growing a file past the file size
 * limit or SIGPIPE writing to a reader that is gone: the call fails with
 * EFBIG or EPIPE instead of ending the program, and the signal it raised
 * is taken back, not one that was pending before (file.c). */
struct ct_signal_hold {
    sigset_t old;
    int sig;
    int was_pending;
};
void ct_signal_hold(struct ct_signal_hold *h, int sig);
void ct_signal_release(const struct ct_signal_hold *h);
void ct_count_lost_global(uint64_t n);
/* Writes a MAPS block (size bytes, header included) at the file's end:
 * never in the flight ring, so names always resolve.  0, or -1 with
 * *limit_hit set when the size limit refused it. */
int ct_file_write_maps_block(const void *block, uint32_t size, int *limit_hit);
/* Reserves [*off, *off + size) of the file unless that passes the size
 * limit (-1); atomic only.  ct_file_map_at grows the file over a reserved
 * range and maps it, or stops the trace and returns NULL.  Both are safe
 * in the block supplier's process. */
int ct_file_reserve(uint32_t size, uint64_t *off);
void *ct_file_map_at(uint64_t off, uint32_t size);

/* ---------------------------------------------------------------- flight */

/* CALLTRACE_FLIGHT (flight.c): EVENTS blocks go to a ring of fixed slots
 * right after the header; MAPS blocks after the ring. */
extern uint32_t ct_flight_slots;   /* 0: not a flight recorder */
/* After the header is mapped: lays out the ring. */
void ct_flight_setup(struct ct_file_header *h);
/* A free slot for a block of size bytes: its file offset in *off, the
 * slot emptied.  -1 when none can be had now (lost, counted). */
int ct_flight_reserve(uint32_t size, uint64_t *off);
/* Copies the trace as it is now to <trace>.snapN; the name in name.
 * Async-signal-safe.  0, or -1 with errno. */
int ct_flight_snapshot(char *name, size_t cap);
/* At start: the snapshot signal's handler (CALLTRACE_FLIGHT_SIGNAL). */
void ct_flight_start(void);
/* The program takes sig for itself: its handler wins. */

/* --------------------------------------------------------------- control */

/* CALLTRACE_CONTROL (control.c): the socket and its thread, at start, in
 * a forked child, and at the end. */
void ct_control_start(void);
void ct_control_after_fork(void);
void ct_control_stop(void);
/* The socket of process pid of user uid; -1 if it does not fit. */
int ct_control_path(char *dst, size_t cap, unsigned uid, unsigned pid);

/* ------------------------------------------------------------------ maps */

/* Collects loaded objects as MAPS entries into buf; returns bytes used. */
size_t ct_maps_collect(uint8_t *buf, size_t cap);
/* Writes a MAPS block with the objects loaded now. */
void ct_maps_write(void);
/* At close: only when objects were loaded or unloaded since the last. */
void ct_maps_write_if_changed(void);
/* After a dlclose (rc its result): a MAPS block without what it unloaded. */
void ct_maps_after_unload(int rc);

/* ------------------------------------------------------------- lifecycle */

/* Starts tracing: configuration, clock, file, MAPS, bias, handlers. */
void ct_process_start(void);
/* Clean close at exit: closes this thread's block, finalizes the header. */
void ct_process_finish(void);
/* Before exec: finalize the header; after a failed exec: resume. */
void ct_exec_prepare(void);
void ct_exec_failed(void);

/* ---------------------------------------------------------------- signals */

/* The program's view of the signals the tracer holds (signals.c). */
#define CT_SIG_CHAIN 1  /* the tracer's handler stays, calls the program's  */
#define CT_SIG_YIELD 2  /* the program's next disposition replaces ours     */
/* Called once, by the wrapper, when a YIELD slot gives the signal up. */
typedef void (*ct_sig_yield_fn)(int sig);
/* Installs ours for sig and keeps what was there as the program's. */
int ct_sig_take(int sig, const struct sigaction *ours, int mode,
                ct_sig_yield_fn on_yield);
/* CT_SIG_CHAIN or CT_SIG_YIELD while held, else 0. */
int ct_sig_held(int sig);
/* The program's disposition of a held signal (async-signal-safe). */
void ct_sig_program(int sig, struct sigaction *out);
/* Gives a held signal its program's disposition for real (from a handler
 * too): the tracer no longer holds it. */
void ct_sig_release(int sig);
/* Calls the program's handler of sig, if it has one, as the kernel would
 * (SA_SIGINFO or not, SA_RESETHAND). */
void ct_sig_chain(int sig, siginfo_t *info, void *ctx);
/* exec keeps SIG_IGN: the program's ignored signals are put back before an
 * exec, and taken again after a failed one. */
void ct_sig_before_exec(void);
void ct_sig_exec_failed(void);
/* libc's sigaction, bypassing the wrappers. */
int ct_sig_real(int sig, const struct sigaction *act, struct sigaction *old);
/* Resolves libc's sigaction ahead of any handler's need. */
void ct_sig_resolve(void);
/* clone() without CLONE_VM (wrap_clone.c): the fork handlers' work around
 * it, the child's run on the child's new stack. */
/* glibc's clone itself, past the wrapper: for the tracer's own processes. */
int ct_clone_real(int (*fn)(void *), void *stack, int flags, void *arg,
                  pid_t *ptid, void *tls, pid_t *ctid);
void ct_clone_prepare(void);
void ct_clone_parent(void);
void ct_clone_child(void);
/* Measures the cost of one traced call (enter + exit) in picoseconds and
 * its split (bias.c), into ct_proc.bias_*_ps. */
uint64_t ct_measure_bias(void);
/* Set by init.c: the first event may start the tracer lazily. */
extern const int ct_autostart __attribute__((weak));

#pragma GCC visibility pop

#endif /* CT_TRACER_H */
