/*
 * The output file.  Everything goes through MAP_SHARED mappings of it, so
 * what a thread has stored is in the page cache at once and survives a
 * crash or SIGKILL.  Blocks are reserved with an atomic add on the next
 * free offset; the file keeper (keeper.c) grows the file over a block,
 * with fallocate, which also guarantees the disk blocks, or zeros written
 * where fallocate is unsupported, and maps it.
 *
 * No descriptor of the file is ever in the program's table: a program may
 * close, dup2 over or reuse any number at any moment, from any thread, so
 * a number of the tracer's there could name the program's own file by the
 * time it is used.  The keeper holds the one descriptor, in a table of its
 * own, from the file's creation to the trace's end (docs/tracer.md).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "preload/file/cmdline.h"
#include "preload/file/keeper.h"
#include "preload/patch/patch.h"
#include "preload/profile/profile_mode.h"
#include "preload/base/rawsys.h"
#include "preload/stream/stream.h"
#include "preload/stream/supply.h"
#include "preload/tracer.h"

struct ct_proc ct_proc;

/* The standard error the process started with.  A program may close
 * descriptor 2 and open a file of its own in its place (a daemon's log, a
 * data file): the tracer's lines must not land there.  So it speaks only
 * while descriptor 2 is still the file it was at start. */
static struct {
    int known;            /* 0 until the process's start (unit tests)     */
    int open;
    dev_t dev;
    ino_t ino;
} stderr_at_start;

void ct_message_start(void)
{
    struct stat st;
    int saved = errno;
    stderr_at_start.open = fstat(2, &st) == 0;
    if (stderr_at_start.open) {
        stderr_at_start.dev = st.st_dev;
        stderr_at_start.ino = st.st_ino;
    }
    stderr_at_start.known = 1;
    errno = saved;
}

static int stderr_unchanged(void)
{
    struct stat st;
    if (!stderr_at_start.known)
        return 1;
    return stderr_at_start.open && fstat(2, &st) == 0 &&
           st.st_dev == stderr_at_start.dev && st.st_ino == stderr_at_start.ino;
}

void ct_signal_hold(struct ct_signal_hold *h, int sig)
{
    sigset_t one, pending;
    sigemptyset(&one);
    sigaddset(&one, sig);
    h->sig = sig;
    pthread_sigmask(SIG_BLOCK, &one, &h->old);
    h->was_pending = sigpending(&pending) == 0 && sigismember(&pending, sig);
}

void ct_signal_release(const struct ct_signal_hold *h)
{
    sigset_t one, pending;
    sigemptyset(&one);
    sigaddset(&one, h->sig);
    int saved = errno;
    if (!h->was_pending && sigpending(&pending) == 0 &&
        sigismember(&pending, h->sig)) {
        struct timespec zero = {0, 0};
        sigtimedwait(&one, NULL, &zero);
    }
    pthread_sigmask(SIG_SETMASK, &h->old, NULL);
    errno = saved;
}

/* One write, so the line stays whole among the program's own output.  A
 * standard error whose reader is gone (`prog 2>&1 | head -1`) must not
 * raise SIGPIPE, which would end a program that never writes there
 * itself. */
static void write_unsignalled(const char *line, size_t n)
{
    struct ct_signal_hold h;
    ct_signal_hold(&h, SIGPIPE);
    ssize_t w = write(2, line, n);
    (void)w;
    ct_signal_release(&h);
}

void ct_message(const char *fmt, ...)
{
    if (ct_proc.cfg.quiet)
        return;
    int saved = errno;
    if (!stderr_unchanged()) {
        errno = saved;
        return;
    }
    char line[CT_PATH_MAX + 256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line - 1, fmt, ap);
    va_end(ap);
    if (n < 0) {
        errno = saved;
        return;
    }
    if ((size_t)n > sizeof line - 2)
        n = sizeof line - 2;
    line[n++] = '\n';
    write_unsignalled(line, (size_t)n);
    errno = saved;
}

void ct_count_lost_global(uint64_t n)
{
    __atomic_fetch_add(&ct_proc.lost, n, __ATOMIC_RELAXED);
}

