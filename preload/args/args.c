/*
 * CALLTRACE_ARGS for library calls and patched entries: at a recorded call
 * through a PLT stub with a rule, the ARGS record is read from the
 * argument registers that plt_tramp.S saved below the return address; at
 * its return through the trampoline, the RETVAL record from the saved
 * %rax or %xmm0.  A patched function's trampolines (patch/patch_tramp.S)
 * save the same registers in their own order and come to the same
 * functions (ct_args_call, ct_args_exit).  ct_args_call writes a rule of
 * integers in one pass with the call (plan.c), anything else after the
 * hook recorded it (ct_args_enter).  A call with no rule pays one
 * predictable branch in plt.c, nothing here.
 * A string is copied in place from the segments of the objects loaded at
 * start (constants, writable data: base/stable_mem.h) or the stack page
 * in use, else with process_vm_readv on the process itself, which fails
 * instead of faulting on a bad pointer; its record is built straight in
 * the block (record_in_place).
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "preload/filters/filter.h"
#include "preload/patch/patch.h"
#include "preload/args/args.h"
#include "preload/args/encode.h"
#include "preload/args/plan.h"
#include "preload/base/self_read.h"
#include "preload/base/stable_mem.h"
#include "calltrace_format.h"
#include "preload/tracer.h"

static struct ct_args_spec spec;

/* Where plt_tramp.S's plt_entry saved the registers, from the return
 * address slot: %rax just below it, then %rdi ... %r9, then 8 x %xmm. */
#define SAVED_INT(retp, n) ((retp)[-1 - (long)(n)]) /* n = 1: %rdi */
#define SAVED_XMM_OFFSET 184                         /* %xmm0 from retp */
/* ct_plt_return keeps %rax just below its arrival stack pointer, %rdx
 * below, %xmm0 48 bytes below (base/tramp_regs.h). */
#define RET_RAX(sp) (((const uint64_t *)(sp))[-1])
#define RET_XMM0_OFFSET 48

void ct_args_start(void)
{
    const char *v = ct_env_get("CALLTRACE_ARGS");
    if (!v || !*v)
        return;
    char err[192];
    if (ct_args_parse(&spec, v, err, sizeof err) != 0) {
        ct_message("calltrace: CALLTRACE_ARGS='%s': %s; no arguments or "
                   "return values are kept", v, err);
        return;
    }
    ct_stable_mem_note();
    for (uint32_t i = 0; i < spec.nrules; i++)
        if (spec.rules[i].from_dwarf) {
            ct_message("calltrace: CALLTRACE_ARGS: '%s@args': the "
                       "parameters are read from debug information by "
                       "calltrace record --args; here the rule keeps its "
                       "other items only", spec.rules[i].pattern);
            break;
        }
}

/* Whether a rule keeps a hooked call's return value, caught where the
 * function returns to (retval%place). */
static bool keeps_return(const struct ct_args_rule *r)
{
    return r->has_ret && r->ret.loc == CT_LOC_MEM;
}

/* Called from the PLT's and the patched objects' set-up, under locks of
 * their own: the union of several rules is made under this one. */
static pthread_mutex_t match_lock = PTHREAD_MUTEX_INITIALIZER;

uint32_t ct_args_rule_for(const char *name, int libcall)
{
    if (!spec.nrules || !name)
        return 0;
    pthread_mutex_lock(&match_lock);
    uint32_t id = ct_args_match(&spec, name, libcall);
    if (id) {
        const struct ct_args_rule *r = ct_args_rule(&spec, id);
        ct_args_plan_make(id, r, keeps_return(r));
    }
    pthread_mutex_unlock(&match_lock);
    return id;
}

int ct_args_any(void)
{
    return spec.nrules != 0;
}

/* A record being built: values of integers and floats take at most 11
 * bytes each, a struct's or an enum value's name NAMED_PAY, so a rule without
 * strings fits SMALL_PAY (a buffer of the thread's, run()); one with a
 * string is built on the tracer's own stack (BIG_PAY), as the program may
 * run on a small one (docs/reliability.md). */
#define NAMED_PAY (1 + 10 + 1 + CT_ARGS_TYPE_NAME_MAX)
#define SMALL_PAY (NAMED_PAY * (CT_ARGS_MAX_ITEMS + 1))
#define BIG_PAY (CT_ARGS_MAX_ITEMS * (CT_ARGS_STR_MAX + 4) + 16)

