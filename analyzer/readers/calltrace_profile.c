/*
 * PROFILE blocks (CALLTRACE_MODE=profile, docs/trace-format.md): each
 * thread's table of call paths, handed to the sink as one CT_EV_PATH
 * event per path, between a start at the thread's first call and a
 * THREAD_END at its last time.  Frames the table shows open (the process
 * was killed, or the thread was still running at exit) are closed at the
 * thread's last time, as the trace's readers close them: their time up to
 * there is counted, their calls were counted at entry.
 */
#include <stdlib.h>
#include <string.h>

#include "analyzer/readers/calltrace_reader.h"
#include "analyzer/util.h"

/* One thread's table, read out of its block. */
struct table {
    const struct ct_prof_node *nodes;
    uint32_t n;
    uint64_t *self, *kids, *lib_kids;  /* lib_kids: of kids, library calls */
    uint32_t *fid;
};

bool ct_calltrace_is_profile(const struct ct_input *in)
{
    struct ct_file_header h;
    if (in->size < sizeof h)
        return false;
    memcpy(&h, in->data, sizeof h);
    return memcmp(h.magic, CT_FILE_MAGIC, CT_FILE_MAGIC_LEN) == 0 &&
           (h.flags & CT_FILE_PROFILE);
}

void ctr_profile_threads(struct ct_trace_info *info, struct block *blocks,
                         size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (blocks[i].kind == CT_BLOCK_PROFILE) {
            blocks[i].thread = ct_trace_thread(info, blocks[i].tid);
            info->profile_mode = true;
            /* The tables' off-CPU parts come from each thread's switches */
            if (info->oncpu == CT_ONCPU_SWITCH)
                info->threads[blocks[i].thread].oncpu = CT_ONCPU_SWITCH;
        }
}

/* The head of block b when its layout holds together, else NULL. */
static const struct ct_prof_head *head_of(const struct ctr_reading *r,
                                          const struct block *b)
{
    const uint8_t *p = r->in->data + b->off + CT_BLOCK_HEADER_SIZE;
    size_t room = b->avail - CT_BLOCK_HEADER_SIZE;
    if (b->avail < CT_BLOCK_HEADER_SIZE + sizeof(struct ct_prof_head))
        return NULL;
    const struct ct_prof_head *h = (const struct ct_prof_head *)p;
    uint64_t need = sizeof *h +
                    (uint64_t)h->frame_cap * sizeof(struct ct_prof_frame) +
                    (uint64_t)h->node_cap * sizeof(struct ct_prof_node);
    if (need > room || h->nodes > h->node_cap || h->depth > h->frame_cap ||
        h->nodes == 0)
        return NULL;
    return h;
}

/* Open frames closed at end: their time goes to their paths. */
static uint64_t close_open(struct table *t, const struct ct_prof_head *h,
                           uint64_t end)
{
    const struct ct_prof_frame *fr = (const struct ct_prof_frame *)(h + 1);
    uint64_t inner = 0;  /* incl of the open frame above */
    for (uint32_t d = h->depth; d-- > 0;) {
        uint64_t incl = end > fr[d].start ? end - fr[d].start : 0;
        uint64_t kids = ct_sat_add(fr[d].child, inner);
        uint64_t self = incl > kids ? incl - kids : 0;
        if (fr[d].node < t->n)
            t->self[fr[d].node] += self;
        inner = incl;
    }
    return h->depth;
}

static void emit(struct ctr_reading *r, struct ct_event *ev)
{
    if (!r->stop && r->sink->event(r->sink, ev))
        r->stop = true;
}

/* Its path, outermost first, into r->ids; its depth, 0 when broken. */
static uint32_t path_of(struct ctr_reading *r, const struct table *t, uint32_t i)
{
    uint32_t d = 0;
    for (uint32_t k = i; k; k = t->nodes[k].parent) {
        if (t->nodes[k].parent >= k)
            return 0;  /* a parent is always made before its children */
        d++;
    }
    ct_grow(&r->ids, &r->ids_cap, d, sizeof *r->ids);
    uint32_t j = d;
    for (uint32_t k = i; k; k = t->nodes[k].parent)
        r->ids[--j] = t->fid[k];
    return d;
}

