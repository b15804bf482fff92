/*
 * The profile mode (CALLTRACE_MODE=profile): nothing per call reaches the
 * disk.  Each thread keeps a table of its call paths (a calling-context
 * tree) with each path's exact call count and its inclusive and self time,
 * and the frames it has open, in a PROFILE block of the trace file
 * (docs/trace-format.md).  The block is a shared mapping updated in place,
 * so whatever ends the process (exit, a fatal signal, SIGKILL) the file
 * holds the table as of the last return, less the one update under way.
 *
 * The hooks' fast path is the trace mode's, untouched: the stop bit
 * CT_STOP_PROFILE sends every call to the slow path (thread.c), which
 * comes here where the trace mode writes a record.  So hidden frames
 * (tracing off, CALLTRACE_OFF regions), longjmp, exceptions, frames left
 * below a new call's stack pointer and re-entry from signal handlers are
 * handled by the same code as in the trace mode.
 *
 * A path is found from its parent's node and its function through a hash
 * table of the thread's own (scratch memory, not in the file).  Paths
 * beyond the table's room (CALLTRACE_PROFILE_PATHS) and frames deeper than
 * CT_MAX_DEPTH are counted, with their time, not dropped silently.
 */
#include <string.h>
#include <sys/mman.h>

#include "preload/base/budget.h"
#include "preload/profile/profile_mode.h"
#include "preload/base/scratch.h"
#include "preload/tracer.h"

#define DEFAULT_PATHS 16384u
#define MIN_PATHS 2u
#define MAX_PATHS (1u << 22)
#define FRAME_CAP CT_MAX_DEPTH

uint32_t ct_profile_stop;
static uint32_t node_cap = DEFAULT_PATHS;

/* One thread's profile: where its block is, and its lookup table. */
struct prof {
    struct ct_block_header *blk;  /* NULL until the thread's first call, and
                                     again in a forked child             */
    struct ct_prof_head *head;
    struct ct_prof_frame *fr;
    struct ct_prof_node *nodes;
    uint32_t *slots;              /* node index by (parent, fn); 0 empty  */
    uint32_t mask;
    uint32_t size;                /* the block's bytes                    */
    uint32_t depth;               /* frames the profile entered, open     */
    int failed;                   /* no block to be had: calls counted lost */
    int rebuild;                  /* open frames to take from the shadow
                                     stack when the block is made         */
};

static size_t slots_bytes(void)
{
    return (size_t)2 * node_cap * sizeof(uint32_t);
}

static uint32_t block_bytes(void)
{
    uint64_t n = CT_BLOCK_HEADER_SIZE + sizeof(struct ct_prof_head) +
                 (uint64_t)FRAME_CAP * sizeof(struct ct_prof_frame) +
                 (uint64_t)node_cap * sizeof(struct ct_prof_node);
    return (uint32_t)ct_align_up(n, CT_BLOCK_ALIGN);
}

void ct_profile_start(void)
{
    const char *mode = ct_env_get("CALLTRACE_MODE");
    if (!mode || strcmp(mode, "profile") != 0)
        return;
    if (ct_proc.cfg.flight || strncmp(ct_proc.cfg.output, "tcp:", 4) == 0 ||
        strncmp(ct_proc.cfg.output, "unix:", 5) == 0) {
        ct_message("calltrace: CALLTRACE_MODE=profile keeps its tables in a "
                   "trace file, not a flight ring or a stream: tracing "
                   "calls instead");
        return;
    }
    const char *paths = ct_env_get("CALLTRACE_PROFILE_PATHS");
    if (paths && *paths) {
        uint64_t v;
        if (ct_parse_size(paths, &v) != 0 || v < MIN_PATHS || v > MAX_PATHS)
            ct_message("calltrace: CALLTRACE_PROFILE_PATHS=%s is not a "
                       "number from %u to %u: using %u", paths, MIN_PATHS,
                       MAX_PATHS, DEFAULT_PATHS);
        else
            node_cap = (uint32_t)v;
    }
    if (ct_env_get("CALLTRACE_FILTER") || ct_env_get("CALLTRACE_DEPTH") ||
        ct_env_get("CALLTRACE_MIN_DURATION") || ct_env_get("CALLTRACE_TRIGGER"))
        ct_message("calltrace: CALLTRACE_MODE=profile counts every call: "
                   "the record-time filters are not applied");
    /* Off-CPU time per path needs each switch: the CPU-time clock read
     * at block boundaries has no place in a profile, which has none. */
    if (ct_proc.cfg.cputime == CT_CPUTIME_CLOCK)
        ct_proc.cfg.cputime = CT_CPUTIME_OFF;
    ct_profile_stop = CT_STOP_PROFILE;
}

static uint32_t hash(uint32_t parent, uintptr_t fn)
{
    uint64_t k = ((uint64_t)fn ^ ((uint64_t)parent << 40)) *
                 0x9e3779b97f4a7c15ull;
    return (uint32_t)(k >> 32);
}