/* Up to want bytes of the string at addr into dst: copied in place when
 * they lie in the objects' segments (stable_mem.h) or above sp (0:
 * none) in sp's own page, which is mapped as the stack in use is; else
 * by the kernel, which fails instead of faulting.  The bytes read, or -1
 * (errno). */
static ssize_t read_string(uint8_t *dst, uintptr_t addr, size_t want,
                           uintptr_t sp)
{
    size_t n = ct_stable_span(addr, want);
    if (!n)
        n = stack_page_span(addr, want, sp);
    if (n) {
        memcpy(dst, (const void *)addr, n);
        if (n == want || memchr(dst, 0, n))
            return (ssize_t)n;
    }
    return ct_self_read(ct_proc.pid, dst, addr, want);
}

/* A string, read straight into the payload after room for its tag and
 * length (it->strmax + 4 bytes in all), then moved down to follow them:
 * no buffer on the program's stack. */
static __attribute__((noinline)) void
put_string(struct pay *p, const struct ct_arg_item *it, uintptr_t addr,
           uintptr_t sp)
{
    if (!addr) {
        p->b[p->n++] = CT_VAL_NULLSTR;
        return;
    }
    uint8_t *text = p->b + p->n + 3;
    size_t want = (size_t)it->strmax + 1;
    int saved = errno;
    ssize_t got = read_string(text, addr, want, sp);
    int e = errno;
    errno = saved;
    if (got < 0) {
        /* EFAULT: nothing there.  Else (a seccomp filter, no such
         * system call) the tracer cannot tell: not shown as bad. */
        if (e == EFAULT)
            put_tag(p, CT_VAL_BADPTR, addr);
        else
            p->b[p->n++] = CT_VAL_UNAVAIL;
        return;
    }
    size_t len = strnlen((const char *)text, (size_t)got);
    bool whole = len < (size_t)got;
    if (!whole && len > it->strmax)
        len = it->strmax;
    put_tag(p, whole ? CT_VAL_STR : CT_VAL_STR_CUT, len);
    memmove(p->b + p->n, text, len);
    p->n += len;
}

static void put_float(struct pay *p, const struct ct_arg_item *it,
                      const uint8_t *xmm)
{
    uint64_t bits;
    memcpy(&bits, xmm, 8);
    put_fp_bits(p, fp_bytes(it), bits);
}

/* An integer value v, not a string, as the item's format says. */
static inline __attribute__((always_inline)) void
put_int(struct pay *p, const struct ct_arg_item *it, uint64_t v)
{
    put_int_as(p, it->fmt, it->width, v);
}

/* A struct passed by value: its type's size and name, nothing read. */
static void put_struct(struct pay *p, const struct ct_arg_item *it)
{
    const char *name = ct_args_type_name(&spec, it);
    size_t n = strlen(name);
    put_tag(p, CT_VAL_STRUCT, it->strmax);
    p->n = (size_t)(ct_put_varint(p->b + p->n, n) - p->b);
    memcpy(p->b + p->n, name, n);
    p->n += n;
}

/* An enum's value: the value, and its name in the rule's enum (at most
 * CT_ARGS_TYPE_NAME_MAX bytes, else none: the value alone is shown). */
static void put_enum(struct pay *p, const struct ct_arg_item *it, uint64_t v)
{
    char text[CT_ARGS_TYPE_NAME_MAX + 1];
    int64_t sv = sign_extend(v, it->width);
    size_t n = ct_args_enum_text(&spec, it, sv, text, sizeof text);
    put_tag(p, CT_VAL_ENUM, ct_zigzag(sv));
    p->n = (size_t)(ct_put_varint(p->b + p->n, n) - p->b);
    memcpy(p->b + p->n, text, n);
    p->n += n;
}

/* An integer-class value v as the item's format says; a string it points
 * at is read as read_string reads with the stack pointer sp. */
static void put_value(struct pay *p, const struct ct_arg_item *it, uint64_t v,
                      uintptr_t sp)
{
    if (it->fmt == CT_FMT_STR)
        put_string(p, it, (uintptr_t)v, sp);
    else if (it->fmt == CT_FMT_ENUM)
        put_enum(p, it, v);
    else
        put_int(p, it, v);
}

