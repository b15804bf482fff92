/*
 * Coroutines: each context (the thread's own stack, or a stack given to
 * makecontext) keeps its own frames.  The wrappers of swapcontext and
 * setcontext tell the tracer which context the thread goes to before the
 * switch; the tracer keeps the frames of the context it leaves and takes
 * up those of the one it enters (an empty stack the first time), and
 * writes a CONTEXT record (docs/trace-format.md) so the analyzer keeps one
 * call stack per context too.
 *
 * A context is known by its stack: makecontext registers the range of
 * uc_stack, and a switch goes to the registered range that holds the
 * target's saved stack pointer, or to context 0, the thread's own stack.
 * Ids are process-wide and given per range, so a stack used again for a
 * new coroutine is the same context, started anew.
 *
 * A makecontext'd function that returns goes to uc_link through glibc's
 * own setcontext, which no wrapper sees: makecontext's return slot is
 * pointed at ct_context_tramp, which tells the switch and goes on to
 * glibc's code.
 */
#include <dlfcn.h>
#include <stdarg.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>

#include "preload/filters/filter.h"
#include "preload/libcalls/plt.h"
#include "preload/patch/patch.h"
#include "preload/tracer.h"

CT_API int setcontext(const ucontext_t *ucp);
CT_API void makecontext(ucontext_t *ucp, void (*func)(void), int argc, ...);

typedef int (*set_fn)(const ucontext_t *);
typedef void (*make_fn)(ucontext_t *, void (*)(void), int, ...);

/* The stacks given to makecontext, process-wide; beyond the table's size
 * further stacks are not told apart from the thread's own. */
#define MAX_STACKS 4096u
/* makecontext arguments passed on (glibc takes them as registers and
 * stack words; more than this is not portable anyway). */
#define MAX_ARGS 16

struct stack_range {
    uintptr_t lo, hi;
    uintptr_t start_ctx;  /* glibc's return slot value, 0 if not replaced */
    uint32_t id;
};

static struct stack_range *stacks;
static uint32_t nstacks, next_id = 1;
static int stacks_lock;

/* One saved context of a thread: its frames while another runs. */
struct saved {
    uint32_t id;
    uint32_t depth;
    uint32_t kept;        /* frames with their fn and sp in the arrays    */
    uint32_t cap;         /* frames the arrays hold                       */
    uintptr_t *stack;     /* fns, then ~sp, then hidden bits              */
    uint32_t nplt, plt_cap;
    void *plt;            /* its open library calls (plt.c)               */
    uint32_t npatch, patch_cap;
    void *patch;          /* its open patched calls (patch/patch.c)       */
    size_t filter_cap;
    void *filter;         /* the filters' state of its frames; NULL: none
                             (filters/filter_context.c)                  */
    int has_filter;       /* filter holds this context's state           */
};

struct contexts {
    uint32_t n, cap;
    /* The stack the thread was on when it first switched, whose frames
     * the trace has shown as the thread's own (context 0) until then:
     * a thread whose traced calls began inside a coroutine.  Its id and
     * 0 trade places for this thread. */
    uint32_t home;
    int home_known;
    struct saved s[];
};

static void lock(void)
{
    while (__atomic_exchange_n(&stacks_lock, 1, __ATOMIC_ACQUIRE))
        __builtin_ia32_pause();
}

static void unlock(void)
{
    __atomic_store_n(&stacks_lock, 0, __ATOMIC_RELEASE);
}

