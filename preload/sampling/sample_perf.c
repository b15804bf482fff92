/*
 * Signal-free sampling: every sampled thread opens the kernel's
 * perf_event task-clock on itself (a high-resolution timer on the
 * thread's own CPU time), and at each period the kernel copies the user
 * registers and the top of the user stack into the thread's ring.  No
 * signal reaches the program, so none of its blocking calls is ever
 * interrupted.  The sampler's own thread drains the rings every few
 * milliseconds, unwinds each copy (sample_cfi.c's walk, libunwind's in
 * sample_remote.c where it cannot) and writes one CT_EXT_SAMPLE_OF
 * record, naming the sampled thread, into its own block.
 * docs/sampling.md explains the choices.
 *
 * As in cputime.c, the descriptor is closed once the ring is mapped
 * (base/perf_ring.c): the mapping keeps the event alive, and the program
 * sees no descriptor of ours.  Rings are MADV_DONTFORK: a forked child
 * opens its own.
 *
 * Jitter: a fixed period samples the same instants of every round of a
 * program whose rounds are a whole number of periods (a loop paced by a
 * 1 ms or 4 ms clock), and its shares then depend on where those instants
 * fall.  The kernel's period cannot be varied without the descriptor, so
 * the sampler's thread gives each thread a period drawn from 0.65 to 1.35
 * intervals (none within a tenth of the interval) every 16 samples or so:
 * by PERF_EVENT_IOC_PERIOD through the descriptor it keeps in a table of
 * its own, or where it has none, every 100 ms, by a new event on the
 * thread, letting the old one go.  Each stretch starts at a random
 * instant of the program's round and walks through it at its own pace
 * (JITTER_SAMPLES says why stretches are short).  Where /proc is not
 * there to tell the thread is still ours
 * (a chroot), the event is kept, at its period.  Weights stay whole
 * intervals: each sample adds its period less one interval to what the
 * thread is owed (a replaced event also takes half a period with it, the
 * time it counted since its last sample, on average), and when that
 * reaches an interval the next sample weighs two, or none (not written)
 * when it reaches minus one.  Which sample that is depends on its number,
 * never on where it landed, so shares stay true, and the weights add up
 * to the time sampled, within an interval.  The periods come in pairs,
 * 1 + e and 1 - e intervals, so that little is owed at any time.
 *
 * Copy size: the kernel copies the stack into the thread's ring at every
 * sample, 8 KiB where most programs' walks read 1 or 2: on a virtual
 * machine about half of the sample's cost in the thread, and a ring of
 * 15 samples that the sampler must drain every few ms.  Each walk says
 * how far into the copy it read, or that it ended at the copy's end.
 * When a period changes and every walk since the last change said how
 * far it read, the thread's new event copies twice what its deepest walk
 * ever read (1 KiB at least); a walk that ends at the copy's end gets the
 * full 8 KiB back at the end of that drain.  The samples of that one
 * drain keep their inner frames and lose the outer ones, counted as cut
 * short; as the deepest walk is never forgotten, that happens at most
 * four times a thread (next_copy).
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <linux/futex.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "calltrace_format.h"
#include "preload/base/perf_ring.h"
#include "preload/libcalls/plt.h"
#include "preload/sampling/sample.h"
#include "preload/tracer.h"

#if defined(__x86_64__)
#include <asm/perf_regs.h>

/* Bytes of user stack copied per sample at most (perf record's default):
 * deeper frames are cut at the root.  A thread whose walks all stayed
 * well inside it gets a smaller copy (at least STACK_COPY_MIN): the
 * file's comment, "Copy size". */
#define STACK_COPY CT_SAMPLE_STACK_MAX
#define STACK_COPY_MIN 1024u
/* Data pages of each ring: 15 samples of a full copy. */
#define RING_DATA_PAGES 32u
#define MAX_SLOTS 4096
/* A thread's period changes after this many samples, and no sooner than
 * JITTER_MIN_NS of its CPU time.  Where the sampler holds the event's
 * descriptor a change is one PERF_EVENT_IOC_PERIOD, a call to the
 * thread's CPU (20-30 us of the sampler's CPU on a virtual machine);
 * otherwise it is a new event, 60-400 us (an open, a map and an unmap,
 * with a cross-CPU call each; docs/sampling.md, "Jitter"), and waits
 * JITTER_OPEN_MIN_NS: either way at most 0.4 % of a CPU per sampled
 * thread.  A stretch whose period is near a whole number of the
 * program's rounds samples a few instants of them for all its length,
 * so stretches are kept short: at 100 ms, 0.31 ms rounds 70 % in hot
 * showed 60 samples in a row outside it, and hot at 64 % over a run. */
#define JITTER_SAMPLES 16u
#define JITTER_MIN_NS 10000000u
#define JITTER_OPEN_MIN_NS 100000000u

/* perf's register numbers, in the order the kernel writes them (bit
 * order), and libunwind's number of each. */
