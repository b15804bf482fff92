#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "reader.h"
#include "util.h"

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
    void *p = mmap(NULL, in->size, PROT_READ, MAP_PRIVATE, fd, 0);
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