static void *map(size_t len)
{
    void *m = mmap(NULL, len, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return m == MAP_FAILED ? NULL : m;
}

/* The registered range that holds sp, or NULL.  Under the lock. */
static struct stack_range *range_of(uintptr_t sp)
{
    for (uint32_t i = 0; i < nstacks; i++)
        if (sp - stacks[i].lo < stacks[i].hi - stacks[i].lo)
            return &stacks[i];
    return NULL;
}

static uint32_t context_of(uintptr_t sp)
{
    lock();
    struct stack_range *r = range_of(sp);
    uint32_t id = r ? r->id : 0;
    unlock();
    return id;
}

/* Room for more saved contexts in t's table (made the first time);
 * NULL when there is no memory. */
static struct contexts *grow(struct ct_thread *t)
{
    struct contexts *c = t->contexts;
    uint32_t cap = c ? c->cap * 2 : 16;
    struct contexts *nc = map(sizeof *nc + cap * sizeof nc->s[0]);
    if (!nc)
        return NULL;
    if (c) {
        memcpy(nc, c, sizeof *c + c->n * sizeof c->s[0]);
        munmap(c, sizeof *c + c->cap * sizeof c->s[0]);
    }
    nc->cap = cap;
    t->contexts = nc;
    return nc;
}

/* The thread's saved context id, made when create (NULL: none, or no
 * memory for it). */
static struct saved *saved_of(struct ct_thread *t, uint32_t id, int create)
{
    struct contexts *c = t->contexts;
    for (uint32_t i = 0; c && i < c->n; i++)
        if (c->s[i].id == id)
            return &c->s[i];
    if (!create)
        return NULL;
    if (!c || c->n == c->cap) {
        if (!(c = grow(t)))
            return NULL;
    }
    struct saved *s = &c->s[c->n++];
    memset(s, 0, sizeof *s);
    s->id = id;
    return s;
}

static size_t saved_bytes(uint32_t cap)
{
    return ((size_t)cap * 2 + (cap + 63) / 64) * sizeof(uintptr_t);
}

/* Copies the kept levels [0, n) of t's shadow stack into fn[] and sp_not[]
 * (out), or from them back into t (!out): the levels past CT_HOT_DEPTH
 * live in t->deep. */
static void copy_frames(struct ct_thread *t, uintptr_t *fn, uintptr_t *sp_not,
                        uint32_t n, int out)
{
    uint32_t hot = n < CT_HOT_DEPTH ? n : CT_HOT_DEPTH;
    uint32_t deep = n - hot;
    if (out) {
        memcpy(fn, t->stack, hot * sizeof *fn);
        memcpy(sp_not, t->sp_not + 1, hot * sizeof *sp_not);
        if (deep) {
            memcpy(fn + hot, t->deep->fn, deep * sizeof *fn);
            memcpy(sp_not + hot, t->deep->sp_not, deep * sizeof *sp_not);
        }
    } else {
        memcpy(t->stack, fn, hot * sizeof *fn);
        memcpy(t->sp_not + 1, sp_not, hot * sizeof *sp_not);
        if (deep) {
            memcpy(t->deep->fn, fn + hot, deep * sizeof *fn);
            memcpy(t->deep->sp_not, sp_not + hot, deep * sizeof *sp_not);
        }
    }
}

/* Keeps the thread's frames in s; false when there is no memory. */
static int save_frames(struct ct_thread *t, struct saved *s)
{
    uint32_t kept = ct_frames_kept(t);
    if (kept > t->depth)
        kept = t->depth;
    /* hidden bits are kept to CT_MAX_DEPTH, frames or not */
    uint32_t bits = t->depth < CT_MAX_DEPTH ? t->depth : CT_MAX_DEPTH;
    if (bits > s->cap) {
        uint32_t cap = bits < 64 ? 64 : bits * 2;
        if (cap > CT_MAX_DEPTH)
            cap = CT_MAX_DEPTH;
        uintptr_t *m = map(saved_bytes(cap));
        if (!m)
            return 0;
        if (s->stack)
            munmap(s->stack, saved_bytes(s->cap));
        s->stack = m;
        s->cap = cap;
    }
    s->depth = t->depth;
    s->kept = kept;
    copy_frames(t, s->stack, s->stack + s->cap, kept, 1);
    memcpy(s->stack + 2 * (size_t)s->cap, t->hidden,
           (bits + 63) / 64 * sizeof *t->hidden);
    return 1;
}

/* The levels a context brings past CT_HOT_DEPTH need the thread's deeper
 * levels; without them (no memory) those frames are recorded, not kept. */
static void load_frames(struct ct_thread *t, const struct saved *s)
{
    uint32_t depth = s ? s->depth : 0;
    uint32_t kept = s ? s->kept : 0;
    uint32_t bits = depth < CT_MAX_DEPTH ? depth : CT_MAX_DEPTH;
    t->depth = 0;
    if (kept > CT_HOT_DEPTH && !ct_frames_deepen(t))
        kept = CT_HOT_DEPTH;
    /* Levels past CT_HOT_DEPTH that the context did not keep: the thread's
     * deeper levels hold another context's frames, not its own. */
    if (kept == CT_HOT_DEPTH && bits > CT_HOT_DEPTH && t->deep)
        t->deep_stale = 1;
    memset(t->hidden, 0, sizeof t->hidden);
    if (bits) {
        copy_frames(t, s->stack, s->stack + s->cap, kept, 0);
        memcpy(t->hidden, s->stack + 2 * (size_t)s->cap,
               (bits + 63) / 64 * sizeof *t->hidden);
        /* bits past the depth belong to frames long gone */
        if (bits % 64)
            t->hidden[bits / 64] &= (1ull << (bits % 64)) - 1;
    }
    uint32_t hidden = 0;
    for (uint32_t w = 0; w < (bits + 63) / 64; w++)
        hidden += (uint32_t)__builtin_popcountll(t->hidden[w]);
    t->hidden_count = hidden;
    t->depth = depth;
}

/* Keeps the thread's open library calls in s (none when there is no
 * memory: their trampolines are taken off and their returns counted lost,
 * ct_plt_frames_drop). */
static void save_plt(struct saved *s)
{
    uint32_t n = ct_plt_frames_out(s->plt, s->plt_cap);
    if (n > s->plt_cap) {
        size_t bytes = ct_plt_frame_bytes() * (n < 16 ? 16 : (size_t)n * 2);
        void *m = map(bytes);
        if (s->plt)
            munmap(s->plt, ct_plt_frame_bytes() * s->plt_cap);
        s->plt = m;
        s->plt_cap = m ? (uint32_t)(bytes / ct_plt_frame_bytes()) : 0;
        n = m ? ct_plt_frames_out(s->plt, s->plt_cap) : 0;
        if (!m)
            ct_plt_frames_drop();
    }
    s->nplt = n;
}

/* The same for its open patched calls (patch/patch.c). */
static void save_patch(struct saved *s)
{
    uint32_t n = ct_patch_frames_out(s->patch, s->patch_cap);
    if (n > s->patch_cap) {
        size_t bytes = ct_patch_frame_bytes() * (n < 16 ? 16 : (size_t)n * 2);
        void *m = map(bytes);
        if (s->patch)
            munmap(s->patch, ct_patch_frame_bytes() * s->patch_cap);
        s->patch = m;
        s->patch_cap = m ? (uint32_t)(bytes / ct_patch_frame_bytes()) : 0;
        n = m ? ct_patch_frames_out(s->patch, s->patch_cap) : 0;
        if (!m)
            ct_patch_frames_drop();
    }
    s->npatch = n;
}

/* The same for what the record-time filters know of its frames.  With
 * no memory for it the context is saved without: its frames then come
 * back as a context entered anew sees them (nothing pending). */
static void save_filter(struct ct_thread *t, struct saved *s)
{
    s->has_filter = 0;
    size_t need = ct_filter_context_bytes(t, s->kept);
    if (!need)
        return;
    if (need > s->filter_cap) {
        size_t cap = need * 2;
        void *m = map(cap);
        if (!m)
            return;
        if (s->filter)
            munmap(s->filter, s->filter_cap);
        s->filter = m;
        s->filter_cap = cap;
    }
    ct_filter_context_out(t, s->filter, s->kept);
    s->has_filter = 1;
}

/* Under the slow path's guard: the frames of the context left are kept
 * (nothing when none is open and it kept nothing before), those of
 * context id taken up, an empty stack the first time. */
static void swap_frames(struct ct_thread *t, uint32_t id, void *arg)
{
    (void)arg;
    uint32_t plt_open = ct_plt_frames_out(NULL, 0);
    uint32_t patch_open = ct_patch_frames_out(NULL, 0);
    struct saved *cur = saved_of(t, t->context,
                                 t->depth > 0 || plt_open || patch_open);
    if (cur && !save_frames(t, cur))
        cur->depth = 0;  /* no memory: its frames are forgotten */
    if (cur) {
        save_plt(cur);
        save_patch(cur);
        save_filter(t, cur);
    } else {
        if (plt_open)
            ct_plt_frames_drop();  /* no memory to keep them: taken off */
        if (patch_open)
            ct_patch_frames_drop();
    }
    struct saved *next = saved_of(t, id, 0);
    load_frames(t, next);
    ct_filter_context_in(t, next && next->has_filter ? next->filter : NULL);
    ct_plt_frames_in(next ? next->plt : NULL, next ? next->nplt : 0);
    ct_patch_frames_in(next ? next->patch : NULL, next ? next->npatch : 0);
    if (next) {
        next->depth = next->nplt = next->npatch = 0;
        next->has_filter = 0;
    }
}

/* Context id (a stack's) as thread t names it: its home stack is 0. */
static uint32_t label(struct ct_thread *t, uint32_t id)
{
    const struct contexts *c = t->contexts;
    uint32_t home = c ? c->home : 0;
    return id == home ? 0 : id == 0 ? home : id;
}

/* At the thread's first switch: the stack it runs on (here) is home. */
static void find_home(struct ct_thread *t, uint32_t here)
{
    struct contexts *c = t->contexts;
    if ((c && c->home_known) || (!c && !(c = grow(t))))
        return;
    c->home_known = 1;
    if (t->context == 0)
        c->home = here;
}

static void go_to(uint32_t id)
{
    struct ct_thread *t = ct_self;
    if (!t || (t->flags & CT_T_DEAD))
        return;
    find_home(t, context_of((uintptr_t)__builtin_frame_address(0)));
    id = label(t, id);
    /* The same context: a jump within its stack, which the hooks'
     * repair handles as a longjmp's. */
    if (id == t->context)
        return;
    ct_plt_settle();
    ct_thread_switch_context(id, swap_frames, NULL);
}

static uint32_t target_of(const ucontext_t *ucp)
{
    return context_of((uintptr_t)ucp->uc_mcontext.gregs[REG_RSP]);
}

static void *next_of(const char *name)
{
    void *f = dlsym(RTLD_NEXT, name);
    return f ? f : ct_next_definition(name);
}

/* A library call of getcontext or swapcontext (or of the setjmp family,
 * jump.c) from an object whose calls are recorded, written as one that
 * returns at once: each returns a second time when what it saved is
 * resumed, and no frame of the tracer's may stand between the caller and
 * glibc (the saved context would hold it, and a frame below the caller's
 * is gone by a later resume). */
void ct_write_leaf_call(uintptr_t *retp)
{
    uintptr_t fn = ct_plt_wrapped_call(*retp);
    if (fn) {
        ct_enter_at((void *)fn, (void *)*retp, (uintptr_t)retp);
        __cyg_profile_func_exit((void *)fn, (void *)*retp);
    }
}

/* Looked up at load, not in the stubs: the tracer's own sampler calls
 * getcontext, where dlsym may not run. */
static uintptr_t real_getcontext, real_swapcontext;

__attribute__((constructor)) static void find_real(void)
{
    real_getcontext = (uintptr_t)next_of("getcontext");
    real_swapcontext = (uintptr_t)next_of("swapcontext");
}

/* From the swapcontext stub: the call written, the switch told; returns
 * the real swapcontext, which the stub jumps to with the caller's frame.
 * It returns when something switches back to this context, which the
 * switcher has told. */
uintptr_t ct_context_swap(uintptr_t *retp, const ucontext_t *ucp)
{
    if (!real_swapcontext)
        real_swapcontext = (uintptr_t)next_of("swapcontext");
    ct_write_leaf_call(retp);
    if (ucp)
        go_to(target_of(ucp));
    return real_swapcontext;
}

uintptr_t ct_context_getcontext(uintptr_t *retp)
{
    if (!real_getcontext)
        real_getcontext = (uintptr_t)next_of("getcontext");
    ct_write_leaf_call(retp);
    return real_getcontext;
}

/* The stubs keep the stack and the arguments as they came and jump on
 * (swapcontext's: retp first, ucp second). */
__asm__(".text\n"
        ".p2align 4\n"
        ".globl swapcontext\n"
        ".type swapcontext, @function\n"
        "swapcontext:\n"
        "    .cfi_startproc\n"
        "    push %rdi\n"
        "    .cfi_adjust_cfa_offset 8\n"
        "    push %rsi\n"
        "    .cfi_adjust_cfa_offset 8\n"
        "    sub $8, %rsp\n"
        "    .cfi_adjust_cfa_offset 8\n"
        "    lea 24(%rsp), %rdi\n"
        "    call ct_context_swap\n"
        "    add $8, %rsp\n"
        "    .cfi_adjust_cfa_offset -8\n"
        "    pop %rsi\n"
        "    .cfi_adjust_cfa_offset -8\n"
        "    pop %rdi\n"
        "    .cfi_adjust_cfa_offset -8\n"
        "    jmp *%rax\n"
        "    .cfi_endproc\n"
        ".size swapcontext, .-swapcontext\n"
        ".p2align 4\n"
        ".globl getcontext\n"
        ".type getcontext, @function\n"
        "getcontext:\n"
        "    .cfi_startproc\n"
        "    push %rdi\n"
        "    .cfi_adjust_cfa_offset 8\n"
        "    lea 8(%rsp), %rdi\n"
        "    call ct_context_getcontext\n"
        "    pop %rdi\n"
        "    .cfi_adjust_cfa_offset -8\n"
        "    jmp *%rax\n"
        "    .cfi_endproc\n"
        ".size getcontext, .-getcontext\n");

CT_API int setcontext(const ucontext_t *ucp)
{
    static set_fn next;
    if (!next)
        next = (set_fn)next_of("setcontext");
    if (ucp)
        go_to(target_of(ucp));
    return next(ucp);
}

/* From ct_context_tramp: the function of a made context returned from
 * the stack at sp; link points at the word holding uc_link.  Returns
 * where glibc's code would have gone. */
uintptr_t ct_context_returned(uintptr_t sp, const ucontext_t *const *link)
{
    lock();
    struct stack_range *r = range_of(sp);
    uintptr_t to = r ? r->start_ctx : 0;
    unlock();
    if (*link)
        go_to(target_of(*link));
    return to;
}

/* Returns from a made context's function land here (the return slot
 * makecontext set up), with rbx pointing at uc_link as glibc leaves it;
 * glibc's own code follows with the same registers and stack pointer. */
__asm__(".text\n"
        ".p2align 4\n"
        ".hidden ct_context_tramp\n"
        ".type ct_context_tramp, @function\n"
        "ct_context_tramp:\n"
        "    .cfi_startproc\n"
        "    .cfi_undefined rip\n"
        "    push %rbx\n"
        "    mov %rsp, %rdi\n"
        "    mov %rbx, %rsi\n"
        "    sub $8, %rsp\n"
        "    call ct_context_returned\n"
        "    add $8, %rsp\n"
        "    pop %rbx\n"
        "    jmp *%rax\n"
        "    .cfi_endproc\n"
        ".size ct_context_tramp, .-ct_context_tramp\n");
void ct_context_tramp(void);

/* Registers uc_stack as a context (a new id, or its old one started
 * anew) and, when the return slot holds what glibc puts there, points it
 * at the trampoline. */
static void made(ucontext_t *ucp, uintptr_t libc_fn)
{
    uintptr_t lo = (uintptr_t)ucp->uc_stack.ss_sp;
    uintptr_t hi = lo + ucp->uc_stack.ss_size;
    uintptr_t *slot = (uintptr_t *)ucp->uc_mcontext.gregs[REG_RSP];
    Dl_info a, b;
    int patch = (uintptr_t)slot - lo < hi - lo && dladdr((void *)*slot, &a) &&
                dladdr((void *)libc_fn, &b) && a.dli_fbase == b.dli_fbase;
    lock();
    if (!stacks)
        stacks = map(MAX_STACKS * sizeof *stacks);
    struct stack_range *r = stacks ? range_of(lo) : NULL;
    if (!r && stacks && nstacks < MAX_STACKS) {
        r = &stacks[nstacks++];
        r->id = next_id++;
    }
    if (r) {
        r->lo = lo;
        r->hi = hi;
        if (patch) {
            r->start_ctx = *slot;
            *slot = (uintptr_t)ct_context_tramp;
        }
    }
    uint32_t id = r ? r->id : 0;
    unlock();
    /* A stack used again: the frames its last coroutine left open on
     * this thread are gone (a reader ends them at the next switch). */
    struct ct_thread *t = ct_self;
    if (id && t && !(t->flags & CT_T_DEAD) && label(t, id) != t->context) {
        struct saved *s = saved_of(t, label(t, id), 0);
        if (s)
            s->depth = s->kept = s->nplt = s->npatch = 0;
    }
}

CT_API void makecontext(ucontext_t *ucp, void (*func)(void), int argc, ...)
{
    static make_fn next;
    if (!next)
        next = (make_fn)next_of("makecontext");
    long a[MAX_ARGS] = {0};
    va_list ap;
    va_start(ap, argc);
    for (int i = 0; i < argc && i < MAX_ARGS; i++)
        a[i] = va_arg(ap, long);
    va_end(ap);
    next(ucp, func, argc, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7],
         a[8], a[9], a[10], a[11], a[12], a[13], a[14], a[15]);
    made(ucp, (uintptr_t)next);
}