static const struct {
    int perf, unw;
} reg_map[] = {
    {PERF_REG_X86_AX, 0},  {PERF_REG_X86_BX, 3},   {PERF_REG_X86_CX, 2},
    {PERF_REG_X86_DX, 1},  {PERF_REG_X86_SI, 4},   {PERF_REG_X86_DI, 5},
    {PERF_REG_X86_BP, 6},  {PERF_REG_X86_SP, 7},   {PERF_REG_X86_IP, 16},
    {PERF_REG_X86_R8, 8},  {PERF_REG_X86_R9, 9},   {PERF_REG_X86_R10, 10},
    {PERF_REG_X86_R11, 11}, {PERF_REG_X86_R12, 12}, {PERF_REG_X86_R13, 13},
    {PERF_REG_X86_R14, 14}, {PERF_REG_X86_R15, 15},
};
#define NREGS (sizeof reg_map / sizeof reg_map[0])

enum { FREE, SETUP, LIVE, ENDED };
struct slot {
    _Atomic int state;
    uint32_t tid;
    void *ring;
    size_t len;
    uint64_t interval_ns;   /* the asked period the events jitter around */
    uint64_t next_ns;       /* the next event's period, 0: draw one      */
    uint64_t period_ns;     /* the current event's                       */
    int64_t owed_ns;        /* time sampled less the weights written     */
    unsigned since_open;    /* samples of the current event             */
    int fd;                 /* the event's descriptor in the sampler's own
                             * table, once the sampler opened it; -1    */
    unsigned copy;          /* the current event's stack copy, bytes    */
    size_t need;            /* the most any walk of the thread read     */
    unsigned walked, known; /* walks since the change; with need known  */
    int cut;                /* a walk ended at the copy's end           */
    const void *plt_slot;   /* the thread's library-call frames (plt.c) */
    /* wall: the context-switch event's own ring (an event whose
     * descriptor is closed lives as long as its ring is mapped), and the
     * stack of the latest switch out, written with its weight at the
     * switch in. */
    void *ring_cs;
    uint64_t id_cs;
    uint64_t out_ns, carry_ns;
    unsigned out_depth;     /* 0: no switch out pending                 */
    uintptr_t out_pcs[CT_SAMPLE_MAX_DEPTH];
};
/* MAX_SLOTS of them, mapped when sampling starts: in .bss they took
 * 4.4 MB of every traced process's address space, which RLIMIT_AS counts
 * even where no page is touched. */
static struct slot *g_slots;
/* The drain's copy of one ring record (a perf record is at most 64 KiB)
 * follows the slots in their mapping, for the same reason; used under
 * g_drain. */
#define REC_MAX 65536u
#define SLOTS_BYTES (MAX_SLOTS * sizeof(struct slot))

static int slots_map(void)
{
    if (__atomic_load_n(&g_slots, __ATOMIC_ACQUIRE))
        return 0;
    void *m = mmap(NULL, SLOTS_BYTES + REC_MAX, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return ENOMEM;
    struct slot *none = NULL;
    if (!__atomic_compare_exchange_n(&g_slots, &none, (struct slot *)m, 0,
                                     __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        munmap(m, SLOTS_BYTES + REC_MAX);
    return 0;
}

/* CALLTRACE_SAMPLE_CLOCK=wall: each thread's switches out are sampled
 * too (stack copy at the switch), each weighted by the time off the CPU
 * that follows; 0 when not asked or refused. */
static int g_wall;
static uint64_t g_interval_ns;

/* Set on the sampler's own thread (below, "libunwind masks"). */
static __thread int t_sampler __attribute__((tls_model("initial-exec")));

/* One past the highest slot ever used: the drains look no further. */
static _Atomic int g_slots_hi;
static pthread_mutex_t g_drain = PTHREAD_MUTEX_INITIALIZER;
static _Atomic int g_running;      /* the sampler's thread should go on    */
static uint64_t g_period_ns;       /* how often it drains, at first        */
static _Atomic uint64_t st_records, st_lost, st_leaf_only, st_not_written,
    st_in_tracer, st_cut;
/* The largest stack copy of any ring the last drain found: how many
 * samples a ring holds, so how long the sampler may nap. */
static unsigned g_biggest_copy = STACK_COPY;
/* The tracer's own code: a sample that lands in it is the tracer's
 * overhead, not the program's profile (the signal sampler dropped them
 * too: the tracer's guard held). */
static uintptr_t g_self_lo, g_self_hi;

static int find_self(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    uintptr_t me = (uintptr_t)data;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && me >= lo &&
            me < lo + ph->p_memsz) {
            g_self_lo = lo;
            g_self_hi = lo + ph->p_memsz;
            return 1;
        }
    }
    return 0;
}

static long page_size(void)
{
    static long ps;
    if (!ps)
        ps = sysconf(_SC_PAGESIZE);
    return ps;
}

static uint64_t reg_mask(void)
{
    uint64_t m = 0;
    for (unsigned i = 0; i < NREGS; i++)
        m |= 1ull << reg_map[i].perf;
    return m;
}

/* ---- per thread ----------------------------------------------------- */

/* Both events write the same layout (the identifier first tells them
 * apart) on the same clock, as one ring requires. */
static void event_attr(struct perf_event_attr *ap, uint64_t period_ns,
                       int switches, unsigned copy)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = PERF_TYPE_SOFTWARE;
    a.config = switches ? PERF_COUNT_SW_CONTEXT_SWITCHES : PERF_COUNT_SW_TASK_CLOCK;
    a.sample_period = switches ? 1 : period_ns;
    a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID |
                    PERF_SAMPLE_TIME | PERF_SAMPLE_REGS_USER |
                    PERF_SAMPLE_STACK_USER;
    a.sample_regs_user = reg_mask();
    a.sample_stack_user = copy;
    a.use_clockid = 1;
    a.clockid = CLOCK_MONOTONIC;
    /* A switch happens in the kernel: its event must not exclude it
     * (perf_event_paranoid <= 1 or CAP_PERFMON); the user registers and
     * stack are still the ones recorded. */
    a.exclude_kernel = !switches;
    a.exclude_hv = 1;
    a.exclude_callchain_kernel = 1;
    if (switches) {
        a.context_switch = 1;   /* the switch in ends the time off */
        a.sample_id_all = 1;
    }
    *ap = a;
}

