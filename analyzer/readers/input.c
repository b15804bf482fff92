/*
 * Opening an input file: the whole file mapped read-only, its holes read
 * as zero bytes ("not written").  A trace left on a full tmpfs can be
 * larger than the space behind it (blocks reserved by ftruncate and never
 * written); touching such a hole through a file mapping makes tmpfs
 * allocate a page it cannot give, and the reader dies of SIGBUS.  So a
 * sparse file is mapped as anonymous zero pages with the file mapped over
 * its data ranges alone, and a hole is never faulted from the file.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyzer/readers/reader.h"
#include "analyzer/util.h"

/* Reads [off, end) with pread into the anonymous mapping: read(2) of a
 * hole gives zeros without allocating.  The last resort when mapping the
 * data ranges one by one fails (too many of them for vm.max_map_count). */
static int copy_range(int fd, uint8_t *base, size_t off, size_t end)
{
    while (off < end) {
        ssize_t n = pread(fd, base + off, end - off, (off_t)off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        off += (size_t)n;
    }
    return 0;
}

/* Maps the file's data ranges over the anonymous zero mapping at base.
 * Ranges are widened to whole pages: a hole is page-granular on tmpfs,
 * and on a file system whose holes are smaller than a page, a read fault
 * in a hole does not allocate. */
static int map_data(int fd, uint8_t *base, size_t size, int flags)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    off_t pos = 0;
    while ((size_t)pos < size) {
        off_t data = lseek(fd, pos, SEEK_DATA);
        if (data < 0)
            return errno == ENXIO ? 0 : -1; /* ENXIO: only a hole is left */
        off_t hole = lseek(fd, data, SEEK_HOLE);
        if (hole < 0)
            return -1;
        size_t from = (size_t)data / page * page;
        size_t to = (size_t)hole < size ? (size_t)hole : size;
        to = (to + page - 1) / page * page;
        if (mmap(base + from, to - from, PROT_READ, flags | MAP_FIXED, fd,
                 (off_t)from) == MAP_FAILED)
            return -1;
        pos = hole;
    }
    return 0;
}

/* A file with holes: anonymous zeros, the data mapped (or copied) over. */
static void *map_sparse(int fd, size_t size, int flags)
{
    uint8_t *base = mmap(NULL, size, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (base == MAP_FAILED)
        return MAP_FAILED;
    if (map_data(fd, base, size, flags) != 0) {
        /* Start again from zeros: a failed MAP_FIXED may have left a gap. */
        munmap(base, size);
        base = mmap(NULL, size, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (base == MAP_FAILED)
            return MAP_FAILED;
        if (copy_range(fd, base, 0, size) != 0) {
            munmap(base, size);
            errno = EIO;
            return MAP_FAILED;
        }
    }
    mprotect(base, size, PROT_READ);
    return base;
}

void *ct_map_input(int fd, size_t size, int flags)
{
    struct stat st;
    /* Fewer bytes allocated than the size says: there are holes.  A file
     * system that cannot tell (SEEK_HOLE at the end) is mapped plainly. */
    bool sparse = fstat(fd, &st) == 0 &&
                  (uint64_t)st.st_blocks * 512 < (uint64_t)size;
    if (sparse) {
        off_t hole = lseek(fd, 0, SEEK_HOLE);
        sparse = hole >= 0 && (size_t)hole < size;
    }
    if (sparse)
        return map_sparse(fd, size, flags);
    return mmap(NULL, size, PROT_READ, flags, fd, 0);
}

int ct_input_open(struct ct_input *in, const char *path)
{
    memset(in, 0, sizeof *in);
    in->path = path;
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        ct_error("cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ct_error("%s: not a regular file", path);
        close(fd);
        return -1;
    }
    in->size = (size_t)st.st_size;
    if (in->size == 0) {
        close(fd);
        in->data = (const uint8_t *)"";
        return 0;
    }
    void *p = ct_map_input(fd, in->size, MAP_PRIVATE);
    close(fd);
    if (p == MAP_FAILED) {
        ct_error("cannot map %s: %s", path, strerror(errno));
        return -1;
    }
    in->data = p;
    return 0;
}

void ct_input_close(struct ct_input *in)
{
    if (in->size)
        munmap((void *)in->data, in->size);
    in->data = NULL;
    in->size = 0;
}
