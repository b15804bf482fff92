/*
 * perf_event rings with no descriptor of the tracer's left in the
 * program's table.  The descriptor is closed once the ring is mapped, so
 * the program never sees one of ours; between the open and the close its
 * number is checked to still be our event, since another thread of the
 * program may close any number and open a file of its own in its place
 * (docs/reliability.md, the descriptor race): such a number is the
 * program's and is never mapped or closed by us.
 */
#include <errno.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload/base/perf_ring.h"

static int ring_open(struct perf_event_attr *a, pid_t tid, size_t len,
                     void **ring, uint64_t *id, int *kept)
{
    int fd = (int)syscall(SYS_perf_event_open, a, tid, -1, -1,
                          PERF_FLAG_FD_CLOEXEC);
    if (fd < 0)
        return errno;
    uint64_t id1 = 0, id2 = 0;
    if (ioctl(fd, PERF_EVENT_IOC_ID, &id1) != 0) {
        int err = errno;
        close(fd);
        return err;
    }
    void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    int err = m == MAP_FAILED ? errno : 0;
    /* The same event before and after the mmap. */
    int ours = ioctl(fd, PERF_EVENT_IOC_ID, &id2) == 0 && id1 == id2;
    if (err || !ours) {
        if (m != MAP_FAILED)
            munmap(m, len);
        if (ours)
            close(fd);
        return err ? err : EBADF;
    }
    if (kept)
        *kept = fd;
    else
        close(fd);
    madvise(m, len, MADV_DONTFORK);
    *ring = m;
    *id = id1;
    return 0;
}

int ct_perf_ring_open(struct perf_event_attr *a, pid_t tid, size_t len,
                      void **ring, uint64_t *id)
{
    return ring_open(a, tid, len, ring, id, NULL);
}

int ct_perf_ring_open_kept(struct perf_event_attr *a, pid_t tid, size_t len,
                           void **ring, uint64_t *id, int *fd)
{
    return ring_open(a, tid, len, ring, id, fd);
}
