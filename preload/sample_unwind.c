/*
 * Stack walks for the sampling mode, from inside the SIGPROF handler.
 *
 * libunwind reads .eh_frame, so code built without frame pointers (most of
 * Debian) unwinds correctly.  What makes it usable from a signal handler:
 *   - the walk starts from the signal's own ucontext (on x86-64 an
 *     unw_context_t is a ucontext_t) with UNW_INIT_SIGNAL_FRAME, so the
 *     leaf is the interrupted instruction, not the handler;
 *   - UNW_LOCAL_ONLY: no remote address spaces, no ptrace;
 *   - the per-thread cache policy: no lock shared with other threads, and
 *     libunwind's TLS lives in the static TLS block because the library is
 *     loaded with the preload at start-up (no allocation in __tls_get_addr);
 *   - its first-use set-up runs once at start-up (ct_sample_unwind_prepare),
 *     not in a handler;
 *   - pcs go into the caller's fixed array: no allocation here.
 * The remaining hazard, the loader lock taken by dl_iterate_phdr, is the
 * caller's to avoid (sample.c, loader guard).
 */
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include <signal.h>
#include <ucontext.h>

#include "plt.h"
#include "sample.h"

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
    if (unw_get_reg(cursor, UNW_REG_SP, &sp) < 0 ||
        !(ret = ct_plt_real_return((uintptr_t)sp)) ||
        unw_set_reg(cursor, UNW_REG_IP, (unw_word_t)ret) < 0)
        return (unw_word_t)(uintptr_t)ct_plt_return;
    return (unw_word_t)ret;
}

unsigned ct_sample_unwind(void *ucontext, uintptr_t *pcs, unsigned max)
{
    unw_cursor_t cursor;
    if (max == 0 ||
        unw_init_local2(&cursor, (unw_context_t *)ucontext,
                        UNW_INIT_SIGNAL_FRAME) < 0)
        return 0;
    unsigned n = 0;
    do {
        unw_word_t ip;
        if (unw_get_reg(&cursor, UNW_REG_IP, &ip) < 0 || ip == 0)
            break;
        if (ip == (unw_word_t)(uintptr_t)ct_plt_return)
            ip = real_return(&cursor);
        pcs[n++] = (uintptr_t)ip;
    } while (n < max && unw_step(&cursor) > 0);
    return n;
}

void ct_sample_unwind_prepare(void)
{
    unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD);
    /* One walk of our own stack: libunwind initialises its tables and
     * memory pools now rather than in the first handler. */
    void *frames[8];
    unw_backtrace(frames, 8);
}
