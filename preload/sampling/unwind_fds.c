/*
 * libunwind without descriptors.  Built with its conservative checks (the
 * default, and Debian's), libunwind validates an address before it reads
 * it by writing one byte from it into a pipe of its own (mincore first,
 * then `write`, which fails with EFAULT where the byte cannot be read),
 * and reads the pipe empty again.  The pipe is made at its first use and
 * kept by number: in the SIGPROF sampler's walk, on the program's own
 * thread and in the program's descriptor table.  A program that closes
 * every descriptor past stderr, as daemons do, and opens its files then,
 * had its input read a byte at a time and bytes of the tracer's stacks
 * written into its output file by each validation, which reopens the
 * pipe, through those numbers (tests/e2e/sample_fds.sh, "closefrom").
 *
 * So the library's calls of pipe2 (or pipe), read, write, syscall and
 * close are pointed here (its GOT slots, as the library calls are
 * patched, ct_plt_point_import) before it runs: the pipe is two numbers no
 * descriptor can have, a read of the first finds it empty, a write to
 * the second is the readability test itself (process_vm_readv of one
 * byte), and a close of either does nothing.  Any other descriptor goes
 * to libc as before.  The remote unwinder of the kernel's sampler gets
 * the same, though its pipe would be in the sampler's own table: where
 * the kernel refuses that table, it would be in the program's.
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload/base/self_read.h"
#include "preload/libcalls/plt.h"
#include "preload/sampling/sample.h"
#include "preload/tracer.h"

/* Above any descriptor the kernel gives (its limit, nr_open, is at most
 * 2^30), so a call that reached the kernel with one would fail, EBADF. */
#define FAKE_READ (INT_MAX - 1)
#define FAKE_WRITE (INT_MAX - 2)

static int is_fake(int fd)
{
    return fd == FAKE_READ || fd == FAKE_WRITE;
}

/* Whether the byte at addr can be read: 1, or -1 with errno EFAULT, as a
 * write of it into a pipe says. */
static long byte_readable(const void *addr)
{
    char c;
    if (ct_self_read(ct_proc.pid, &c, (uintptr_t)addr, 1) == 1)
        return 1;
    errno = EFAULT;
    return -1;
}

static int lu_pipe2(int fds[2], int flags)
{
    (void)flags;
    fds[0] = FAKE_READ;
    fds[1] = FAKE_WRITE;
    return 0;
}

static int lu_pipe(int fds[2])
{
    return lu_pipe2(fds, 0);
}

static ssize_t lu_read(int fd, void *buf, size_t n)
{
    if (!is_fake(fd))
        return read(fd, buf, n);
    /* the pipe is always empty: its one byte never went in.  EAGAIN also
     * keeps libunwind's loop around the write, which tests errno for
     * EINTR even after a success, from going round again. */
    errno = EAGAIN;
    return -1;
}

static ssize_t lu_write(int fd, const void *buf, size_t n)
{
    if (!is_fake(fd))
        return write(fd, buf, n);
    return n ? byte_readable(buf) : 0;
}

static int lu_close(int fd)
{
    return is_fake(fd) ? 0 : close(fd);
}

/* syscall(2) is variadic; integer arguments are passed as a plain
 * function's are, and the kernel ignores those past a call's own. */
static long lu_syscall(long nr, long a, long b, long c, long d, long e,
                       long f)
{
    if (nr == SYS_write && is_fake((int)a))
        return lu_write((int)a, (const void *)b, (size_t)c);
    if (nr == SYS_read && is_fake((int)a))
        return lu_read((int)a, (void *)b, (size_t)c);
    if (nr == SYS_close && is_fake((int)a))
        return 0;
    return syscall(nr, a, b, c, d, e, f);
}

struct find {
    uintptr_t base;
    const char *name;
    int found;
};

static int point_object(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct find *fd = arg;
    if (info->dlpi_addr != fd->base || !info->dlpi_name ||
        strcmp(info->dlpi_name, fd->name) != 0)
        return 0;
    ct_plt_point_import(info, "read", (uintptr_t)lu_read);
    ct_plt_point_import(info, "write", (uintptr_t)lu_write);
    ct_plt_point_import(info, "close", (uintptr_t)lu_close);
    ct_plt_point_import(info, "syscall", (uintptr_t)lu_syscall);
    /* last, once the calls that use the pipe come here; a library built
     * without pipe2 makes it with pipe (and fcntl, which fails on these
     * numbers and changes nothing) */
    ct_plt_point_import(info, "pipe2", (uintptr_t)lu_pipe2);
    ct_plt_point_import(info, "pipe", (uintptr_t)lu_pipe);
    fd->found = 1;
    return 1;
}

int ct_unwind_fds_off(void *handle)
{
    struct link_map *lm = NULL;
    if (!handle || dlinfo(handle, RTLD_DI_LINKMAP, &lm) != 0 || !lm ||
        !lm->l_name)
        return -1;
    struct find fd = {lm->l_addr, lm->l_name, 0};
    dl_iterate_phdr(point_object, &fd);
    return fd.found ? 0 : -1;
}