static void read_one(struct ctr_reading *r, const struct block *b, uint64_t end_ticks)
{
    const struct ct_prof_head *h = head_of(r, b);
    if (!h) {
        ctr_set_stopped(r->info, r->in->path, b->off,
                        "damaged profile block at byte %zu", (size_t)b->off);
        return;
    }
    const struct ct_prof_frame *fr = (const struct ct_prof_frame *)(h + 1);
    struct table t = {
        .nodes = (const struct ct_prof_node *)(fr + h->frame_cap),
        .n = h->nodes,
    };
    t.self = ct_xcalloc(t.n, sizeof *t.self);
    t.kids = ct_xcalloc(t.n, sizeof *t.kids);
    t.lib_kids = ct_xcalloc(t.n, sizeof *t.lib_kids);
    t.fid = ct_xcalloc(t.n, sizeof *t.fid);
    uint64_t first = b->first;
    for (uint32_t d = 0; d < h->depth; d++)
        if (fr[d].start && fr[d].start < first)
            first = fr[d].start;
    /* A thread still running when the process closed its file ends at
     * the close, as the trace's THREAD_END written for it says. */
    uint64_t end = b->last > first ? b->last : first;
    if (!(b->flags & CT_BLOCK_LAST) && end_ticks > end)
        end = end_ticks;
    for (uint32_t i = 1; i < t.n; i++) {
        t.self[i] = t.nodes[i].self;
        t.fid[i] = ct_functab_intern_addr(r->info->funcs, t.nodes[i].fn);
        if (t.nodes[i].parent < i) {
            t.kids[t.nodes[i].parent] += t.nodes[i].calls;
            if (ct_functab_is_libcall(r->info->funcs, t.fid[i]))
                t.lib_kids[t.nodes[i].parent] += t.nodes[i].calls;
        }
    }
    close_open(&t, h, end);
    r->info->profile_over_calls += h->over_calls;
    r->info->profile_over_ticks += h->over_ticks;
    if (!r->info->have_first_time || first < r->info->first_time) {
        r->info->have_first_time = true;
        r->info->first_time = first;
    }
    struct ct_event ev = {.kind = CT_EV_STACK, .thread = b->thread,
                          .time = first, .func = CT_FUNC_NONE};
    emit(r, &ev);
    for (uint32_t i = 1; i < t.n && !r->stop; i++) {
        uint32_t d = path_of(r, &t, i);
        if (!d)
            continue;
        ev = (struct ct_event){
            .kind = CT_EV_PATH, .thread = b->thread, .time = first,
            .func = CT_FUNC_NONE, .count = t.nodes[i].calls,
            .stack = r->ids, .depth = d, .path_self = t.self[i],
            .path_kids = t.kids[i], .path_lib_kids = t.lib_kids[i],
            .path_off = t.nodes[i].off,
        };
        emit(r, &ev);
    }
    /* The frames still open, as a STACK at the end that THREAD_END
     * closes: counted as open at the end, their time already in. */
    uint32_t nopen = 0;
    ct_grow(&r->ids, &r->ids_cap, h->depth, sizeof *r->ids);
    for (uint32_t d = 0; d < h->depth; d++)
        if (fr[d].node && fr[d].node < t.n)
            r->ids[nopen++] = t.fid[fr[d].node];
    if (nopen) {
        ev = (struct ct_event){.kind = CT_EV_STACK, .thread = b->thread,
                               .time = end, .func = CT_FUNC_NONE,
                               .stack = r->ids, .depth = nopen};
        emit(r, &ev);
    }
    ev = (struct ct_event){.kind = CT_EV_THREAD_END, .thread = b->thread,
                           .time = end, .func = CT_FUNC_NONE};
    emit(r, &ev);
    free(t.self);
    free(t.kids);
    free(t.lib_kids);
    free(t.fid);
}

void ctr_profile_read(struct ctr_reading *r, const struct block *blocks, size_t n,
                      const struct ct_file_header *fh)
{
    uint64_t end = fh->flags & CT_FILE_FINISHED ? fh->end_ticks : 0;
    for (size_t i = 0; i < n && !r->stop; i++)
        if (blocks[i].kind == CT_BLOCK_PROFILE)
            read_one(r, &blocks[i], end);
}