/* The node of path parent -> fn, made if new; CT_PROF_NONE when the table
 * is full.  The node is written whole before `nodes` counts it. */
static uint32_t lookup(struct prof *s, uint32_t parent, uintptr_t fn)
{
    uint32_t i = hash(parent, fn) & s->mask;
    for (uint32_t n; (n = s->slots[i]) != 0; i = (i + 1) & s->mask)
        if (s->nodes[n].fn == fn && s->nodes[n].parent == parent)
            return n;
    uint32_t n = s->head->nodes;
    if (n >= s->head->node_cap)
        return CT_PROF_NONE;
    s->nodes[n].fn = fn;
    s->nodes[n].parent = parent;
    __atomic_store_n(&s->head->nodes, n + 1, __ATOMIC_RELEASE);
    s->slots[i] = n;
    return n;
}

/* The thread's off-CPU intervals that ended since its previous call or
 * return: spent in the frame on top then, as its self time's off part. */
static void charge_off(struct ct_thread *t, struct prof *s)
{
    if (ct_likely(!ct_cpu_pending(t)))
        return;
    uint64_t ticks = ct_ns_to_ticks(ct_cpu_drain_off_ns(t));
    uint32_t d = s->depth;
    if (d && d <= FRAME_CAP && s->fr[d - 1].node != CT_PROF_NONE)
        s->nodes[s->fr[d - 1].node].off += ticks;
}

/* Pushes a frame of fn; counted is 0 for a frame that was open before
 * (a fork, a context switch): its call is not this table's. */
static void push(struct prof *s, uintptr_t fn, uint64_t now, int counted)
{
    /* A call's own entry is timed after its path is found: a new path's
     * first touch of its page is the tracer's, not the callee's. */
    uint32_t d = s->depth++;
    if (d >= FRAME_CAP) {
        if (counted)
            s->head->over_calls++;
        return;
    }
    uint32_t parent = d ? s->fr[d - 1].node : 0;
    uint32_t n = parent == CT_PROF_NONE ? CT_PROF_NONE
                                        : lookup(s, parent, fn);
    struct ct_prof_frame *f = &s->fr[d];
    f->node = n;
    f->start = now ? now : ct_now();
    f->child = 0;
    if (counted) {
        if (n == CT_PROF_NONE)
            s->head->over_calls++;
        else
            s->nodes[n].calls++;
    }
    __atomic_store_n(&s->head->depth, d + 1, __ATOMIC_RELEASE);
}

/* The frames open on the thread's shadow stack, hidden ones left out, as
 * open frames of the table from now. */
static void take_shadow(struct prof *s, const struct ct_thread *t,
                        uint64_t now)
{
    s->depth = 0;
    s->head->depth = 0;
    uint32_t kept = ct_frames_kept(t);
    if (kept > t->depth)
        kept = t->depth;
    for (uint32_t d = 0; d < kept; d++)
        if (!(t->hidden[d / 64] >> (d % 64) & 1))
            push(s, ct_frame_fn(t, d), now, 0);
    for (uint32_t d = kept; d < t->depth; d++)
        push(s, 0, now, 0);
}

static void make_block(struct prof *s, struct ct_thread *t)
{
    int limit_hit;
    uint32_t size = block_bytes();
    uint8_t *b = ct_file_new_block(size, &limit_hit);
    if (!b) {
        s->failed = 1;
        return;
    }
    ct_budget_add(size);
    uint64_t now = ct_now();
    s->blk = (struct ct_block_header *)b;
    s->size = size;
    s->head = (struct ct_prof_head *)(b + CT_BLOCK_HEADER_SIZE);
    s->fr = (struct ct_prof_frame *)(s->head + 1);
    s->nodes = (struct ct_prof_node *)(s->fr + FRAME_CAP);
    s->head->node_cap = node_cap;
    s->head->frame_cap = FRAME_CAP;
    s->head->nodes = 1;  /* the root */
    s->nodes[0].parent = 0;
    ct_block_begin(s->blk, CT_BLOCK_PROFILE, size, t->tid, 0, now);
    s->blk->last_ticks = now;
    s->blk->used = size - CT_BLOCK_HEADER_SIZE;
    if (s->rebuild) {
        s->rebuild = 0;
        take_shadow(s, t, now);
    }
}

/* The thread's profile, its block made at its first call; NULL when no
 * memory is left for it (the call is then counted lost). */
static struct prof *get(struct ct_thread *t)
{
    struct prof *s = t->profile;
    if (ct_unlikely(!s)) {
        s = ct_scratch_alloc(sizeof *s + slots_bytes());
        if (!s)
            return NULL;
        s->slots = (uint32_t *)(s + 1);
        /* The largest power of two within the 2 x node_cap slots: more
         * than node_cap, so a probe always ends at an empty one. */
        uint32_t p = 1;
        while (p <= node_cap)
            p *= 2;
        s->mask = p - 1;
        t->profile = s;
    }
    if (ct_unlikely(!s->blk) && !s->failed)
        make_block(s, t);
    return s;
}

