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

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

/*
 * Reads up to n bytes at addr into dst; split at the page end, so that a
 * range ending in an unmapped page still gives the bytes before it.
 * Returns the bytes read, or -1 (errno) when none could be.
 *
 * pid is the process's id as the tracer holds it (ct_proc.pid, set at
 * start and in a fork's child), which spares a getpid at each read, a
 * system call as dear as a third of the read itself; 0: not known, asked
 * of the kernel.  The tracer renews its id in every child it records (at
 * a fork, and at the first event of a child made past glibc); should a
 * read come before that, the id is its parent's, which names no process
 * or one the process may not read (ESRCH, EPERM), and the read is made
 * again with the id the kernel gives.  A child that shares its parent's
 * memory (vfork) reads the same bytes by either id.
 */
static inline ssize_t ct_self_read(uint32_t pid, void *dst, uintptr_t addr,
                                   size_t n)
{
    size_t first = 4096 - (addr & 4095);
    if (first > n)
        first = n;
    struct iovec local = {dst, n};
    struct iovec remote[2] = {{(void *)addr, first},
                              {(void *)(addr + first), n - first}};
    unsigned long parts = n > first ? 2ul : 1ul;
    long id = pid ? (long)pid : syscall(SYS_getpid);
    ssize_t r = syscall(SYS_process_vm_readv, id, &local, 1ul, remote,
                        parts, 0ul);
    if (r < 0 && pid && (errno == ESRCH || errno == EPERM)) {
        long real = syscall(SYS_getpid);
        if (real != id)
            r = syscall(SYS_process_vm_readv, real, &local, 1ul, remote,
                        parts, 0ul);
    }
    return r;
}

#endif /* CT_SELF_READ_H */