/* The event alone, for a probe: its descriptor, or -1 with errno. */
static int open_event(uint64_t period_ns, int switches)
{
    struct perf_event_attr a;
    event_attr(&a, period_ns, switches, STACK_COPY);
    return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1,
                        PERF_FLAG_FD_CLOEXEC);
}

/* Opens the event of thread tid (0: the calling one) and maps its ring of
 * len bytes, the descriptor closed: 0 with *ring and *id, or an errno. */
static int open_ring(pid_t tid, uint64_t period_ns, int switches, size_t len,
                     void **ring, uint64_t *id)
{
    struct perf_event_attr a;
    event_attr(&a, period_ns, switches, STACK_COPY);
    return ct_perf_ring_open(&a, tid, len, ring, id);
}

/* Whether the sampler's thread has a descriptor table of its own (set by
 * that thread, read by it alone): its events' descriptors are kept there,
 * out of the program's sight, and a new period is one ioctl. */
static int g_own_table;

/* A period from 0.65 to 0.9 or 1.1 to 1.35 intervals (never under the
 * kernel's 10 us), from a counter run through splitmix64: any thread may
 * draw. */
static uint64_t jittered(uint64_t interval_ns)
{
    static _Atomic uint64_t counter;
    static _Atomic uint64_t seed;
    uint64_t sd = atomic_load(&seed);
    if (!sd) {
        /* ct_mono_ns: by system call once the program turned the TSC
         * off, where the vDSO would fault */
        uint64_t ns = ct_mono_ns();
        sd = (ns << 20) ^ (ns / 1000000000u) ^ ((uint64_t)getpid() << 40) ^ 1;
        atomic_store(&seed, sd);
    }
    uint64_t z = sd + 0x9e3779b97f4a7c15ull * (atomic_fetch_add(&counter, 1) + 1);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    /* 1 +- (0.1 to 0.35): a period within a tenth of the interval
     * would sample a program paced by the interval at few instants of
     * its round for the whole stretch. */
    double u = (double)(z >> 12) / 4503599627370496.0;   /* [0, 1) */
    double e = 0.1 + 0.25 * u;
    double p = (double)interval_ns * ((z & 1) ? 1.0 + e : 1.0 - e);
    return p < 10000.0 ? 10000u : (uint64_t)p;
}

int ct_perf_wall(uint64_t interval_ns)
{
    g_interval_ns = interval_ns;
    int fd = open_event(interval_ns, 0);
    if (fd < 0)
        return errno;
    int cs = open_event(0, 1);
    int err = cs < 0 ? errno : 0;
    if (cs >= 0)
        close(cs);
    close(fd);
    g_wall = !err;
    return err;
}

int ct_perf_thread_open(uint64_t period_ns, int *slot)
{
    if (slots_map() != 0)
        return ENOMEM;
    size_t len = (size_t)page_size() * (1 + RING_DATA_PAGES);
    void *m = NULL, *m_cs = NULL;
    uint64_t id = 0, id_cs = 0;
    uint64_t first = jittered(period_ns);
    int err = open_ring(0, first, 0, len, &m, &id);
    if (err)
        return err;
    if (g_wall && open_ring(0, 0, 1, len, &m_cs, &id_cs) != 0)
        m_cs = NULL, id_cs = 0;  /* this thread's time off is not sampled */
    for (int i = 0; i < MAX_SLOTS; i++) {
        int expected = FREE;
        if (atomic_compare_exchange_strong(&g_slots[i].state, &expected, SETUP)) {
            g_slots[i].tid = (uint32_t)syscall(SYS_gettid);
            g_slots[i].ring = m;
            g_slots[i].len = len;
            g_slots[i].interval_ns = period_ns;
            g_slots[i].next_ns = 2 * period_ns - first;
            g_slots[i].period_ns = first;
            g_slots[i].owed_ns = 0;
            g_slots[i].since_open = 0;
            g_slots[i].fd = -1;
            g_slots[i].copy = STACK_COPY;
            g_slots[i].need = 0;
            g_slots[i].walked = g_slots[i].known = 0;
            g_slots[i].cut = 0;
            g_slots[i].plt_slot = ct_plt_thread_slot();
            g_slots[i].ring_cs = m_cs;
            g_slots[i].id_cs = id_cs;
            g_slots[i].out_depth = 0;
            g_slots[i].carry_ns = 0;
            atomic_store(&g_slots[i].state, LIVE);
            int hi = atomic_load(&g_slots_hi);
            while (hi < i + 1 &&
                   !atomic_compare_exchange_weak(&g_slots_hi, &hi, i + 1))
                ;
            *slot = i;
            return 0;
        }
    }
    munmap(m, len);
    if (m_cs)
        munmap(m_cs, len);
    return ENOSPC;
}

