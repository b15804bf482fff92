/*
 * Telling on-CPU from off-CPU time, per thread.
 *
 * Default: each thread opens a perf_event_open software event on itself
 * (PERF_COUNT_SW_DUMMY with context_switch set; user space only, which
 * perf_event_paranoid 2 allows for one's own threads).  The kernel writes
 * a record into a small ring at every switch out and in, stamped with
 * CLOCK_MONOTONIC.  The slow path drains the ring into SWITCH records
 * (format in calltrace_format.h): at each block's start, every
 * CT_CPU_CHECK_BYTES of records, and at the thread's end.  The hot path
 * is not changed: it reaches the slow path at those points through the
 * `end` it already checks.
 *
 * The descriptor is closed as soon as the ring is mapped: the mapping
 * keeps the event alive, so the tracer holds no descriptor the program
 * could close, dup2 over or run out of.  It is opened O_CLOEXEC, and the
 * ring is not inherited by fork (a child opens its own).
 *
 * Where perf_event_open is refused (or CALLTRACE_CPUTIME=clock), the
 * thread reads CLOCK_THREAD_CPUTIME_ID at each block's start and at its
 * end instead (CPUTIME records): an on-CPU total per thread, not per
 * function.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload/base/budget.h"
#include "preload/base/perf_ring.h"
#include "preload/tracer.h"

/* Data pages of the ring: 512 switches (out + in, 16 bytes each) between
 * two drains before the kernel drops and counts.  Drains come every
 * CT_CPU_CHECK_BYTES (1 KiB) of records, so a thread holds with no loss
 * as long as it records a call (2 bytes or more) per switch out and in,
 * at any rate (docs/tracer.md). */
#define RING_DATA_PAGES 4u

static long page_size(void)
{
    static long ps;
    if (!ps)
        ps = sysconf(_SC_PAGESIZE);
    return ps;
}

static uint32_t first_mode;
static int first_err;

static void note_mode(uint32_t mode, int err)
{
    struct ct_file_header *h = ct_proc.hdr;
    if (!first_mode) {
        first_mode = mode;
        first_err = err;
    }
    if (!h)
        return;
    uint32_t none = CT_ONCPU_NONE;
    /* The first thread decides what the header says; a later thread that
     * had to fall back says so through its own records. */
    if (__atomic_compare_exchange_n(&h->oncpu, &none, mode, 0,
                                    __ATOMIC_RELAXED, __ATOMIC_RELAXED) &&
        err)
        h->oncpu_errno = (uint32_t)err;
}

/* Opens the switch ring of the calling thread; 0, or an errno. */
static int open_ring(struct ct_thread *t)
{
    /* Under an address-space limit with little room, the clock instead. */
    size_t ring_len = (size_t)page_size() * (1 + RING_DATA_PAGES);
    if (!ct_budget_fit(ring_len, ring_len))
        return ENOMEM;
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = PERF_TYPE_SOFTWARE;
    a.config = PERF_COUNT_SW_DUMMY;
    a.sample_type = PERF_SAMPLE_TIME;
    a.sample_id_all = 1;
    a.context_switch = 1;
    a.use_clockid = 1;
    a.clockid = CLOCK_MONOTONIC;
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    void *m = NULL;
    uint64_t id = 0;
    int err = ct_perf_ring_open(&a, 0, ring_len, &m, &id);
    if (err)
        return err;
    t->cpu.ring = m;
    t->cpu.ring_len = (uint32_t)ring_len;
    ct_budget_add((int64_t)ring_len);
    return 0;
}

void ct_cpu_thread_start(struct ct_thread *t)
{
    int saved = errno;
    memset(&t->cpu, 0, sizeof t->cpu);
    int want = ct_proc.cfg.cputime;
    if (ct_proc.calls_off || want == CT_CPUTIME_OFF) {
        errno = saved;
        return;
    }
    int err = 0;
    if (want == CT_CPUTIME_SWITCH) {
        err = open_ring(t);
        if (!err) {
            t->cpu.mode = CT_ONCPU_SWITCH;
            note_mode(CT_ONCPU_SWITCH, 0);
            errno = saved;
            return;
        }
    }
    t->cpu.mode = CT_ONCPU_CLOCK;
    note_mode(CT_ONCPU_CLOCK, err);
    errno = saved;
}

void ct_cpu_header_after_fork(void)
{
    struct ct_file_header *h = ct_proc.hdr;
    if (!h || !first_mode)
        return;
    h->oncpu = first_mode;
    h->oncpu_errno = (uint32_t)first_err;
}

void ct_cpu_thread_release(struct ct_thread *t, int forked_child)
{
    /* A forked child has no mapping (MADV_DONTFORK): only forget it. */
    if (t->cpu.ring && !forked_child) {
        munmap(t->cpu.ring, t->cpu.ring_len);
        ct_budget_add(-(int64_t)t->cpu.ring_len);
    }
    t->cpu.ring = NULL;
    if (forked_child) {
        first_mode = 0;
        ct_cpu_thread_start(t);
    }
    else
        t->cpu.mode = CT_ONCPU_NONE;
}

int ct_cpu_pending(const struct ct_thread *t)
{
    const struct perf_event_mmap_page *pg = t->cpu.ring;
    if (!pg)
        return 0;
    return __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE) != pg->data_tail;
}

static uint64_t thread_cpu_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
        return 0;
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Writes an EXT head with a 5-byte length to be filled in; returns where
 * the payload starts. */
static uint8_t *open_ext(struct ct_thread *t, uint64_t now, uint8_t sub,
                         uint8_t **len_at)
{
    uint8_t *p = ct_put_varint(t->pos,
                               ct_head(ct_tick_delta(t, now), CT_REC_EXT));
    *p++ = sub;
    *len_at = p;
    return p + 5;
}

