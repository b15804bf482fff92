/*
 * The tracer's share of the address space under RLIMIT_AS (budget.h).
 * What the limit leaves is read at each ask: the limit (the program may
 * change it) less the process's size now (/proc/self/statm, the same
 * total_vm the kernel compares with the limit).  The tracer may hold an
 * eighth of what is left beside the program, as the stream window does
 * (stream.c), so the program keeps seven eighths of the room it had.
 */
#include <fcntl.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload/base/budget.h"
#include "preload/base/rawsys.h"
#include "preload/tracer.h"

#define PAGE 4096u
/* The tracer's share of the room: 1 / SHARE. */
#define SHARE 8u
#define RETRY_NS 10000000u  /* 10 ms */

static uint64_t used;   /* atomic */
static int told;        /* atomic */
static __thread uint64_t retry_at __attribute__((tls_model("initial-exec")));

/* The soft RLIMIT_AS in bytes, 0 for none. */
static uint64_t as_limit(void)
{
    struct rlimit r;
    if (ct_rsys(SYS_prlimit64, 0, RLIMIT_AS, 0, (long)&r, 0, 0) != 0 ||
        r.rlim_cur == RLIM_INFINITY)
        return 0;
    return r.rlim_cur;
}

/* The process's size in bytes (VmSize), 0 when it cannot be read (no
 * /proc, no descriptor free).  Raw calls: errno stays the program's. */
static uint64_t vm_size(void)
{
    char buf[64];
    long fd = ct_rsys(SYS_open, (long)"/proc/self/statm", O_RDONLY | O_CLOEXEC,
                      0, 0, 0, 0);
    if (fd < 0)
        return 0;
    long n = ct_rsys(SYS_read, fd, (long)buf, sizeof buf - 1, 0, 0, 0);
    ct_rsys(SYS_close, fd, 0, 0, 0, 0, 0);
    if (n <= 0)
        return 0;
    uint64_t pages = 0;
    for (long i = 0; i < n && buf[i] >= '0' && buf[i] <= '9'; i++)
        pages = pages * 10 + (uint64_t)(buf[i] - '0');
    return pages * PAGE;
}

static size_t page_round(size_t n)
{
    return ct_align_up(n, PAGE);
}

size_t ct_budget_fit_in(uint64_t limit, uint64_t vm, uint64_t used,
                        size_t want, size_t least)
{
    if (!limit)
        return want;
    uint64_t cap;
    if (!vm) {
        cap = limit / (4 * SHARE);  /* unknown: a small part of the limit */
    } else {
        /* The program's part is vm - used: the tracer may have an eighth
         * of the rest, its own part included. */
        uint64_t prog = vm > used ? vm - used : 0;
        cap = limit > prog ? (limit - prog) / SHARE : 0;
    }
    least = page_round(least);
    size_t size = page_round(want);
    for (;;) {
        if (used + size <= cap)
            return size;
        if (size <= least)
            return 0;
        size = page_round(size / 2);
        if (size < least)
            size = least;
    }
}

size_t ct_budget_fit(size_t want, size_t least)
{
    uint64_t lim = as_limit();
    return ct_budget_fit_in(lim, lim ? vm_size() : 0,
                            __atomic_load_n(&used, __ATOMIC_RELAXED), want,
                            least);
}

int ct_budget_limited(void)
{
    return as_limit() != 0;
}

/* Blocks are held below this after a block could not be mapped; 0: not. */
static uint64_t ceiling;  /* atomic */

size_t ct_budget_block(size_t want, size_t least)
{
    uint64_t c = __atomic_load_n(&ceiling, __ATOMIC_RELAXED);
    if (c && want > c)
        want = page_round(c > least ? c : least);
    return ct_budget_fit(want, least);
}

void ct_budget_block_result(size_t size, int ok)
{
    uint64_t c = __atomic_load_n(&ceiling, __ATOMIC_RELAXED);
    if (!ok)
        __atomic_store_n(&ceiling, size / 2 > PAGE ? page_round(size / 2) : PAGE,
                         __ATOMIC_RELAXED);
    else if (c && size >= c)  /* that size is had again: raise the hold */
        __atomic_store_n(&ceiling, c >= CT_MAX_BUFSIZE / 2 ? 0 : 2 * c,
                         __ATOMIC_RELAXED);
}

void ct_budget_add(int64_t bytes)
{
    __atomic_fetch_add(&used, (uint64_t)bytes, __ATOMIC_RELAXED);
}

uint64_t ct_budget_used(void)
{
    return __atomic_load_n(&used, __ATOMIC_RELAXED);
}

void ct_budget_refused(void)
{
    if (__atomic_exchange_n(&told, 1, __ATOMIC_RELAXED))
        return;
    ct_message("calltrace: the address-space limit (ulimit -v) leaves little "
               "room: the tracer takes at most an eighth of it, and events "
               "it has no memory for are dropped and counted as lost");
}

int ct_budget_retry_ok(void)
{
    return !retry_at || ct_mono_ns() >= retry_at;
}

void ct_budget_retry_later(void)
{
    retry_at = ct_mono_ns() + RETRY_NS;
}