void ct_perf_thread_end(int slot)
{
    if (slot >= 0 && slot < MAX_SLOTS) {
        int expected = LIVE;
        atomic_compare_exchange_strong(&g_slots[slot].state, &expected, ENDED);
    }
}

/* ---- draining ------------------------------------------------------- */

/* One record copied out of the ring (it may wrap around its end). */
static void ring_copy(const uint8_t *data, uint64_t size, uint64_t at,
                      void *dst, size_t len)
{
    uint64_t off = at & (size - 1);
    size_t first = len < size - off ? len : (size_t)(size - off);
    memcpy(dst, data + off, first);
    memcpy((uint8_t *)dst + first, data, len - first);
}

struct ctr_reading {
    const uint8_t *p, *end;
};

static int get64(struct ctr_reading *r, uint64_t *v)
{
    if ((size_t)(r->end - r->p) < 8)
        return -1;
    memcpy(v, r->p, 8);
    r->p += 8;
    return 0;
}

/* A frame of the tracer's own code other than the thread start routine
 * (sample.c, start_sampled_thread, in a section of its own) under every
 * sampled thread's stack: the tracer was working for itself. */
extern const char __start_ct_thread_start[] __attribute__((visibility("hidden")));
extern const char __stop_ct_thread_start[] __attribute__((visibility("hidden")));

static int in_tracer(const uintptr_t *pcs, unsigned depth)
{
    for (unsigned i = 0; i < depth; i++)
        if (pcs[i] >= g_self_lo && pcs[i] < g_self_hi &&
            !(pcs[i] > (uintptr_t)__start_ct_thread_start &&
              pcs[i] <= (uintptr_t)__stop_ct_thread_start))
            return 1;
    return 0;
}

/* Unwinds one PERF_RECORD_SAMPLE and writes it; wait_ms is how long the
 * walk may wait for a loader call of the program to end. */
/* Writes one sample of the slot's thread; 0 when written. */
static void write_sample(const struct slot *s, uint64_t weight,
                        const uintptr_t *pcs, unsigned depth)
{
    if (in_tracer(pcs, depth)) {
        atomic_fetch_add_explicit(&st_in_tracer, 1, memory_order_relaxed);
        return;
    }
    /* varint tid, then the CT_EXT_SAMPLE payload */
    uint8_t payload[10 + CT_SAMPLE_PAYLOAD_MAX];
    uint8_t *p = ct_put_varint(payload, s->tid);
    p += ct_sample_encode(p, weight, pcs, depth);
    if (ct_tracer_append_ext(CT_EXT_SAMPLE_OF, payload,
                             (size_t)(p - payload)) == 0)
        atomic_fetch_add_explicit(&st_records, 1, memory_order_relaxed);
    else
        atomic_fetch_add_explicit(&st_not_written, 1, memory_order_relaxed);
}

/* A PERF_RECORD_SWITCH: at a switch in, the stack of the switch out gets
 * the time off the CPU in intervals as its weight (the rest carried to
 * the next one, so totals stay right). */
static void take_switch(struct slot *s, const uint8_t *rec, size_t len)
{
    const struct perf_event_header *h = (const void *)rec;
    /* sample_id: pid, tid, time, identifier */
    if (len < sizeof *h + 24 || (h->misc & PERF_RECORD_MISC_SWITCH_OUT) ||
        !s->out_depth)
        return;
    uint64_t t;
    memcpy(&t, rec + sizeof *h + 8, 8);
    if (t > s->out_ns) {
        uint64_t off = t - s->out_ns + s->carry_ns;
        uint64_t weight = off / g_interval_ns;
        s->carry_ns = off % g_interval_ns;
        if (weight)
            write_sample(s, weight, s->out_pcs, s->out_depth);
    }
    s->out_depth = 0;
}

/* What a walk of the slot's thread read of its copy (the file's comment,
 * "Copy size"). */
static void note_need(struct slot *s, size_t need)
{
    s->walked++;
    if (need == SIZE_MAX) {
        s->cut = 1;
        if (s->copy < STACK_COPY)
            atomic_fetch_add_explicit(&st_cut, 1, memory_order_relaxed);
    } else if (need) {
        s->known++;
        s->need = need > s->need ? need : s->need;
    }
}

/* The copy the slot's next event gets: twice the deepest walk of the
 * thread's life, once the walks since the last change all said how deep
 * they read; the full one after a walk was cut short.  The deepest walk
 * is never forgotten, so a thread is cut short at most four times (each
 * time its stack went past twice its deepest, from 512 bytes to 8 KiB). */
static unsigned next_copy(struct slot *s)
{
    unsigned copy = s->copy;
    if (s->cut) {
        copy = STACK_COPY;
    } else if (s->walked >= JITTER_SAMPLES && s->known == s->walked) {
        size_t want = (2 * s->need + 511) / 512 * 512;
        want = want < STACK_COPY_MIN ? STACK_COPY_MIN
             : want > STACK_COPY ? STACK_COPY : want;
        if (want * 2 <= s->copy || want > s->copy)
            copy = (unsigned)want;
    }
    s->walked = s->known = 0;
    s->cut = 0;
    return copy;
}

