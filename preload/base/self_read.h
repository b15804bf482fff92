/*
 * Reading the process's own memory without the risk of a fault: the
 * kernel copies (process_vm_readv on the process itself) and fails with
 * EFAULT where the bytes cannot be read, where a load would have raised
 * SIGSEGV in the program.  Used for strings an argument points at
 * (args/args.c), another thread's frames that may be unmapped by now
 * (libcalls/plt.c) and libunwind's address checks (sampling/unwind_fds.c).
 */
#ifndef CT_SELF_READ_H
#define CT_SELF_READ_H

#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

/* Reads up to n bytes at addr into dst; split at the page end, so that a
 * range ending in an unmapped page still gives the bytes before it.
 * Returns the bytes read, or -1 (errno) when none could be. */
static inline ssize_t ct_self_read(void *dst, uintptr_t addr, size_t n)
{
    size_t first = 4096 - (addr & 4095);
    if (first > n)
        first = n;
    struct iovec local = {dst, n};
    struct iovec remote[2] = {{(void *)addr, first},
                              {(void *)(addr + first), n - first}};
    return syscall(SYS_process_vm_readv, (long)syscall(SYS_getpid), &local,
                   1ul, remote, n > first ? 2ul : 1ul, 0ul);
}

#endif /* CT_SELF_READ_H */
