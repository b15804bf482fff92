/*
 * The floor with its bytes kept in a file by a recorder process, the
 * design uftrace and LTTng use, as issue 12 suggested: each event does the
 * floor's rdtsc and 8-byte store into a ring of shared memory that is
 * never unmapped (so its pages are faulted in once), moving on by
 * FLOOR_BYTES_MILLI / 1000 bytes; a process forked at start copies the
 * ring into FLOOR_FILE (default /tmp/floor-rec.<pid>) with write(), behind
 * the program.  The program publishes how far it has written once a page
 * (a store to the shared line every event would bounce it between the
 * cores) and waits when it is a ring ahead.  At exit it waits for the
 * recorder, so the recorder's CPU time is counted with the program's.
 * A measurement of what that design costs, not a tracer: one thread, no
 * records, nothing for a crash.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#define RING (1u << 20)
#define MASK (RING - 1)

struct control {
    uint64_t head;        /* published by the program                       */
    char pad1[56];
    uint64_t tail;        /* published by the recorder                      */
    char pad2[56];
    int done;
};

static struct control *ctl;
static uint8_t *ring;
static uint64_t head, published, tail_seen;
static uint32_t step_milli = 4000, acc;
static pid_t recorder;
static int fd = -1;
static char path[256];

static void record(void)
{
    uint64_t tail = 0;
    for (;;) {
        uint64_t h = __atomic_load_n(&ctl->head, __ATOMIC_ACQUIRE);
        if (h == tail) {
            if (__atomic_load_n(&ctl->done, __ATOMIC_ACQUIRE) &&
                __atomic_load_n(&ctl->head, __ATOMIC_ACQUIRE) == tail)
                _exit(0);
            struct timespec ts = {0, 20000};
            nanosleep(&ts, NULL);
            continue;
        }
        while (tail < h) {
            uint64_t at = tail & MASK, n = h - tail;
            if (n > RING - at)
                n = RING - at;
            ssize_t w = write(fd, ring + at, n);
            if (w <= 0)
                _exit(1);
            tail += (uint64_t)w;
        }
        __atomic_store_n(&ctl->tail, tail, __ATOMIC_RELEASE);
    }
}

__attribute__((constructor)) static void start(void)
{
    const char *s = getenv("FLOOR_BYTES_MILLI");
    if (s && atoi(s) > 0)
        step_milli = (uint32_t)atoi(s);
    const char *f = getenv("FLOOR_FILE");
    snprintf(path, sizeof path, "%s.%d", f ? f : "/tmp/floor-rec",
             (int)getpid());
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    void *m = mmap(NULL, RING + 16 + sizeof *ctl, PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (fd < 0 || m == MAP_FAILED)
        return;
    ring = m;
    ctl = (struct control *)(ring + RING + 16);
    recorder = fork();
    if (recorder == 0)
        record();
    if (recorder < 0)
        ring = NULL;
}

__attribute__((destructor)) static void stop(void)
{
    if (!ring)
        return;
    __atomic_store_n(&ctl->head, head, __ATOMIC_RELEASE);
    __atomic_store_n(&ctl->done, 1, __ATOMIC_RELEASE);
    waitpid(recorder, NULL, 0);
    unlink(path);
}

static __attribute__((noinline, cold)) void publish(void)
{
    __atomic_store_n(&ctl->head, head, __ATOMIC_RELEASE);
    published = head;
    /* A ring ahead of the recorder: wait for it. */
    while (head - tail_seen > RING - 4096) {
        tail_seen = __atomic_load_n(&ctl->tail, __ATOMIC_ACQUIRE);
        if (head - tail_seen > RING - 4096)
            sched_yield();
    }
}

static inline __attribute__((always_inline)) void ring_event(void)
{
    if (__builtin_expect(!ring, 0))
        return;
    uint64_t t = __rdtsc();
    __builtin_memcpy(ring + (head & MASK), &t, 8);
    uint32_t a = acc + step_milli;
    head += a / 1000;
    acc = a % 1000;
    if (__builtin_expect((head ^ published) >> 12, 0))
        publish();
}

void __cyg_profile_func_enter(void *fn, void *site)
{
    (void)fn;
    (void)site;
    ring_event();
}

void __cyg_profile_func_exit(void *fn, void *site)
{
    (void)fn;
    (void)site;
    ring_event();
}