static void take_sample(struct slot *s, const uint8_t *rec, size_t len,
                        unsigned wait_ms)
{
    struct ctr_reading r = {rec + sizeof(struct perf_event_header), rec + len};
    uint64_t ident, pidtid, time, abi, v, size, dyn = 0;
    struct ct_perf_regs regs;
    memset(&regs, 0, sizeof regs);
    if (get64(&r, &ident) != 0 || get64(&r, &pidtid) != 0 ||
        get64(&r, &time) != 0 || get64(&r, &abi) != 0)
        return;
    int out = s->id_cs && ident == s->id_cs;  /* a switch out */
    if (abi == PERF_SAMPLE_REGS_ABI_NONE)
        return;   /* a kernel thread's or no user state: nothing to walk */
    for (unsigned i = 0; i < NREGS; i++) {
        if (get64(&r, &v) != 0)
            return;
        regs.r[reg_map[i].unw] = v;
    }
    if (get64(&r, &size) != 0 || size > (size_t)(r.end - r.p))
        return;
    if (!out && regs.r[16] >= g_self_lo && regs.r[16] < g_self_hi) {
        atomic_fetch_add_explicit(&st_in_tracer, 1, memory_order_relaxed);
        return;
    }
    const uint8_t *stack = r.p;
    r.p += size;
    if (size && get64(&r, &dyn) != 0)
        dyn = 0;
    if (dyn > size)
        dyn = size;

    uintptr_t pcs[CT_SAMPLE_MAX_DEPTH];
    unsigned depth;
    int changed = 0;
    if (ct_sample_walk_begin(wait_ms, &changed)) {
        if (changed)
            ct_sample_remote_objects_changed(dl_iterate_phdr);
        size_t need = 0;
        depth = ct_sample_remote_unwind(&regs, stack, (size_t)dyn, s->plt_slot,
                                        pcs, CT_SAMPLE_MAX_DEPTH, &need);
        if (!out)
            note_need(s, need);
        ct_sample_walk_end();
    } else {
        pcs[0] = (uintptr_t)regs.r[16];
        depth = 1;
        atomic_fetch_add_explicit(&st_leaf_only, 1, memory_order_relaxed);
        if (!out)
            s->walked++;   /* its need is not known: no smaller copy */
    }
    if (out) {
        /* Kept until the switch in says how long the thread was off. */
        memcpy(s->out_pcs, pcs, depth * sizeof pcs[0]);
        s->out_depth = depth;
        s->out_ns = time;
        return;
    }
    s->since_open++;
    /* The file's comment, "Jitter": whole intervals of weight. */
    int64_t unit = (int64_t)s->interval_ns;
    s->owed_ns += (int64_t)s->period_ns - unit;
    uint64_t weight = 1;
    if (s->owed_ns >= unit) {
        s->owed_ns -= unit;
        weight = 2;
    } else if (s->owed_ns <= -unit) {
        s->owed_ns += unit;
        return;
    }
    write_sample(s, weight, pcs, depth);
}

/* Returns the bytes the ring held. */
static uint64_t drain_ring(struct slot *s, void *ring, unsigned wait_ms)
{
    struct perf_event_mmap_page *pg = ring;
    const uint8_t *data = (const uint8_t *)ring + page_size();
    uint64_t size = (uint64_t)page_size() * RING_DATA_PAGES;
    uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
    uint64_t tail = pg->data_tail;
    struct slot *slots = __atomic_load_n(&g_slots, __ATOMIC_ACQUIRE);
    if (!slots)
        return 0; /* no slot was ever mapped, so no ring either */
    uint64_t held = head - tail;
    uint8_t *rec = (uint8_t *)slots + SLOTS_BYTES;
    while (tail < head) {
        struct perf_event_header h;
        ring_copy(data, size, tail, &h, sizeof h);
        if (h.size < sizeof h || h.size > head - tail)
            break;
        /* Read in place unless it wraps around the ring's end: the kernel
         * writes no record between tail and head until data_tail moves,
         * and a sample is up to 8 KiB (a copy of each was a tenth of the
         * sampler's CPU).  Read only: the ring's data pages fault on a
         * write (SIGBUS), so libunwind, which may write a return address
         * into the stack it walks, gets a copy (sample_remote.c). */
        const uint8_t *r = data + (tail & (size - 1));
        if ((tail & (size - 1)) + h.size > size) {
            ring_copy(data, size, tail, rec, h.size);
            r = rec;
        }
        if (h.type == PERF_RECORD_SAMPLE) {
            take_sample(s, r, h.size, wait_ms);
        } else if (h.type == PERF_RECORD_SWITCH) {
            take_switch(s, r, h.size);
        } else if (h.type == PERF_RECORD_LOST && h.size >= sizeof h + 16) {
            uint64_t n;
            memcpy(&n, r + sizeof h + 8, 8);
            atomic_fetch_add_explicit(&st_lost, n, memory_order_relaxed);
        }
        tail += h.size;
    }
    __atomic_store_n(&pg->data_tail, head, __ATOMIC_RELEASE);
    return held;
}

/* Samples of a period before it changes: JITTER_SAMPLES, or as many as
 * the stretch's least CPU time holds at the interval, that of a new event
 * when the sampler holds no descriptor to change the period by. */
static unsigned reopen_after(const struct slot *s)
{
    uint64_t least = s->fd >= 0 ? JITTER_MIN_NS : JITTER_OPEN_MIN_NS;
    return s->interval_ns * JITTER_SAMPLES >= least
               ? JITTER_SAMPLES : (unsigned)(least / s->interval_ns);
}

