/*
 * The floor with its bytes kept in a file, as a trace that survives
 * SIGKILL must keep them: as bench/overhead_floor.c (rdtsc and one 8-byte
 * store per event), but the stores go on through 1 MiB blocks of a file
 * mapped MAP_SHARED, laid out with fallocate and faulted in with
 * MADV_POPULATE_WRITE, the old block unmapped at each switch: the
 * page-cache work calltrace does per block, and nothing else.  Each event
 * moves on by FLOOR_BYTES_MILLI / 1000 bytes (calltrace's record bytes per
 * event on the same program, set by bench/floor.sh).  The file is
 * FLOOR_FILE (default /tmp/floor-file.<pid>), removed at exit.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <x86intrin.h>

#define BLOCK (1u << 20)

static int fd = -1;
static uint64_t next_off;
static uint32_t step_milli = 4000;
static char path[256];
static __thread uint8_t *base __attribute__((tls_model("initial-exec")));
static __thread uint8_t *pos __attribute__((tls_model("initial-exec")));
static __thread uint8_t *end __attribute__((tls_model("initial-exec")));
static __thread uint32_t acc __attribute__((tls_model("initial-exec")));

__attribute__((constructor)) static void open_file(void)
{
    const char *s = getenv("FLOOR_BYTES_MILLI");
    if (s && atoi(s) > 0)
        step_milli = (uint32_t)atoi(s);
    const char *f = getenv("FLOOR_FILE");
    snprintf(path, sizeof path, "%s", f ? f : "/tmp/floor-file");
    snprintf(path + strnlen(path, sizeof path - 16), 16, ".%d", (int)getpid());
    fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
}

__attribute__((destructor)) static void remove_file(void)
{
    if (fd >= 0)
        unlink(path);
}

static __attribute__((noinline, cold)) uint8_t *switch_block(void)
{
    if (base)
        munmap(base, BLOCK);
    base = pos = end = NULL;
    uint64_t off = __atomic_fetch_add(&next_off, BLOCK, __ATOMIC_RELAXED);
    if (fd < 0 || fallocate(fd, 0, (off_t)off, BLOCK) != 0)
        return NULL;
    uint8_t *p = mmap(NULL, BLOCK, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
                      (off_t)off);
    if (p == MAP_FAILED)
        return NULL;
    madvise(p, BLOCK, MADV_POPULATE_WRITE);
    base = p;
    end = p + BLOCK - 16;
    return p;
}

static inline __attribute__((always_inline)) void file_event(void)
{
    uint8_t *p = pos;
    if (__builtin_expect(p >= end, 0) && !(p = switch_block()))
        return;
    uint64_t t = __rdtsc();
    __builtin_memcpy(p, &t, 8);
    uint32_t a = acc + step_milli;
    pos = p + a / 1000;
    acc = a % 1000;
}

void __cyg_profile_func_enter(void *fn, void *site)
{
    (void)fn;
    (void)site;
    file_event();
}

void __cyg_profile_func_exit(void *fn, void *site)
{
    (void)fn;
    (void)site;
    file_event();
}