/*
 * A record written in place, right after the thread's latest one, as the
 * hooks' fast path writes: no clock read, no lock.  in_place_open gives
 * the thread's position for a record of at most `need` bytes and sets the
 * busy flag; NULL, with nothing changed, when that path is shut (no room
 * before the block's end, tracing off, re-entry, hidden or pending
 * frames, filters, the monotonic clock).  ct_hot_close (hot.c) then
 * moves the position to the record's end and clears the gate, as the
 * hooks end their fast path.
 */
static uint8_t *in_place_open(struct ct_thread *t, size_t need)
{
    uint64_t w = __atomic_load_n(&ct_global_word, __ATOMIC_RELAXED);
    if (!t || (t->gate | (t->expect ^ w)) != 0)
        return NULL;
    t->busy = 1;
    ct_signal_fence();
    uint8_t *p = t->pos;
    if (p < t->end && need <= (size_t)(ct_room_end(t->end) - p))
        return p;
    ct_signal_fence();
    t->busy = 0;
    return NULL;
}

/* A record stamped with the thread's latest time (delta 0: the ENTRY's
 * for ARGS; RETVAL's EXIT follows with its own time), in place; else the
 * slow path's append does it, stamped now. */
static void append(uint8_t sub, const uint8_t *b, size_t n)
{
    struct ct_thread *t = ct_self;
    uint8_t *p = in_place_open(t, n + 24);
    if (!p) {
        ct_tracer_append_ext(sub, b, n);
        return;
    }
    p = ct_enc_ext_head(p, 0, sub, n);
    for (size_t i = 0; i < n; i++) /* a few bytes: no call */
        p[i] = b[i];
    ct_hot_close(p + n);
}

/* Where a record of frame depth goes: false for nowhere (a frame a
 * filter hides has no record to follow); else into the block (*held -1),
 * or held until the entry of a frame that waits on its duration is
 * written (*held its level, ct_filter_hold). */
static bool record_place(const struct ct_thread *t, uint32_t depth,
                         int64_t *held)
{
    *held = -1;
    if (depth >= CT_MAX_DEPTH || !(t->hidden[depth / 64] >> (depth % 64) & 1))
        return true;
    if (!ct_filter_pending(t, depth))
        return false;
    *held = depth;
    return true;
}

/* What one record is made of: the rule, and where the registers are
 * (regs for ARGS, ret for RETVAL). */
struct job {
    const struct ct_args_rule *r;
    const struct ct_arg_regs *regs;
    uint64_t rax;
    const uint8_t *xmm0;
    int64_t held;   /* the level of a pending frame (min=) whose record
                       waits for its entry (ct_filter_hold), else -1  */
};

/* The w bytes (1, 2, 4 or 8) at addr, an address at a hook's call whose
 * stack pointer was sp, into *v; -1 when they cannot be read.  In the
 * stack window, read in place with one load of their width (bytes copied
 * into a zeroed buffer and read back as 8 would stall on store
 * forwarding); elsewhere through ct_self_read, so that a place written
 * wrongly cannot fault. */
static int read_at_site(uintptr_t addr, unsigned w, uintptr_t sp, uint64_t *v)
{
    uint8_t raw[8] = {0};
    if (!in_stack_window(addr, w, sp)) {
        int saved = errno;
        ssize_t got = ct_self_read(ct_proc.pid, raw, addr, w);
        errno = saved;
        if (got != (ssize_t)w)
            return -1;
        addr = (uintptr_t)raw;
    }
    *v = load_width(addr, w);
    return 0;
}

/* The item's value, w bytes at addr, read as read_at_site reads with the
 * stack pointer sp; <unavailable> when they cannot be read. */
static void put_read(struct pay *p, const struct ct_arg_item *it,
                     uintptr_t addr, unsigned w, uintptr_t sp)
{
    uint64_t v;
    if (read_at_site(addr, w, sp, &v) != 0) {
        p->b[p->n++] = CT_VAL_UNAVAIL;
        return;
    }
    if (it->src == CT_ARG_FP)
        put_float(p, it, (const uint8_t *)&v);  /* little-endian */
    else
        put_value(p, it, v, sp);
}