/* Whether tid is a thread of this process: a thread that ended without
 * saying so (its slot still live) may have left its number to another
 * process, which must not be sampled. */
static int ours(uint32_t tid)
{
    char path[48];
    struct stat st;
    snprintf(path, sizeof path, "/proc/self/task/%u", tid);
    return stat(path, &st) == 0;
}

/* A new event on the slot's thread at a new period (the file's comment,
 * "Jitter").  The new one is opened before the old one goes, so a refusal
 * (no descriptor free, say) leaves the thread sampled as it was; the old
 * ring is drained before it is unmapped, and the two overlap only for the
 * few microseconds between. */
static void reopen(struct slot *s, unsigned wait_ms)
{
    s->since_open = 0;
    uint64_t per = s->next_ns ? s->next_ns : jittered(s->interval_ns);
    unsigned copy = next_copy(s);
    if (s->fd >= 0 && copy == s->copy) {
        /* The event restarts its period from now, losing the time it
         * counted since its last sample, as a new event would; a tenth
         * of the cost of one (no open, map and unmap). */
        drain_ring(s, s->ring, wait_ms);    /* at the old period */
        if (ioctl(s->fd, PERF_EVENT_IOC_PERIOD, &per) == 0)
            goto changed;
        close(s->fd);
        s->fd = -1;
    }
    void *m = NULL;
    uint64_t id = 0;
    int fd = -1;
    struct perf_event_attr a;
    event_attr(&a, per, 0, copy);
    int err = g_own_table ? ct_perf_ring_open_kept(&a, (pid_t)s->tid, s->len,
                                                   &m, &id, &fd)
                          : EBADF;
    /* no table of its own, or no descriptor left in it (RLIMIT_NOFILE,
     * a thousand threads): the event without its descriptor */
    if (err && ct_perf_ring_open(&a, (pid_t)s->tid, s->len, &m, &id) != 0)
        return;
    if (!ours(s->tid)) {
        munmap(m, s->len);
        if (fd >= 0)
            close(fd);
        return;
    }
    drain_ring(s, s->ring, wait_ms);    /* at the old period */
    munmap(s->ring, s->len);
    if (s->fd >= 0)
        close(s->fd);
    s->ring = m;
    s->fd = fd;
    s->copy = copy;
changed:
    s->since_open = 0;
    s->next_ns = s->next_ns ? 0 : 2 * s->interval_ns - per;
    s->owed_ns += (int64_t)(s->period_ns / 2);
    s->period_ns = per;
}

/* Every ring once; ended threads' rings are unmapped after.  Returns the
 * most bytes any ring held. */
static uint64_t drain_all(unsigned wait_ms)
{
    uint64_t most = 0, held;
    unsigned biggest = g_wall ? STACK_COPY : STACK_COPY_MIN;
    int hi = atomic_load(&g_slots_hi);
    for (int i = 0; i < hi; i++) {
        struct slot *s = &g_slots[i];
        int st = atomic_load(&s->state);
        if (st != LIVE && st != ENDED)
            continue;
        held = drain_ring(s, s->ring, wait_ms);
        most = held > most ? held : most;
        if (s->ring_cs) {
            held = drain_ring(s, s->ring_cs, wait_ms);
            most = held > most ? held : most;
        }
        /* a walk cut short by a smaller copy: the full one at once */
        if (st == LIVE && atomic_load(&g_running) &&
            (s->since_open >= reopen_after(s) ||
             (s->cut && s->copy < STACK_COPY)))
            reopen(s, wait_ms);
        if (st == LIVE)
            biggest = s->copy > biggest ? s->copy : biggest;
        if (st == ENDED) {
            /* A descriptor number means something in the sampler's table
             * only: any other thread (the last drain, at exit) leaves it. */
            if (s->fd >= 0 && t_sampler)
                close(s->fd);
            s->fd = -1;
            munmap(s->ring, s->len);
            if (s->ring_cs)
                munmap(s->ring_cs, s->len);
            s->ring = NULL;
            s->ring_cs = NULL;
            atomic_store(&s->state, FREE);
        }
    }
    __atomic_store_n(&g_biggest_copy, biggest, __ATOMIC_RELAXED);
    return most;
}

/* ---- the sampler's thread ------------------------------------------- */

/* Whether a thread of the program other than the caller is alive: a main
 * thread that called pthread_exit stays in the thread count as a zombie
 * until the whole process ends, so each thread's state is read.  Any doubt
 * (nothing readable) counts as alive. */
static int others_alive(void)
{
    DIR *d = opendir("/proc/self/task");
    if (!d)
        return 1;
    pid_t me = (pid_t)syscall(SYS_gettid);
    int alive = 0, read_any = 0;
    struct dirent *e;
    while (!alive && (e = readdir(d))) {
        pid_t tid = (pid_t)atoi(e->d_name);
        if (tid <= 0 || tid == me)
            continue;
        char path[64], buf[512];
        snprintf(path, sizeof path, "/proc/self/task/%d/stat", (int)tid);
        FILE *f = fopen(path, "re");
        if (!f)
            continue;
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[n] = '\0';
        const char *p = strrchr(buf, ')');
        read_any = 1;
        if (p && p[1] == ' ' && p[2] != 'Z' && p[2] != 'X')
            alive = 1;
    }
    closedir(d);
    return alive || !read_any;
}