/*
 * A trace that stops early keeps a count of what it did not record: when
 * its file is still there with a header to hold the count (a full disk,
 * the file size limit, no descriptor or mapping to be had), every event
 * the program makes from then on, while tracing is on, goes to the slow
 * path (CT_STOP_FAILED) and is counted lost, written to the header at the
 * end.  Where no file will show it (none was made, it was removed or
 * replaced, or the stream's listener is gone), tracing turns off instead,
 * as paused, at next to no cost.
 */
static void fail(const char *what, int err, int gone, int hdr_ok)
{
    if (__atomic_exchange_n(&ct_proc.failed, 1, __ATOMIC_ACQ_REL))
        return;
    int saved = errno;
    ct_message("calltrace: cannot write trace to %s: %s%s%s; tracing stopped",
               ct_proc.path[0] ? ct_proc.path : ct_proc.cfg.output,
               what, err ? ": " : "", err ? strerror(err) : "");
    if (ct_proc.hdr && hdr_ok)
        __atomic_fetch_or(&ct_proc.hdr->flags, CT_FILE_FAILED, __ATOMIC_RELAXED);
    if (ct_proc.hdr && !gone && !ct_proc.streaming) {
        __atomic_store_n(&ct_proc.count_after_failure, 1, __ATOMIC_RELEASE);
        /* A new generation sends every thread to its slow path once,
         * where its stop bits pick up CT_STOP_FAILED. */
        __atomic_fetch_add(&ct_global_word, 2, __ATOMIC_RELEASE);
    } else {
        ct_global_update();
    }
    errno = saved;
}

void ct_fail(const char *what, int err)
{
    fail(what, err, 0, 1);
}

void ct_fail_gone(const char *what)
{
    fail(what, 0, 1, 1);
}

/*
 * The process's file size limit (RLIMIT_FSIZE, `ulimit -f`): a write or
 * an extension past it raises SIGXFSZ, whose default action ends the
 * program.  The trace stops short of it, as at CALLTRACE_LIMIT; the file
 * keeper, which grows the file, has every signal blocked, so a limit
 * lowered under the tracer's feet fails the call with EFBIG instead.
 */
static uint64_t fsize_limit(void)
{
    struct rlimit rl;
    if (ct_rsys(SYS_prlimit64, 0, RLIMIT_FSIZE, 0, (long)&rl, 0, 0) != 0 ||
        rl.rlim_cur == RLIM_INFINITY)
        return 0;
    return (uint64_t)rl.rlim_cur;
}

/*
 * A new block that cannot be had for now: no keeper to be had (the
 * process limit), no memory or address space to map
 * it, no disk space or quota left.  Those pass: the tracer says so once,
 * the thread's events are counted lost, and it tries again a little later
 * (thread.c), so the trace has a gap instead of an end.  The range
 * reserved for the block is given back (new_block), or, when another was
 * reserved after it, stays a hole of zeros, which readers skip.
 */
static int passing(int err)
{
    return err == EMFILE || err == ENFILE || err == ENOMEM ||
           err == EAGAIN || err == ENOSPC || err == EDQUOT;
}

/* Trouble with the file: one that passes is said once and sets *retry,
 * when the caller can try again (retry not NULL); any other stops the
 * trace. */
static void trouble(const char *what, int err, int *retry)
{
    if (retry && passing(err)) {
        if (!__atomic_exchange_n(&ct_proc.gap_told, 1, __ATOMIC_ACQ_REL))
            ct_message("calltrace: cannot add to the trace %s: %s: %s; "
                       "events are counted lost until it can", ct_proc.path,
                       what, strerror(err));
        *retry = 1;
    } else {
        ct_fail(what, err);
    }
}

/*
 * What the keeper answered, said: 0 when the request was served.  A file
 * that lost its name or was truncated by someone else stops tracing (the
 * trace is never written anywhere else); a closed trace (the process is
 * ending) drops the block without a word.
 */
static int keeper_trouble(const char *what, int err, int *retry)
{
    if (!err)
        return 0;
    if (err == CT_KEEPER_REMOVED)
        ct_fail_gone("the file was removed or replaced");
    else if (err == CT_KEEPER_TRUNCATED)
        ct_fail_gone("the file was truncated by another program");
    else if (err == CT_KEEPER_CLOSED && retry)
        *retry = 1;
    else if (err != CT_KEEPER_CLOSED)
        trouble(what, err, retry);
    return -1;
}