static void close_ext(struct ct_thread *t, uint8_t *len_at, uint8_t *end)
{
    ct_put_varint5(len_at, (uint32_t)(end - (len_at + 5)));
    t->pos = end;
}

static void put_cputime(struct ct_thread *t)
{
    uint8_t *len_at;
    uint64_t cpu = thread_cpu_ns();
    uint8_t *p = open_ext(t, ct_now(), CT_EXT_CPUTIME, &len_at);
    close_ext(t, len_at, ct_put_varint(p, cpu));
}

/* Copies the record at offset off of the ring's data (it may wrap). */
static void ring_copy(const uint8_t *data, uint64_t size, uint64_t off,
                      void *dst, size_t n)
{
    uint64_t at = off & (size - 1);
    size_t first = n < size - at ? n : (size_t)(size - at);
    memcpy(dst, data + at, first);
    memcpy((uint8_t *)dst + first, data, n - first);
}

static void put_switch(struct ct_thread *t, uint8_t *lim, int force)
{
    struct perf_event_mmap_page *pg = t->cpu.ring;
    uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
    uint64_t tail = pg->data_tail;
    if (head == tail && !force && !t->cpu.lost)
        return;
    /* Read after the head: every interval drained below is over by now. */
    uint64_t now = ct_now();
    uint64_t anchor_ns = ct_mono_ns();
    uint8_t *base = (uint8_t *)t->blk + CT_BLOCK_HEADER_SIZE;
    uint8_t *rec = t->pos, *len_at;
    uint8_t *p = open_ext(t, now, CT_EXT_SWITCH, &len_at);
    uint32_t prev = t->blk->last_switch;
    memcpy(p, &prev, CT_SWITCH_PREV_BYTES);
    p += CT_SWITCH_PREV_BYTES;
    p = ct_put_varint(p, now);
    p = ct_put_varint(p, anchor_ns);
    uint8_t *lost_at = p;  /* filled in once the ring is read */
    p += 5;
    const uint8_t *data = (const uint8_t *)pg + pg->data_offset;
    uint64_t size = pg->data_size;
    while (tail < head && p + 20 <= lim) {
        struct perf_event_header h;
        uint64_t body[3];
        ring_copy(data, size, tail, &h, sizeof h);
        if (h.size < sizeof h || h.size > sizeof h + sizeof body) {
            tail = head;  /* not a record we know the shape of: give up */
            break;
        }
        ring_copy(data, size, tail + sizeof h, body, h.size - sizeof h);
        tail += h.size;
        if (h.type == PERF_RECORD_LOST && h.size >= sizeof h + 16) {
            t->cpu.lost += body[1];
            t->cpu.out_ns = 0;
        } else if (h.type == PERF_RECORD_SWITCH && h.size >= sizeof h + 8) {
            uint64_t ns = body[0];
            if (h.misc & PERF_RECORD_MISC_SWITCH_OUT) {
                t->cpu.out_ns = ns;
                t->cpu.out_preempt =
                    !!(h.misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT);
            } else if (t->cpu.out_ns && ns >= t->cpu.out_ns) {
                uint64_t out = t->cpu.out_ns;
                p = ct_put_varint(p, anchor_ns > out ? anchor_ns - out : 0);
                p = ct_put_varint(p, (ns - out) << 1 | t->cpu.out_preempt);
                t->cpu.out_ns = 0;
            }
        }
    }
    uint64_t lost = t->cpu.lost < 0x7ffffffffull ? t->cpu.lost : 0x7ffffffffull;
    ct_put_varint5(lost_at, lost);
    t->cpu.lost = 0;
    __atomic_store_n(&pg->data_tail, tail, __ATOMIC_RELEASE);
    close_ext(t, len_at, p);
    t->blk->last_switch = (uint32_t)(rec - base) + 1;
}

uint64_t ct_cpu_drain_off_ns(struct ct_thread *t)
{
    struct perf_event_mmap_page *pg = t->cpu.ring;
    uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
    uint64_t tail = pg->data_tail, off = 0;
    const uint8_t *data = (const uint8_t *)pg + pg->data_offset;
    uint64_t size = pg->data_size;
    while (tail < head) {
        struct perf_event_header h;
        uint64_t body[3];
        ring_copy(data, size, tail, &h, sizeof h);
        if (h.size < sizeof h || h.size > sizeof h + sizeof body) {
            tail = head;
            break;
        }
        ring_copy(data, size, tail + sizeof h, body, h.size - sizeof h);
        tail += h.size;
        if (h.type == PERF_RECORD_LOST && h.size >= sizeof h + 16) {
            t->cpu.out_ns = 0;
        } else if (h.type == PERF_RECORD_SWITCH && h.size >= sizeof h + 8) {
            if (h.misc & PERF_RECORD_MISC_SWITCH_OUT)
                t->cpu.out_ns = body[0];
            else if (t->cpu.out_ns && body[0] >= t->cpu.out_ns) {
                off += body[0] - t->cpu.out_ns;
                t->cpu.out_ns = 0;
            }
        }
    }
    __atomic_store_n(&pg->data_tail, tail, __ATOMIC_RELEASE);
    return off;
}

void ct_cpu_record(struct ct_thread *t, uint8_t *lim, int force)
{
    if (!t->blk || t->pos + 64 > lim)
        return;
    if (t->cpu.mode == CT_ONCPU_SWITCH && t->cpu.ring)
        put_switch(t, lim, force);
    else if (t->cpu.mode == CT_ONCPU_CLOCK)
        put_cputime(t);
}