/*
 * libunwind masks every signal around each look-up of its caches and of
 * the unwind tables (sigprocmask or pthread_sigmask, twice per frame): on
 * a virtual machine those system calls were most of the sampler's cost.
 * The sampler's thread blocks every signal for its whole life, so there a
 * change of mask changes nothing and is answered without the call; every
 * other thread's call passes through.
 */

#define EXPORT __attribute__((visibility("default")))

static int mask_call(int (**real)(int, const sigset_t *, sigset_t *),
                     const char *name, int how, const sigset_t *set,
                     sigset_t *old)
{
    if (t_sampler) {
        if (old)
            sigfillset(old);
        return 0;
    }
    if (!*real)
        *real = (int (*)(int, const sigset_t *, sigset_t *))dlsym(RTLD_NEXT, name);
    if (!*real)
        return ENOSYS;
    return (*real)(how, set, old);
}

static int (*real_pthread_sigmask)(int, const sigset_t *, sigset_t *);
static int (*real_sigprocmask)(int, const sigset_t *, sigset_t *);

/* Resolved when the library is loaded: a program may change its mask in a
 * signal handler, where dlsym must not run.  A call before this (another
 * library's constructor) resolves its own. */
__attribute__((constructor)) static void resolve_masks(void)
{
    sigset_t none;
    mask_call(&real_pthread_sigmask, "pthread_sigmask", SIG_BLOCK, NULL, &none);
    mask_call(&real_sigprocmask, "sigprocmask", SIG_BLOCK, NULL, &none);
}

EXPORT int pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
    return mask_call(&real_pthread_sigmask, "pthread_sigmask", how, set, old);
}

EXPORT int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
    return mask_call(&real_sigprocmask, "sigprocmask", how, set, old);
}

/* A descriptor table of the sampler's thread's own (unshare), emptied at
 * once of the copies of the program's descriptors it starts with: then the
 * events' descriptors can be kept, which no thread of the program sees in
 * its table (/proc/self/fd is the main thread's), closes or counts
 * against its limit.  The copies are closed before anything else: a pipe
 * the program closes meanwhile sees its end a few microseconds late; a
 * close in another table releases none of the program's fcntl locks
 * (their owner is the program's table).  Refused (no close_range, a
 * seccomp filter): 0, and each new period is a new event. */
static int own_table(void)
{
#if defined(SYS_close_range)
    /* close_range is known before the table is split: with a range past
     * any descriptor it closes nothing. */
    if (syscall(SYS_close_range, ~0u - 1, ~0u, 0) != 0)
        return 0;
    if (unshare(CLONE_FILES) != 0)
        return 0;
    if (syscall(SYS_close_range, 0, ~0u, 0) == 0)
        return 1;
    /* Not expected once the probe passed; the copies must go anyway. */
    DIR *d = opendir("/proc/thread-self/fd");
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (atoi(e->d_name) != dirfd(d) && e->d_name[0] != '.')
            close(atoi(e->d_name));
    if (d)
        closedir(d);
    return 0;
#else
    return 0;
#endif
}

/* Set once the sampler's thread has written its first record: start_thread
 * waits for it, so that no CPU time of the program's sampled before that
 * record falls outside the run's span. */
static atomic_int g_named;

/* The longest nap: a thread always on the CPU fills at most 0.4 of a
 * ring of the largest copy (0.54 with the nap's jitter, under the five
 * eighths that halve it); 1 to 20 ms.  A sample is its copy and about
 * 200 bytes of header and registers. */
static uint64_t nap_max(uint64_t ring)
{
    /* written by the drains, which the exiting thread may run too */
    unsigned copy = __atomic_load_n(&g_biggest_copy, __ATOMIC_RELAXED);
    uint64_t holds = ring / (copy + 256u);
    uint64_t ns = g_interval_ns * holds * 2 / 5;
    return ns < 1000000u ? 1000000u : ns > 20000000u ? 20000000u : ns;
}

