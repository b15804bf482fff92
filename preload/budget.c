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

#include "budget.h"
#include "rawsys.h"
#include "tracer.h"

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

/* How much the tracer may hold in all now; UINT64_MAX without a limit. */
static uint64_t share(void)
{
    uint64_t lim = as_limit();
    if (!lim)
        return UINT64_MAX;
    uint64_t vm = vm_size();
    uint64_t u = __atomic_load_n(&used, __ATOMIC_RELAXED);
    if (!vm)  /* unknown: a small part of the limit itself */
        return lim / (4 * SHARE);
    /* The program's part is vm - u: the tracer may have an eighth of the
     * rest, its own part included. */
    uint64_t prog = vm > u ? vm - u : 0;
    return lim > prog ? (lim - prog) / SHARE : 0;
}

static size_t page_round(size_t n)
{
    return (n + PAGE - 1) & ~(size_t)(PAGE - 1);
}

size_t ct_budget_fit(size_t want, size_t least)
{
    uint64_t cap = share();
    if (cap == UINT64_MAX)
        return want;
    uint64_t u = __atomic_load_n(&used, __ATOMIC_RELAXED);
    least = page_round(least);
    size_t size = page_round(want);
    for (;;) {
        if (u + size <= cap)
            return size;
        if (size <= least)
            return 0;
        size = page_round(size / 2);
        if (size < least)
            size = least;
    }
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