/*
 * A SIGBUS in one of the trace's own mappings: the storage under it is
 * gone (someone truncated the file, `: > t.raw` or logrotate's
 * copytruncate; an I/O error).  The mapping, found in /proc/self/maps by
 * the file's device and inode, is covered with anonymous memory, so the
 * store that faulted completes harmlessly when the handler returns, and
 * tracing stops with one line; nothing can be counted in a file that lost
 * its pages.  Async-signal-safe but for the line (as every crash path's).
 */

/* One line's address range, device and inode; 0 on a line it can read. */
static int parse_maps_line(const char *l, uintptr_t *lo, uintptr_t *hi,
                           unsigned *maj, unsigned *min, uint64_t *ino)
{
    char *e;
    *lo = strtoul(l, &e, 16);
    if (*e != '-')
        return -1;
    *hi = strtoul(e + 1, &e, 16);
    for (int field = 0; field < 2; field++) {  /* perms, offset */
        while (*e == ' ')
            e++;
        while (*e && *e != ' ')
            e++;
    }
    *maj = (unsigned)strtoul(e, &e, 16);
    if (*e != ':')
        return -1;
    *min = (unsigned)strtoul(e + 1, &e, 16);
    *ino = strtoull(e, &e, 10);
    return 0;
}

/* A mapping's identity as /proc/self/maps shows it.  Not the file's
 * st_dev: on btrfs (a subvolume's own device number) and overlayfs (the
 * mapping is of the file underneath) stat and the maps differ.  So the
 * trace's identity is learned from the maps themselves, from the line of
 * the header's mapping (ours, mapped from the file while tracing), and
 * kept: a header covered by an earlier fault reads as anonymous.  Kept
 * with the file's numbers it belongs to: a forked child has a file of its
 * own. */
struct maps_id {
    unsigned maj, min;
    uint64_t ino;
};
static struct maps_id trace_id;
static uint64_t trace_id_dev, trace_id_ino;
static int trace_id_set;

static int trace_id_known(void)
{
    return __atomic_load_n(&trace_id_set, __ATOMIC_ACQUIRE) &&
           trace_id_dev == ct_proc.dev && trace_id_ino == ct_proc.ino;
}

static int same_id(const struct maps_id *a, const struct maps_id *b)
{
    return a->maj == b->maj && a->min == b->min && a->ino == b->ino;
}

/* What the maps line of addr is: 0 the trace's, 1 anonymous, -1 neither
 * (or no line). */
static int classify(const struct maps_id *at, int have_hdr_line,
                    const struct maps_id *hdr)
{
    if (!trace_id_known() && have_hdr_line && hdr->ino) {
        __atomic_store_n(&trace_id_set, 0, __ATOMIC_RELEASE);
        trace_id = *hdr;
        trace_id_dev = ct_proc.dev;
        trace_id_ino = ct_proc.ino;
        __atomic_store_n(&trace_id_set, 1, __ATOMIC_RELEASE);
    }
    if (!at->ino && !at->maj && !at->min)
        return 1;
    if (trace_id_known())
        return same_id(at, &trace_id) ? 0 : -1;
    /* No header to learn from: the file's own numbers. */
    return at->ino == ct_proc.ino && at->maj == major(ct_proc.dev) &&
           at->min == minor(ct_proc.dev) ? 0 : -1;
}

/* The range of the trace's mapping that holds addr: 0, 1 when addr is in
 * anonymous memory, or -1 when addr is in no mapping of the trace file. */