/* An item whose DWARF location names a register or memory at the
 * hook's call (site.c).  Memory is the function's own frame, above the
 * stack pointer at the call, or the caller's (read_at_site). */
static void put_at_site(struct pay *p, const struct ct_arg_item *it,
                        const struct ct_site_regs *s)
{
    if (it->loc == CT_LOC_REG) {
        if (it->reg >= CT_REG_XMM0)
            put_float(p, it, s->xmm[it->reg - CT_REG_XMM0]);
        else
            put_value(p, it, s->gpr[it->reg], s->gpr[7]);
        return;
    }
    put_read(p, it, s->gpr[it->reg] + (uintptr_t)(intptr_t)it->off,
             it->width ? it->width : 8, s->gpr[7]);
}

/* The caller's stack slot `slot` (from 1, above the return address) of
 * a call at its entry, where the ABI passes the arguments no register
 * takes (uftrace's `%stack+N`): read with read_at_site, so that a slot
 * past the stack's top cannot fault. */
static void put_stack_slot(struct pay *p, const struct ct_arg_item *it,
                           const struct ct_arg_regs *g, unsigned slot)
{
    uintptr_t base = (uintptr_t)g->stack;
    put_read(p, it, base + 8 * (uintptr_t)(slot - 1),
             it->src == CT_ARG_FP ? 8 : it->width ? it->width : 8, base);
}

/* An item of a call whose registers are those of its entry (a library
 * call's stub, a patched entry): argN by the calling convention, or the
 * argument register a location names. */
static void put_at_entry(struct pay *p, const struct ct_arg_item *it,
                         const struct ct_arg_regs *g)
{
    static const int8_t int_arg[16] = {-1, 3, 4, -1, 2, 1, -1, -1, 5, 6};
    unsigned index = it->index;
    if (it->loc == CT_LOC_REG && it->reg >= CT_REG_XMM0)
        index = it->reg - CT_REG_XMM0 + 1;
    else if (it->loc == CT_LOC_REG)
        index = int_arg[it->reg] > 0 ? (unsigned)int_arg[it->reg] : 0;
    if (it->loc == CT_LOC_STACK) {
        put_stack_slot(p, it, g, (unsigned)it->off);
        return;
    }
    if (it->loc == CT_LOC_MEM || it->loc == CT_LOC_NONE || index == 0) {
        p->b[p->n++] = CT_VAL_UNAVAIL;  /* not what the stubs keep */
        return;
    }
    if (it->src == CT_ARG_FP) {
        if (index > 8)
            p->b[p->n++] = CT_VAL_UNAVAIL; /* on the stack: not read */
        else
            put_float(p, it, g->xmm + 16 * (index - 1));
        return;
    }
    /* the 7th integer argument on is the caller's stack above the return
     * address */
    if (index > 6)
        put_stack_slot(p, it, g, index - 6);
    else
        put_value(p, it, g->ints[g->step * (index - 1)],
                  (uintptr_t)g->stack);
}

static void build_args(const struct job *j, struct pay *p)
{
    const struct ct_args_rule *r = j->r;
    const struct ct_arg_regs *g = j->regs;
    for (unsigned i = 0; i < r->nitems; i++) {
        const struct ct_arg_item *it = &r->items[i];
        if (it->fmt == CT_FMT_STRUCT)
            put_struct(p, it);
        else if (!g->site)
            put_at_entry(p, it, g);
        else if (it->loc == CT_LOC_REG || it->loc == CT_LOC_MEM)
            put_at_site(p, it, g->site);
        else  /* the argument registers are the hook's by now */
            p->b[p->n++] = CT_VAL_UNAVAIL;
    }
}

static void build_ret(const struct job *j, struct pay *p)
{
    if (j->r->ret.fmt == CT_FMT_STRUCT)
        put_struct(p, &j->r->ret);
    else if (j->r->ret.fmt == CT_FMT_FLOAT)
        put_float(p, &j->r->ret, j->xmm0);
    else
        put_value(p, &j->r->ret, j->rax, 0);
}

static void record(const struct job *j, uint8_t *buf)
{
    struct pay p = {buf, 0};
    uint8_t sub = j->regs ? CT_EXT_ARGS : CT_EXT_RETVAL;
    if (j->regs)
        build_args(j, &p);
    else
        build_ret(j, &p);
    if (j->held >= 0)
        ct_filter_hold(ct_self, (uint32_t)j->held, sub, p.b, p.n);
    else
        append(sub, p.b, p.n);
}

