/*
 * Stack walks for the sampling mode, from inside the SIGPROF handler.
 *
 * libunwind reads .eh_frame, so code built without frame pointers (most of
 * Debian) unwinds correctly.  It is not linked: only a process that samples
 * loads it (dlopen at ct_sample_unwind_prepare, before the handler is
 * installed), so the many short processes of a traced script or build do
 * not pay for mapping and relocating it and liblzma, about a third of what
 * the tracer added to an empty program's start-up (bench/RESULTS-tracer.md,
 * "Start-up").  What makes it usable from a signal handler:
 *   - the walk starts from the signal's own ucontext (on x86-64 an
 *     unw_context_t is a ucontext_t) with UNW_INIT_SIGNAL_FRAME, so the
 *     leaf is the interrupted instruction, not the handler;
 *   - UNW_LOCAL_ONLY: no remote address spaces, no ptrace;
 *   - the walk (unw_init_local2, unw_step, unw_get_reg, unw_set_reg) uses
 *     none of libunwind's thread-local variables (its only ones belong to
 *     unw_backtrace's trace cache, never called here), so a library loaded
 *     by dlopen, whose TLS glibc would allocate at a thread's first use,
 *     allocates nothing in a handler;
 *   - its first-use set-up runs once at start-up (ct_sample_unwind_prepare),
 *     not in a handler, and the function pointers are all set before the
 *     handler is installed;
 *   - pcs go into the caller's fixed array: no allocation here.
 * The remaining hazard, the loader lock taken by dl_iterate_phdr, is the
 * caller's to avoid (sample.c, loader guard).
 */
#define UNW_LOCAL_ONLY
#include <dlfcn.h>
#include <libunwind.h>
#include <signal.h>
#include <ucontext.h>

#include "preload/libcalls/plt.h"
#include "preload/sampling/sample.h"

/* The library's soname: libunwind8 in Debian, since libunwind 1.0. */
#ifndef CT_LIBUNWIND_SONAME
#define CT_LIBUNWIND_SONAME "libunwind.so.8"
#endif

/* libunwind.h names its functions by macros (unw_step is _ULx86_64_step
 * with UNW_LOCAL_ONLY): the header gives the names to look up and, through
 * __typeof__, their types. */
#define SYMBOL(name) SYMBOL_(name)
#define SYMBOL_(name) #name

static struct {
    __typeof__(unw_init_local2) *init_local2;
    __typeof__(unw_step) *step;
    __typeof__(unw_get_reg) *get_reg;
    __typeof__(unw_set_reg) *set_reg;
    __typeof__(unw_set_caching_policy) *set_caching_policy;
    unw_addr_space_t *local_addr_space;
} lu;
/* Set once every pointer above is: the handler reads it first. */
static int lu_ready;

uintptr_t ct_sample_leaf_pc(const void *ucontext)
{
    const ucontext_t *uc = ucontext;
#if defined(__x86_64__)
    return (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
    return (uintptr_t)uc->uc_mcontext.pc;
#else
    (void)uc;
    return 0;
#endif
}

/*
 * A recorded library call returns through the trampoline, which has no
 * unwind information: the frame that returns there is its caller's, whose
 * real return address the library-call frames keep (plt.c).  Setting it as
 * the frame's pc lets libunwind carry on from the caller's own unwind
 * information; the stack pointer it computed for the frame is already
 * right (the one after the return).
 */
static unw_word_t real_return(unw_cursor_t *cursor)
{
    unw_word_t sp;
    uintptr_t ret;
    if (lu.get_reg(cursor, UNW_REG_SP, &sp) < 0 ||
        !(ret = ct_plt_real_return((uintptr_t)sp)) ||
        lu.set_reg(cursor, UNW_REG_IP, (unw_word_t)ret) < 0)
        return (unw_word_t)(uintptr_t)ct_plt_return;
    return (unw_word_t)ret;
}

unsigned ct_sample_unwind(void *ucontext, uintptr_t *pcs, unsigned max)
{
    unw_cursor_t cursor;
    if (max == 0 || !__atomic_load_n(&lu_ready, __ATOMIC_ACQUIRE) ||
        lu.init_local2(&cursor, (unw_context_t *)ucontext,
                       UNW_INIT_SIGNAL_FRAME) < 0)
        return 0;
    unsigned n = 0;
    do {
        unw_word_t ip;
        if (lu.get_reg(&cursor, UNW_REG_IP, &ip) < 0 || ip == 0)
            break;
        if (ip == (unw_word_t)(uintptr_t)ct_plt_return)
            ip = real_return(&cursor);
        pcs[n++] = (uintptr_t)ip;
    } while (n < max && lu.step(&cursor) > 0);
    return n;
}

/* The loader's own dlopen, not the tracer's wrapper (wrap.c): libunwind is
 * the tracer's, not the program's, so it gets no MAPS block of its own now
 * and its calls are never patched as library calls. */
static void *load_libunwind(void)
{
    void *(*real_dlopen)(const char *, int) =
        (void *(*)(const char *, int))dlsym(RTLD_NEXT, "dlopen");
    return real_dlopen ? real_dlopen(CT_LIBUNWIND_SONAME,
                                     RTLD_NOW | RTLD_LOCAL) : NULL;
}

int ct_sample_unwind_prepare(void)
{
    if (__atomic_load_n(&lu_ready, __ATOMIC_ACQUIRE))
        return 0;
    void *h = load_libunwind();
    if (!h)
        return -1;
    /* before its first call, which makes its pipe (unwind_fds.c) */
    if (ct_unwind_fds_off(h) < 0)
        return -2;
    lu.init_local2 = (__typeof__(lu.init_local2))dlsym(h, SYMBOL(unw_init_local2));
    lu.step = (__typeof__(lu.step))dlsym(h, SYMBOL(unw_step));
    lu.get_reg = (__typeof__(lu.get_reg))dlsym(h, SYMBOL(unw_get_reg));
    lu.set_reg = (__typeof__(lu.set_reg))dlsym(h, SYMBOL(unw_set_reg));
    lu.set_caching_policy = (__typeof__(lu.set_caching_policy))
        dlsym(h, SYMBOL(unw_set_caching_policy));
    lu.local_addr_space = (unw_addr_space_t *)dlsym(h, SYMBOL(unw_local_addr_space));
    if (!lu.init_local2 || !lu.step || !lu.get_reg || !lu.set_reg ||
        !lu.set_caching_policy || !lu.local_addr_space)
        return -1;
    lu.set_caching_policy(*lu.local_addr_space, UNW_CACHE_PER_THREAD);
    /* One walk of our own stack, the handler's way: libunwind initialises
     * its tables and memory pools now rather than in the first handler. */
    ucontext_t uc;
    unw_cursor_t cursor;
    if (getcontext(&uc) == 0 &&
        lu.init_local2(&cursor, (unw_context_t *)&uc, 0) == 0)
        for (int i = 0; i < 8 && lu.step(&cursor) > 0; i++)
            ;
    __atomic_store_n(&lu_ready, 1, __ATOMIC_RELEASE);
    return 0;
}