void ct_profile_enter(struct ct_thread *t, uintptr_t fn)
{
    struct prof *s = get(t);
    if (ct_unlikely(!s || s->failed)) {
        if (s)
            s->depth++;
        ct_count_lost_global(1);
        return;
    }
    charge_off(t, s);
    push(s, fn, 0, 1);
}

void ct_profile_exit(struct ct_thread *t)
{
    uint64_t now = ct_now();
    struct prof *s = get(t);
    if (ct_unlikely(!s || !s->depth))
        return;
    if (!s->failed)
        charge_off(t, s);
    uint32_t d = --s->depth;
    if (ct_unlikely(s->failed)) {
        ct_count_lost_global(1);
        return;
    }
    if (d >= FRAME_CAP)
        return;
    struct ct_prof_frame *f = &s->fr[d];
    uint64_t incl = now > f->start ? now - f->start : 0;
    uint64_t self = incl > f->child ? incl - f->child : 0;
    if (ct_likely(f->node != CT_PROF_NONE)) {
        struct ct_prof_node *n = &s->nodes[f->node];
        n->incl += incl;
        n->self += self;
    } else if (d == 0 || s->fr[d - 1].node != CT_PROF_NONE) {
        s->head->over_ticks += incl;  /* the outermost frame outside */
    }
    if (d)
        s->fr[d - 1].child += incl;
    __atomic_store_n(&s->head->depth, d, __ATOMIC_RELEASE);
    s->blk->last_ticks = now;
}

static void let_go(struct ct_thread *t, int unmap)
{
    struct prof *s = t->profile;
    if (!s)
        return;
    if (s->blk && unmap) {
        munmap(s->blk, s->size);
        ct_budget_add(-(int64_t)s->size);
    }
    t->profile = NULL;
    ct_scratch_free(s, sizeof *s + slots_bytes());
}

void ct_profile_close(struct ct_thread *t)
{
    struct prof *s = t->profile;
    if (!s || !s->blk)
        return;
    charge_off(t, s);
    s->blk->last_ticks = ct_now();
}

void ct_profile_thread_end(struct ct_thread *t)
{
    struct prof *s = t->profile;
    if (!s)
        return;
    if (s->blk) {
        charge_off(t, s);
        s->blk->last_ticks = ct_now();
        __atomic_fetch_or(&s->blk->flags, CT_BLOCK_LAST | CT_BLOCK_CLOSED,
                          __ATOMIC_RELEASE);
    }
    let_go(t, 1);
}

void ct_profile_after_fork(struct ct_thread *t, int self)
{
    struct prof *s = t->profile;
    if (!s)
        return;
    if (!self) {
        let_go(t, 1);
        return;
    }
    if (s->blk) {
        munmap(s->blk, s->size);
        ct_budget_add(-(int64_t)s->size);
    }
    /* The child's table starts empty, with the frames open at the fork
     * (not its calls, as the trace's STACK record in a child). */
    memset(s->slots, 0, slots_bytes());
    s->blk = NULL;
    s->head = NULL;
    s->fr = NULL;
    s->nodes = NULL;
    s->failed = 0;
    s->rebuild = 1;
}

void ct_profile_switch(struct ct_thread *t)
{
    struct prof *s = t->profile;
    if (!s || s->failed)
        return;
    if (!s->blk) {
        s->rebuild = 1;
        return;
    }
    take_shadow(s, t, ct_now());
}

/* The calibration's table (profile_bias.c): in memory of its own, not in
 * the file, which may not exist yet. */
int ct_profile_bias_begin(struct ct_thread *t)
{
    struct prof *s = ct_scratch_alloc(sizeof *s + slots_bytes());
    if (!s)
        return -1;
    uint32_t size = block_bytes();
    uint8_t *b = mmap(NULL, size, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (b == MAP_FAILED) {
        ct_scratch_free(s, sizeof *s + slots_bytes());
        return -1;
    }
    s->slots = (uint32_t *)(s + 1);
    uint32_t p = 1;
    while (p <= node_cap)
        p *= 2;
    s->mask = p - 1;
    s->blk = (struct ct_block_header *)b;
    s->size = size;
    s->head = (struct ct_prof_head *)(b + CT_BLOCK_HEADER_SIZE);
    s->fr = (struct ct_prof_frame *)(s->head + 1);
    s->nodes = (struct ct_prof_node *)(s->fr + FRAME_CAP);
    s->head->node_cap = node_cap;
    s->head->frame_cap = FRAME_CAP;
    s->head->nodes = 1;
    t->profile = s;
    return 0;
}

void ct_profile_bias_stamps(const struct ct_thread *t, uint64_t *enter,
                            uint64_t *exit)
{
    const struct prof *s = t->profile;
    *enter = s->fr[0].start;
    *exit = s->blk->last_ticks;
}

void ct_profile_bias_end(struct ct_thread *t)
{
    struct prof *s = t->profile;
    munmap(s->blk, s->size);
    t->profile = NULL;
    ct_scratch_free(s, sizeof *s + slots_bytes());
}