static void record_deep(void *arg)
{
    uint8_t buf[BIG_PAY];
    record(arg, buf);
}

/* The most bytes an item's value takes in a payload: a string's room
 * for put_string (or a bad pointer's 11), a struct's or an enum's name,
 * else a tag and a varint or a double. */
static size_t item_room(const struct ct_arg_item *it)
{
    if (it->fmt == CT_FMT_STRUCT || it->fmt == CT_FMT_ENUM)
        return NAMED_PAY;
    if (it->fmt == CT_FMT_STR && (size_t)it->strmax + 4 > 11)
        return (size_t)it->strmax + 4;
    return 11;
}

/*
 * A record with a string, built straight into the block while the hooks'
 * fast path is open (in_place_open): its head written after, at the
 * length the payload came to, and the payload moved down to follow it.
 * No buffer and no stack of the tracer's, so no signal mask either: a
 * string in the objects' segments costs a copy, any other the read
 * of ct_self_read.  A handler that interrupts it finds the path shut, as
 * it finds the hooks' (its events go the slow path's way).  False when
 * the path is shut or the record waits for its frame's entry (held).
 */
static bool record_in_place(struct ct_thread *t, const struct job *j)
{
    if (j->held >= 0)
        return false;
    const struct ct_args_rule *r = j->r;
    uint8_t sub = j->regs ? CT_EXT_ARGS : CT_EXT_RETVAL;
    size_t room = 0;
    if (j->regs)
        for (unsigned i = 0; i < r->nitems; i++)
            room += item_room(&r->items[i]);
    else
        room = item_room(&r->ret);
    uint8_t head[16];
    size_t most = (size_t)(ct_enc_ext_head(head, 0, sub, room) - head);
    uint8_t *p = in_place_open(t, most + room);
    if (!p)
        return false;
    struct pay pay = {p + most, 0};
    if (j->regs)
        build_args(j, &pay);
    else
        build_ret(j, &pay);
    uint8_t *q = ct_enc_ext_head(p, 0, sub, pay.n);
    memmove(q, pay.b, pay.n);
    ct_hot_close(q + pay.n);
    return true;
}

/* A record of integers and floats is built in a buffer of the thread's,
 * off the program's stack, which the hooks' trampoline (site_tramp.S)
 * and the hook's own path already use (docs/reliability.md).  One with a
 * string straight in the block (record_in_place); when that cannot be,
 * and for one made while the buffer is in use (by a signal handler's call
 * that interrupted one), on the tracer's own stack. */
static __thread uint8_t small_buf[SMALL_PAY]
    __attribute__((tls_model("initial-exec")));
static __thread int small_used __attribute__((tls_model("initial-exec")));

static void run(struct ct_thread *t, const struct job *j, int strings)
{
    if (strings && record_in_place(t, j))
        return;
    if (strings || small_used) {
        ct_deep_call(t, record_deep, (void *)j, 1);
        return;
    }
    small_used = 1;
    ct_signal_fence();
    record(j, small_buf);
    ct_signal_fence();
    small_used = 0;
}

void ct_args_enter(uint32_t rule, const struct ct_arg_regs *regs,
                   uint32_t depth)
{
    const struct ct_args_rule *r = ct_args_rule(&spec, rule);
    struct ct_thread *t = ct_self;
    int64_t held;
    if (!r->nitems || !t)
        return;
    if (!record_place(t, depth, &held))
        return;
    struct job j = {r, regs, 0, NULL, held};
    run(t, &j, r->strings & 1);
}

void ct_args_exit(uint32_t rule, uint64_t rax, const uint8_t *xmm0,
                  uint32_t depth, uintptr_t fn)
{
    const struct ct_args_rule *r = ct_args_rule(&spec, rule);
    struct ct_thread *t = ct_self;
    if (!r->has_ret || !t || t->depth != depth + 1 ||
        (depth < ct_frames_kept(t) && ct_frame_fn(t, depth) != fn))
        return; /* not the call on top: its exit is not the next record */
    int64_t held;
    if (!record_place(t, depth, &held))
        return;
    struct job j = {r, NULL, rax, xmm0, held};
    run(t, &j, r->strings & 2);
}