/* What ct_thread_switch_context does, for a caller already under the
 * slow path's guard. */
static void switch_guarded(struct ct_thread *t, uint32_t id)
{
    swap_frames(t, id, NULL);
    t->context = id;
    ct_thread_enter_context(t);
}

void ct_context_close_filters(struct ct_thread *t)
{
    struct contexts *c = t->contexts;
    uint32_t home = t->context;
    for (uint32_t i = 0; c && i < c->n; i++) {
        struct saved *s = &c->s[i];
        /* the running context's own are closed by the caller; the one
         * just switched to has handed its state over (has_filter 0) */
        if (s->id == home || !s->has_filter ||
            !ct_filter_context_pending(s->filter))
            continue;
        switch_guarded(t, s->id);
        ct_filter_thread_close(t);
        c = t->contexts;  /* saving the context left may have grown it */
    }
    if (t->context != home)
        switch_guarded(t, home);
}

void ct_context_thread_release(struct ct_thread *t)
{
    struct contexts *c = t->contexts;
    if (!c)
        return;
    for (uint32_t i = 0; i < c->n; i++) {
        if (c->s[i].stack)
            munmap(c->s[i].stack, saved_bytes(c->s[i].cap));
        if (c->s[i].plt)
            munmap(c->s[i].plt, ct_plt_frame_bytes() * c->s[i].plt_cap);
        if (c->s[i].patch)
            munmap(c->s[i].patch, ct_patch_frame_bytes() * c->s[i].patch_cap);
        if (c->s[i].filter)
            munmap(c->s[i].filter, c->s[i].filter_cap);
    }
    munmap(c, sizeof *c + c->cap * sizeof c->s[0]);
    t->contexts = NULL;
}