static int trace_mapping_at(uintptr_t addr, uintptr_t *lo, uintptr_t *hi)
{
    long fd = ct_rsys(SYS_open, (long)"/proc/self/maps", O_RDONLY | O_CLOEXEC,
                      0, 0, 0, 0);
    if (fd < 0)
        return -1;
    uintptr_t hdr = (uintptr_t)ct_proc.hdr;
    char buf[512], line[160];
    size_t have = 0;
    int found = 0, found_hdr = !hdr || trace_id_known(), eof = 0;
    struct maps_id at = {0, 0, 0}, hid = {0, 0, 0};
    while (!(found && found_hdr) && !eof) {
        long n = ct_rsys(SYS_read, fd, (long)buf, sizeof buf, 0, 0, 0);
        eof = n <= 0;
        for (long i = 0; i < (eof ? 1 : n) && !(found && found_hdr); i++) {
            char c = eof ? '\n' : buf[i];
            if (c != '\n') {
                if (have < sizeof line - 1)
                    line[have++] = c;
                continue;
            }
            line[have] = '\0';
            have = 0;
            uintptr_t l, h;
            struct maps_id id;
            if (parse_maps_line(line, &l, &h, &id.maj, &id.min, &id.ino) != 0)
                continue;
            if (!found && addr >= l && addr < h) {
                found = 1;
                at = id;
                *lo = l;
                *hi = h;
            }
            if (!found_hdr && hdr >= l && hdr < h) {
                found_hdr = 2;
                hid = id;
            }
        }
    }
    ct_rsys(SYS_close, fd, 0, 0, 0, 0, 0);
    return found ? classify(&at, found_hdr == 2, &hid) : -1;
}

/* Ranges covered so far: a second thread that faulted in the same mapping
 * (the header is every thread's) before the first covered it finds
 * anonymous memory there by the time it looks, and only has to retry. */
#define COVERED_MAX 64u
static struct {
    uintptr_t lo, hi;
} covered[COVERED_MAX];
static unsigned ncovered;

static int was_covered(uintptr_t addr)
{
    unsigned n = __atomic_load_n(&ncovered, __ATOMIC_ACQUIRE);
    for (unsigned i = 0; i < n && i < COVERED_MAX; i++)
        if (addr >= __atomic_load_n(&covered[i].lo, __ATOMIC_ACQUIRE) &&
            addr < __atomic_load_n(&covered[i].hi, __ATOMIC_ACQUIRE))
            return 1;
    return 0;
}

static void note_covered(uintptr_t lo, uintptr_t hi)
{
    unsigned i = __atomic_load_n(&ncovered, __ATOMIC_RELAXED);
    if (i >= COVERED_MAX)
        return;
    i = __atomic_fetch_add(&ncovered, 1, __ATOMIC_ACQ_REL);
    if (i >= COVERED_MAX)
        return;
    __atomic_store_n(&covered[i].hi, 0, __ATOMIC_RELEASE);
    __atomic_store_n(&covered[i].lo, lo, __ATOMIC_RELEASE);
    __atomic_store_n(&covered[i].hi, hi, __ATOMIC_RELEASE);
}