static void *sampler_thread(void *arg)
{
    (void)arg;
    t_sampler = 1;
    /* A record now, at the start: a sample's weight is the CPU time before
     * it, so the run's span must begin before the first drain, or the
     * samples add up to more time than the span they fall in. */
    static const char name[] = "calltrace-sampler";
    ct_tracer_append_ext(CT_EXT_THREAD_NAME, name, sizeof name - 1);
    atomic_store(&g_named, 1);
    syscall(SYS_futex, (int *)&g_named, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
    /* libunwind loads here, not on the program's thread: its milliseconds
     * of CPU are the tracer's, and fall after the record above.  Loaded
     * before this thread's table is its own, which has no standard error
     * to say it cannot be (ct_message finds it changed).  Its address
     * checks take no descriptor (unwind_fds.c). */
    static const char no_unwinder[] =
        "calltrace: sampling: cannot load libunwind's remote unwinder "
        "(libunwind-x86_64.so.8): samples keep the interrupted pc only";
    int loaded = ct_sample_remote_load();
    if (loaded < 0)
        ct_message("%s", no_unwinder);
    g_own_table = own_table();
    if (loaded == 0 && ct_sample_remote_prepare() < 0)
        ct_tracer_append_ext(CT_EXT_USER, no_unwinder, sizeof no_unwinder - 1);
    uint64_t period = g_period_ns, checked = ct_mono_ns();
    const uint64_t ring = (uint64_t)page_size() * RING_DATA_PAGES;
    while (atomic_load(&g_running)) {
        /* Naps of 0.65 to 1.35 periods: the events replaced in a drain
         * (reopen) start at no fixed instant of a program paced by the
         * same clock. */
        uint64_t ns = jittered(period);
        struct timespec nap = {(time_t)(ns / 1000000000u),
                               (long)(ns % 1000000000u)};
        nanosleep(&nap, NULL);
        /* A program whose threads have all ended is gone but for us: we
         * must not keep it alive.  Once a second. */
        uint64_t now = ct_mono_ns();
        if (now - checked >= 1000000000u) {
            checked = now;
            if (!others_alive())
                break;
        }
        pthread_mutex_lock(&g_drain);
        uint64_t most = atomic_load(&g_running) ? drain_all(50) : 0;
        pthread_mutex_unlock(&g_drain);
        /* Each wake costs the sampler 10-20 us on a virtual machine: the
         * period grows while every ring stays under a quarter full (an
         * idle program: the longest naps) and halves when one passed five
         * eighths (many switches off the CPU, with the wall clock). */
        uint64_t longest = nap_max(ring);
        if (most < ring / 4)
            period = period + period / 2;
        else if (most > ring / 8 * 5)
            period = period / 2 > 1000000u ? period / 2 : 1000000u;
        period = period < longest ? period : longest;
    }
    return NULL;
}

static int start_thread(void)
{
    /* Every signal blocked: the program's signals go to its own threads. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&at, 256 << 10);
    int (*create)(pthread_t *, const pthread_attr_t *, void *(*)(void *),
                  void *) = ct_next_definition("pthread_create");
    pthread_t th;
    atomic_store(&g_running, 1);
    atomic_store(&g_named, 0);
    int err = create ? create(&th, &at, sampler_thread, NULL) : ENOSYS;
    pthread_attr_destroy(&at);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    /* At most about a second: a sampler that never runs costs no more.
     * One wait, not naps: each time the thread leaves the CPU is a
     * switch-out sample with an 8 KiB stack copy in its ring, and naps of
     * 0.1 ms until a loaded machine runs the sampler filled the ring
     * before its first drain, so the program's first sleep was lost. */
    for (int i = 0; !err && !atomic_load(&g_named) && i < 10; i++) {
        struct timespec wait = {0, 100000000};
        syscall(SYS_futex, (int *)&g_named, FUTEX_WAIT_PRIVATE, 0, &wait,
                NULL, 0);
    }
    if (err)
        atomic_store(&g_running, 0);
    return err;
}

int ct_perf_start(uint64_t interval_ns)
{
    dl_iterate_phdr(find_self, (void *)(uintptr_t)ct_perf_start);
    ct_sample_remote_choose();
    /* Four samples a drain at first, a ring holding fifteen of 8 KiB;
     * 1 to 20 ms. */
    g_interval_ns = interval_ns;
    uint64_t p = interval_ns * 4;
    g_period_ns = p < 1000000u ? 1000000u : p > 20000000u ? 20000000u : p;
    return start_thread() == 0 ? 0 : -1;
}

void ct_perf_stop(void)
{
    atomic_store(&g_running, 0);
    pthread_mutex_lock(&g_drain);
    for (int i = 0; i < atomic_load(&g_slots_hi); i++)
        ct_perf_thread_end(i);
    drain_all(100);
    pthread_mutex_unlock(&g_drain);
}

void ct_perf_after_fork_child(void)
{
    /* The parent's rings were not copied (MADV_DONTFORK) and its sampler
     * thread is not here. */
    pthread_mutex_init(&g_drain, NULL);
    for (int i = 0; g_slots && i < MAX_SLOTS; i++) {
        g_slots[i].ring = NULL;
        g_slots[i].ring_cs = NULL;
        g_slots[i].fd = -1;   /* the parent's sampler's table */
        atomic_store(&g_slots[i].state, FREE);
    }
    atomic_store(&g_slots_hi, 0);
    atomic_store(&st_records, 0);
    atomic_store(&st_lost, 0);
    atomic_store(&st_leaf_only, 0);
    atomic_store(&st_not_written, 0);
    atomic_store(&st_in_tracer, 0);
    atomic_store(&st_cut, 0);
    if (atomic_load(&g_running))
        start_thread();
}

void ct_perf_get_stats(struct ct_perf_stats *out)
{
    out->records = atomic_load(&st_records);
    out->lost = atomic_load(&st_lost);
    out->leaf_only = atomic_load(&st_leaf_only);
    out->not_written = atomic_load(&st_not_written);
    out->in_tracer = atomic_load(&st_in_tracer);
    out->cut = atomic_load(&st_cut);
}

#else /* !__x86_64__: the timer sampler only */

int ct_perf_thread_open(uint64_t period_ns, int *slot)
{
    (void)period_ns, (void)slot;
    return ENOSYS;
}
void ct_perf_thread_end(int slot) { (void)slot; }
int ct_perf_start(uint64_t interval_ns)
{
    (void)interval_ns;
    return -1;
}
void ct_perf_stop(void) {}
void ct_perf_after_fork_child(void) {}
int ct_perf_wall(uint64_t interval_ns)
{
    (void)interval_ns;
    return ENOSYS;
}
void ct_perf_get_stats(struct ct_perf_stats *out)
{
    memset(out, 0, sizeof *out);
}

#endif