uint32_t ct_args_keeps(uint32_t rule)
{
    if (!rule)
        return 0;
    const struct ct_args_rule *r = ct_args_rule(&spec, rule);
    return (r->nitems ? CT_ARGS_KEEPS_ARGS : 0) |
           (r->has_ret ? CT_ARGS_KEEPS_RETURN : 0) | ct_args_plan_fast(rule);
}

int ct_args_site_at(uint32_t rule)
{
    return ct_args_rule(&spec, rule)->has_at;
}

int ct_args_keeps_return(uint32_t rule)
{
    return keeps_return(ct_args_rule(&spec, rule));
}

/* Where a hooked call's return address is, from the rule's retval place
 * (`retval%rsp+40`) and the registers at the hook's call; NULL when the
 * place is not in the function's frame, above the stack pointer at the
 * call, or does not hold site, the return address the hook was given. */
static uintptr_t *return_slot(const struct ct_args_rule *r,
                              const struct ct_site_regs *regs, uintptr_t site)
{
    uintptr_t sp = regs->gpr[7];
    uintptr_t slot = regs->gpr[r->ret.reg] + (uintptr_t)(intptr_t)r->ret.off;
    uint64_t v;
    if (slot < sp || slot - sp > (1u << 20) || (slot & 7) ||
        read_at_site(slot, 8, sp, &v) != 0)
        return NULL;
    return v == site ? (uintptr_t *)slot : NULL;
}

/* The call recorded by the hook, then its ARGS by the general path. */
static void enter_then_args(uint32_t rule, void *fn, void *site, uintptr_t sp,
                            const struct ct_arg_regs *g)
{
    struct ct_thread *t = ct_self;
    uint32_t before = t ? t->depth : 0;
    ct_enter_at(fn, site, sp);
    t = ct_self;
    if (t && t->depth == before + 1)
        ct_args_enter(rule, g, before);
}

void ct_args_call(uint32_t rule, void *fn, void *site, uintptr_t sp,
                  const struct ct_arg_regs *g)
{
    if (ct_args_plan_write(rule, fn, site, sp, g) != 0)
        enter_then_args(rule, fn, site, sp, g);
}

/* A return value is read when the function returns: its return address
 * (where the rule says, and only if it is the one the hook was given) is
 * swapped for the patchable-entry mode's return trampoline, which writes
 * the RETVAL and the EXIT there, and whose frames unwinders and jumps
 * already know (patch/patch.c).  Before the ENTRY: a tail call may end a
 * frame there.  A rule with a plan that keeps no return value is written
 * by the plan (plan.c). */
void ct_args_site_call(uint32_t rule, void *fn, void *site,
                       const struct ct_site_regs *regs)
{
    struct ct_arg_regs g = {NULL, 0, NULL, NULL, regs};
    if (ct_args_plan_write(rule, fn, site, regs->gpr[7], &g) == 0)
        return;
    const struct ct_args_rule *r = ct_args_rule(&spec, rule);
    if (!at_holds(r->has_at, r->at, (uintptr_t)fn, regs->gpr[7])) {
        ct_enter_at(fn, site, regs->gpr[7]);  /* an inlined copy */
        return;
    }
    if (keeps_return(r)) {
        uintptr_t *slot = return_slot(r, regs, (uintptr_t)site);
        if (slot)
            ct_patch_take_return((uintptr_t)fn, rule, slot);
    }
    enter_then_args(rule, fn, site, regs->gpr[7], &g);
}

void ct_args_plt_call(uint32_t rule, void *fn, uintptr_t *retp)
{
    struct ct_arg_regs g = {&SAVED_INT(retp, 1), -1,
                            (const uint8_t *)retp - SAVED_XMM_OFFSET, retp + 1,
                            NULL};
    ct_args_call(rule, fn, (void *)*retp, (uintptr_t)retp, &g);
}

void ct_args_plt_exit(uint32_t rule, uintptr_t sp, uint32_t depth,
                      uintptr_t fn)
{
    const uint8_t *xmm0 = (const uint8_t *)sp - RET_XMM0_OFFSET;
    if (ct_args_plan_return(rule, RET_RAX(sp), xmm0, depth, (void *)fn) != 0)
        ct_args_exit(rule, RET_RAX(sp), xmm0, depth, fn);
}