int ct_file_fault(const siginfo_t *info)
{
    if (!ct_proc.have_file || ct_proc.streaming || !info ||
        info->si_code != BUS_ADRERR)
        return 0;
    uintptr_t lo, hi, addr = (uintptr_t)info->si_addr;
    int at = trace_mapping_at(addr, &lo, &hi);
    if (at == 1 && was_covered(addr))
        return 1;  /* covered by another thread meanwhile: the store retries */
    if (at != 0)
        return 0;
    /* Noted before it is covered: a thread that faulted in the same range
     * and reads the maps once this mmap is done must find it noted, or it
     * would take the anonymous memory for the program's and hand the
     * program its SIGBUS. */
    note_covered(lo, hi);
    long p = ct_rsys(SYS_mmap, (long)lo, (long)(hi - lo),
                     PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    if (p != (long)lo)
        return 0;
    /* The header may have lost its page too: a fault in this handler
     * would end the program.  It is covered when it faults in its turn. */
    fail("the file lost the storage under its mapping (truncated by "
         "another program, or an I/O error)", 0, 1, 0);
    return 1;
}

/* Reserves [off, off + size) unless that passes the size limit.  Atomic
 * only: the block supplier calls it too (supply.c). */
int ct_file_reserve(uint32_t size, uint64_t *off)
{
    uint64_t cur = __atomic_load_n(&ct_proc.next_off, __ATOMIC_RELAXED);
    /* The header (offset 0) is never counted out; past a file size limit
     * smaller than it, the file cannot be made (EFBIG). */
    uint64_t limit = ct_proc.cfg.limit, fsize = cur ? fsize_limit() : 0;
    if (fsize && (!limit || fsize < limit) && !ct_proc.streaming)
        limit = fsize;
    do {
        if (limit && cur + size > limit) {
            if (limit != ct_proc.cfg.limit)
                __atomic_store_n(&ct_proc.fsize_hit, 1, __ATOMIC_RELAXED);
            return -1;
        }
    } while (!__atomic_compare_exchange_n(&ct_proc.next_off, &cur, cur + size,
                                          1, __ATOMIC_RELAXED,
                                          __ATOMIC_RELAXED));
    *off = cur;
    return 0;
}

/* retry (may be NULL): set instead of failing when the trouble passes. */
static void *map_at(uint64_t off, uint32_t size, int *retry)
{
    int saved = errno;
    void *p = NULL;
    if (keeper_trouble("cannot extend or map the file",
                       ct_keeper_map(off, size, &p), retry))
        p = NULL;
    errno = saved;
    return p;
}

void *ct_file_map_at(uint64_t off, uint32_t size)
{
    return map_at(off, size, NULL);
}

static void tell_fsize(void)
{
    if (__atomic_load_n(&ct_proc.fsize_hit, __ATOMIC_RELAXED) &&
        !__atomic_exchange_n(&ct_proc.fsize_told, 1, __ATOMIC_ACQ_REL))
        ct_message("calltrace: the trace reached the process's file size "
                   "limit (ulimit -f, %llu bytes): later events are counted "
                   "as lost", (unsigned long long)fsize_limit());
}

/*
 * The file is made at the first event, or when instrumented code first
 * runs (even paused), not at the start: a process that runs no
 * instrumented code and records nothing (a shell, `ls`, any helper under
 * an inherited LD_PRELOAD) leaves no file and says nothing.
 * The first thread that needs a block makes it; one that needs a block
 * meanwhile waits for it (bounded), and a signal handler that interrupts
 * the making on the same thread gets none (its events counted lost).
 */
static struct {
    int state;            /* 0 none, 1 to be made, 2 being made, 3 done    */
    int forked_child;
    uint32_t ppid;
    uint32_t maker;       /* the tid making it                            */
    /* The process's start, which the header tells, as if made then. */
    uint64_t start_ticks, start_realtime_ns, start_monotonic_ns;
} lazy;

int ct_file_open_lazily(int forked_child, uint32_t ppid)
{
    ct_proc.path[0] = '\0';
    ct_proc.streaming = 0;
    lazy.forked_child = forked_child;
    lazy.ppid = ppid;
    lazy.start_ticks = ct_now();
    lazy.start_realtime_ns = ct_realtime_ns();
    lazy.start_monotonic_ns = ct_mono_ns();
    __atomic_store_n(&lazy.state, 1, __ATOMIC_RELEASE);
    return 0;
}

int ct_file_pending(void)
{
    return __atomic_load_n(&lazy.state, __ATOMIC_ACQUIRE) == 1;
}

void ct_file_make(void)
{
    int st = __atomic_load_n(&lazy.state, __ATOMIC_ACQUIRE);
    if (st == 0 || st == 3)
        return;
    /* A vfork child shares the parent's memory but is not its process:
     * the file is the parent's to make. */
    if ((uint32_t)ct_rsys(SYS_getpid, 0, 0, 0, 0, 0, 0) != ct_proc.pid)
        return;
    uint32_t self = (uint32_t)ct_rsys(SYS_gettid, 0, 0, 0, 0, 0, 0);
    if (st == 1 && __atomic_compare_exchange_n(&lazy.state, &st, 2, 0,
                                               __ATOMIC_ACQ_REL,
                                               __ATOMIC_ACQUIRE)) {
        lazy.maker = self;
        int saved = errno;
        int ok = ct_file_open(lazy.forked_child, lazy.ppid) == 0;
        if (ok)
            __atomic_store_n(&ct_proc.hdr->tick_hz, ct_clock.tick_hz,
                             __ATOMIC_RELAXED);
        __atomic_store_n(&lazy.state, 3, __ATOMIC_RELEASE);
        if (ok) {
            ct_maps_write();
            ct_cpu_header_after_fork();  /* the on-CPU mode, known by now */
        }
        errno = saved;
        return;
    }
    if (lazy.maker == self)
        return;  /* a handler that interrupted the making */
    struct timespec nap = {0, 100000};
    for (int i = 0; i < 50000 &&
                    __atomic_load_n(&lazy.state, __ATOMIC_ACQUIRE) == 2; i++)
        ct_rsys(SYS_nanosleep, (long)&nap, 0, 0, 0, 0, 0);
}

static void *new_block(uint32_t size, int *limit_hit, int in_ring)
{
    *limit_hit = 0;
    if (!ct_proc.have_file)
        ct_file_make();
    if (!ct_proc.have_file || ct_proc.failed)
        return NULL;
    uint64_t off;
    if (in_ring && ct_flight_slots) {
        int rc = ct_flight_reserve(size, &off);
        if (rc < 0) {
            *limit_hit = rc == -2 ? CT_BLOCK_RING_FULL : CT_BLOCK_RETRY;
            return NULL;
        }
    } else if (ct_file_reserve(size, &off) < 0) {
        *limit_hit = CT_BLOCK_LIMIT;
        tell_fsize();
        return NULL;
    }
    if (ct_proc.streaming)
        return ct_stream_block(off, size);
    int retry = 0;
    void *p = map_at(off, size, &retry);
    if (!p && retry) {
        *limit_hit = CT_BLOCK_RETRY;
        /* Given back when nothing was reserved after it, so that retries
         * every 10 ms through a long spell do not leave a hole each. */
        uint64_t end = off + size;
        __atomic_compare_exchange_n(&ct_proc.next_off, &end, off, 0,
                                    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
    }
    return p;
}

void *ct_file_new_block(uint32_t size, int *limit_hit)
{
    return new_block(size, limit_hit, 1);
}

/* Written whole with pwrite rather than through a mapping: a MAPS block is
 * written once, and mapping it, faulting its pages in and unmapping it
 * cost each process about 0.1 ms at start in a VM whose page faults are
 * dear (bench/RESULTS-tracer.md, "Start-up").  A stream's blocks are
 * mappings of its window whatever they hold. */
int ct_file_write_maps_block(const void *block, uint32_t size, int *limit_hit)
{
    *limit_hit = 0;
    if (!ct_proc.have_file)
        ct_file_make();
    if (!ct_proc.have_file || ct_proc.failed)
        return -1;
    if (ct_proc.streaming) {
        void *p = new_block(size, limit_hit, 0);
        if (!p)
            return -1;
        memcpy(p, block, size);
        munmap(p, size);
        return 0;
    }
    uint64_t off;
    if (ct_file_reserve(size, &off) < 0) {
        *limit_hit = CT_BLOCK_LIMIT;
        tell_fsize();
        return -1;
    }
    int saved = errno, retry = 0;  /* a MAPS block not written is tried again */
    int rc = keeper_trouble("cannot write the file",
                            ct_keeper_write(block, off, size), &retry);
    errno = saved;
    return rc;
}

/* Created by the keeper, which keeps it open: 0 or an errno value. */
static int create_unique(const char *base)
{
    snprintf(ct_proc.path, sizeof ct_proc.path, "%s", base);
    for (int i = 1; i < 10000; i++) {
        int err = ct_keeper_create(ct_proc.path, &ct_proc.dev, &ct_proc.ino);
        if (err != EEXIST)
            return err;
        int n = snprintf(ct_proc.path, sizeof ct_proc.path, "%s.%d", base, i);
        if (n < 0 || (size_t)n >= sizeof ct_proc.path)
            return ENAMETOOLONG;
    }
    return EEXIST;
}

/* The file's name as seen from any working directory: the program may
 * chdir. */
static int absolute_name(char *dst, size_t cap, const char *name)
{
    if (name[0] == '/') {
        if (strlen(name) >= cap) {
            errno = ENAMETOOLONG;
            return -1;
        }
        strcpy(dst, name);
        return 0;
    }
    if (!getcwd(dst, cap))
        return -1;
    size_t n = strlen(dst);
    int w = snprintf(dst + n, cap - n, "%s%s",
                     n && dst[n - 1] == '/' ? "" : "/", name);
    if (w < 0 || (size_t)w >= cap - n) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return 0;
}

/* The settings the trace was made with, for `calltrace info`: the
 * CALLTRACE_* entries of the environment at start, whole ones that fit. */
static void put_settings(char *dst, size_t cap)
{
    size_t used = 0;
    for (size_t i = 0; i < ct_env_count(); i++) {
        const char *e = ct_env_entry(i);
        size_t len = strlen(e);
        if (used + len + 1 >= cap)
            continue;
        memcpy(dst + used, e, len);
        used += len;
        dst[used++] = '\n';
    }
    dst[used] = '\0';
}

static void fill_header(struct ct_file_header *h, uint32_t ppid)
{
    memcpy(h->magic, CT_FILE_MAGIC, CT_FILE_MAGIC_LEN);
    h->version = CT_FORMAT_VERSION;
    h->header_size = CT_FILE_HEADER_SIZE;
    h->flags = (ct_proc.calls_off ? 0 : CT_FILE_CALLS) | CT_FILE_HEAD_PREFIX |
               (ct_profile_stop ? CT_FILE_PROFILE : 0);
    if (ct_patch_active)
        h->flags |= CT_FILE_PATCHED;
    if (ct_clock_fenced)
        h->flags |= CT_FILE_FENCED;
    if (ct_proc.sample_interval_ns) {
        h->flags |= CT_FILE_SAMPLED;
        h->sample_interval_ns = ct_proc.sample_interval_ns;
    }
    h->clock = ct_clock.kind;
    h->pid = ct_proc.pid;
    h->ppid = ppid;
    h->tick_hz = ct_clock.tick_hz;
    h->start_ticks = ct_now();
    h->start_realtime_ns = ct_realtime_ns();
    h->start_monotonic_ns = ct_mono_ns();
    if (lazy.state) {
        h->start_ticks = lazy.start_ticks;
        h->start_realtime_ns = lazy.start_realtime_ns;
        h->start_monotonic_ns = lazy.start_monotonic_ns;
    }
    h->bias_ps = ct_proc.bias_ps;
    h->bias_self_ps = ct_proc.bias_self_ps;
    h->bias_child_ps = ct_proc.bias_child_ps;
    h->bias_spread_ps = ct_proc.bias_spread_ps;
    h->bias_lib_ps = ct_proc.bias_lib_ps;
    h->bias_lib_self_ps = ct_proc.bias_lib_self_ps;
    h->block_size = ct_proc.cfg.bufsize;
    ssize_t n = readlink("/proc/self/exe", h->exe, sizeof h->exe - 1);
    h->exe[n > 0 ? n : 0] = '\0';
    ct_file_cmdline(h->cmdline, sizeof h->cmdline);
    put_settings(h->settings, sizeof h->settings);
}

static const char *file_kind(mode_t mode)
{
    switch (mode & S_IFMT) {
    case S_IFCHR: return "a character device";
    case S_IFBLK: return "a block device";
    case S_IFIFO: return "a FIFO";
    case S_IFSOCK: return "a socket";
    default: return "not a regular file";
    }
}

/*
 * The trace is a mapped file, so a name that is a device, FIFO or socket
 * stops tracing (nothing is created beside it: /dev/null never becomes
 * /dev/null.1); a directory receives the default name inside it.
 */
static int place_in_directory(char *name, size_t cap, int forked_child)
{
    struct stat st;
    if (stat(name, &st) != 0 || S_ISREG(st.st_mode))
        return 0;
    if (!S_ISDIR(st.st_mode)) {
        char what[64];
        snprintf(what, sizeof what, "it is %s, not a regular file",
                 file_kind(st.st_mode));
        snprintf(ct_proc.path, sizeof ct_proc.path, "%s", name);
        ct_fail(what, 0);
        return -1;
    }
    size_t n = strlen(name);
    if (n && name[n - 1] != '/' && n + 1 < cap) {
        name[n++] = '/';
        name[n] = '\0';
    }
    if (ct_output_name(name + n, cap - n, CT_DEFAULT_OUTPUT, ct_proc.pid,
                       forked_child) < 0) {
        snprintf(ct_proc.path, sizeof ct_proc.path, "%s", name);
        ct_fail("the name is too long", 0);
        return -1;
    }
    return 0;
}

int ct_file_open(int forked_child, uint32_t ppid)
{
    char name[CT_PATH_MAX + 32];
    ct_proc.path[0] = '\0';
    ct_proc.streaming = 0;
    if (ct_stream_wanted(ct_proc.cfg.output))
        return ct_stream_open(ppid);
    if (ct_output_name(name, sizeof name, ct_proc.cfg.output, ct_proc.pid,
                       forked_child) < 0) {
        snprintf(ct_proc.path, sizeof ct_proc.path, "%s", ct_proc.cfg.output);
        ct_fail("the name is too long", 0);
        return -1;
    }
    if (place_in_directory(name, sizeof name, forked_child) < 0)
        return -1;
    int err = create_unique(name);
    if (err) {
        if (err != ENAMETOOLONG && err != EEXIST)
            snprintf(ct_proc.path, sizeof ct_proc.path, "%s", name);
        ct_fail("cannot create the file", err);
        return -1;
    }
    if (absolute_name(ct_proc.reopen, sizeof ct_proc.reopen, ct_proc.path) < 0) {
        ct_fail("cannot name the file by an absolute path", errno);
        return -1;
    }
    ct_proc.have_file = 1;
    ct_proc.next_off = 0;
    return ct_file_map_header(ppid);
}

int ct_file_map_header(uint32_t ppid)
{
    int limit_hit;
    uint64_t limit = ct_proc.cfg.limit;
    ct_proc.cfg.limit = 0;  /* the header is never counted out */
    struct ct_file_header *h = new_block(CT_FILE_HEADER_SIZE, &limit_hit,
                                         0);
    ct_proc.cfg.limit = limit;
    if (!h)
        return -1;
    ct_proc.hdr = h;
    fill_header(h, ppid);
    ct_flight_setup(h);
    return 0;
}

void ct_file_finish(int clean)
{
    struct ct_file_header *h = ct_proc.hdr;
    if (!h)
        return;
    h->threads = __atomic_load_n(&ct_proc.threads, __ATOMIC_RELAXED);
    h->lost = __atomic_load_n(&ct_proc.lost, __ATOMIC_RELAXED);
    if (!clean) {
        ct_clock_checkpoint();  /* a crash keeps the rate over its run */
        return;
    }
    ct_supply_stop();
    uint64_t end_ticks = ct_now();
    uint64_t end_mono = ct_mono_ns();
    ct_clock_refine(end_ticks, end_mono);
    /* threads at a block switch refine the rate too (clock.c) */
    __atomic_store_n(&h->tick_hz,
                     __atomic_load_n(&ct_clock.tick_hz, __ATOMIC_RELAXED),
                     __ATOMIC_RELAXED);
    h->end_ticks = end_ticks;
    h->end_monotonic_ns = end_mono;
    __atomic_fetch_or(&h->flags, CT_FILE_FINISHED, __ATOMIC_RELEASE);
    if (ct_proc.streaming)
        ct_stream_block(0, 0);  /* a message from the sender, if any */
}

void ct_file_drop(void)
{
    lazy.state = 0;
    ct_keeper_after_fork_child();
    if (ct_proc.hdr)
        munmap(ct_proc.hdr, CT_FILE_HEADER_SIZE);
    ct_proc.hdr = NULL;
    ct_proc.have_file = 0;
    ct_proc.path[0] = '\0';
    ct_proc.lost = 0;
    ct_proc.threads = 0;
    ct_proc.failed = 0;
}

void ct_tracer_set_sampled(uint64_t interval_ns)
{
    ct_proc.sample_interval_ns = interval_ns;
    if (ct_proc.hdr) {
        ct_proc.hdr->sample_interval_ns = interval_ns;
        __atomic_fetch_or(&ct_proc.hdr->flags, CT_FILE_SAMPLED,
                          __ATOMIC_RELAXED);
    }
}
