/*
 * Jumps that leave frames without running their exit hooks: the longjmp
 * family and a caught C++ exception.  Each wrapper works out the stack
 * pointer the program lands at and ends, at that moment, every open frame
 * below it, so the calls made after the jump sit under the function that
 * really makes them instead of inside frames that are gone.
 *
 * The enter hook keeps each frame's caller stack pointer R (the function's
 * own stack pointer when it called the hook).  A frame is left by a jump
 * to stack pointer T exactly when R < T: the landing function's R is at or
 * above T (its stack pointer only goes down in its body), and any frame it
 * called lies wholly below the return address of that call, so at or below
 * T.  A function inlined into the landing one shares its R and stays.
 *
 * glibc keeps the stack pointer in a jmp_buf mangled (PTR_MANGLE: xor with
 * the pointer guard at %fs:0x30, then rotate left by 17 bits).  The
 * demangling is checked once against a setjmp of our own; when it does not
 * give back our stack pointer, the wrappers only pass the call on, and the
 * exit hook's repair (thread.c) ends the frames later, as before.
 */
#include <dlfcn.h>
#include <link.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>

#include "preload/libcalls/plt.h"
#include "preload/tracer.h"

/* Index of the stack pointer in glibc's x86-64 __jmpbuf. */
#define JB_RSP 6

typedef void (*jump_fn)(struct __jmp_buf_tag *, int)
    __attribute__((noreturn));
typedef void *(*catch_fn)(void *);

CT_API void longjmp(struct __jmp_buf_tag env[1], int val);
CT_API void _longjmp(struct __jmp_buf_tag env[1], int val);
CT_API void siglongjmp(struct __jmp_buf_tag env[1], int val);
CT_API void __longjmp_chk(struct __jmp_buf_tag env[1], int val)
    __attribute__((noreturn));
CT_API void *__cxa_begin_catch(void *exception);

static jump_fn next_longjmp, next__longjmp, next_siglongjmp, next_chk;
static catch_fn next_catch;
/* The setjmp family's stubs (below), numbered as they pass it. */
enum { SJ_SETJMP, SJ__SETJMP, SJ_SIGSETJMP, SJ_COUNT };
static const char *const setjmp_names[SJ_COUNT] = {"setjmp", "_setjmp",
                                                   "__sigsetjmp"};
static uintptr_t next_setjmp[SJ_COUNT];
static int demangle_ok;

static uintptr_t demangle(uintptr_t v)
{
    uintptr_t guard;
    __asm__("mov %%fs:0x30, %0" : "=r"(guard));
    return (v >> 17 | v << 47) ^ guard;
}

static __attribute__((noinline)) int demangle_works(void)
{
    jmp_buf jb;
    uintptr_t here;
    __asm__ volatile("mov %%rsp, %0" : "=r"(here));
    uintptr_t cfa = (uintptr_t)__builtin_dwarf_cfa();
    if (setjmp(jb))
        return 0;  /* nothing jumps here */
    uintptr_t sp = demangle((uintptr_t)jb[0].__jmpbuf[JB_RSP]);
    return sp >= here && sp < cfa;
}

static int is_cxx_runtime(struct dl_phdr_info *info, size_t size,
                          void *arg)
{
    (void)size;
    (void)arg;
    const char *n = info->dlpi_name;
    return n && (strstr(n, "/libstdc++.so") || strstr(n, "/libc++abi.so") ||
                 strstr(n, "/libc++.so"));
}

int ct_cxx_runtime_loaded(void)
{
    return dl_iterate_phdr(is_cxx_runtime, NULL);
}

/* Looked up at load time: the wrappers may run in a signal handler, where
 * dlsym could deadlock on the loader's lock.  A dlsym that fails sets up
 * its error message with malloc, which would start the heap of a C program
 * that never catches: __cxa_begin_catch is looked up only when a C++
 * runtime is there, and otherwise at the first catch (a C++ plugin loaded
 * later). */
__attribute__((constructor)) static void jump_init(void)
{
    next_longjmp = (jump_fn)dlsym(RTLD_NEXT, "longjmp");
    next__longjmp = (jump_fn)dlsym(RTLD_NEXT, "_longjmp");
    next_siglongjmp = (jump_fn)dlsym(RTLD_NEXT, "siglongjmp");
    next_chk = (jump_fn)dlsym(RTLD_NEXT, "__longjmp_chk");
    for (uint32_t i = 0; i < SJ_COUNT; i++)
        if (!next_setjmp[i])
            next_setjmp[i] = (uintptr_t)dlsym(RTLD_NEXT, setjmp_names[i]);
    if (ct_cxx_runtime_loaded())
        next_catch = (catch_fn)dlsym(RTLD_NEXT, "__cxa_begin_catch");
    demangle_ok = demangle_works();
}

struct landing {
    uintptr_t target;     /* stack pointer after the jump                   */
    uintptr_t alt_lo;     /* the thread's signal stack, size 0 when none    */
    uintptr_t alt_size;
    int target_on_alt;
};

static int on_alt(const struct landing *l, uintptr_t sp)
{
    return sp - l->alt_lo < l->alt_size;
}

/* A frame on another stack than the target is a signal handler's on the
 * alternate stack (left when the jump goes back to the thread's stack),
 * or one the handler interrupted (kept when the jump stays on it). */
static int frame_left(uintptr_t sp, const void *arg)
{
    const struct landing *l = arg;
    if (on_alt(l, sp) != l->target_on_alt)
        return !l->target_on_alt;
    return sp < l->target;
}

int ct_same_stack(uintptr_t a, uintptr_t b)
{
    stack_t ss;
    if (sigaltstack(NULL, &ss) != 0 || (ss.ss_flags & SS_DISABLE))
        return 1;
    uintptr_t lo = (uintptr_t)ss.ss_sp;
    return (a - lo < ss.ss_size) == (b - lo < ss.ss_size);
}

/* here: the stack pointer of the wrapper's caller.  A longjmp target at
 * or below it on the same stack would not leave any frame: a jmp_buf we
 * misread, ignored. */
static void land_at(uintptr_t target, uintptr_t here, int is_catch)
{
    struct ct_thread *t = ct_self;
    if (!t || t->depth == 0)
        return;
    struct landing l = {.target = target};
    stack_t ss;
    if (sigaltstack(NULL, &ss) == 0 && !(ss.ss_flags & SS_DISABLE)) {
        l.alt_lo = (uintptr_t)ss.ss_sp;
        l.alt_size = ss.ss_size;
    }
    l.target_on_alt = on_alt(&l, target);
    if (!is_catch && l.target_on_alt == on_alt(&l, here) && target <= here)
        return;
    ct_leave_frames(frame_left, &l);
}

void ct_landing_pad(uintptr_t sp)
{
    land_at(sp, sp, 1);
    ct_plt_rearm(sp);
}

static void jumping(struct __jmp_buf_tag *env)
{
    if (demangle_ok)
        land_at(demangle((uintptr_t)env[0].__jmpbuf[JB_RSP]),
                (uintptr_t)__builtin_dwarf_cfa(), 0);
}

void ct_jump_landing(const void *jmpbuf)
{
    if (demangle_ok)
        land_at(demangle((uintptr_t)((const long *)jmpbuf)[JB_RSP]),
                (uintptr_t)__builtin_dwarf_cfa(), 0);
}

static jump_fn resolve(jump_fn *next, const char *name)
{
    if (!*next)
        *next = (jump_fn)dlsym(RTLD_NEXT, name);
    return *next;
}

CT_API void longjmp(struct __jmp_buf_tag env[1], int val)
{
    jump_fn next = resolve(&next_longjmp, "longjmp");
    jumping(env);
    next(env, val);
}

CT_API void _longjmp(struct __jmp_buf_tag env[1], int val)
{
    jump_fn next = resolve(&next__longjmp, "_longjmp");
    jumping(env);
    next(env, val);
}

CT_API void siglongjmp(struct __jmp_buf_tag env[1], int val)
{
    jump_fn next = resolve(&next_siglongjmp, "siglongjmp");
    jumping(env);
    next(env, val);
}

/* _FORTIFY_SOURCE's longjmp. */
CT_API void __longjmp_chk(struct __jmp_buf_tag env[1], int val)
{
    jump_fn next = resolve(&next_chk, "__longjmp_chk");
    jumping(env);
    next(env, val);
}

/*
 * The setjmp family returns twice, so no trampoline may stand for its
 * return address (plt.c never patches it).  A call of one made through a
 * PLT entry of an object whose calls are recorded is written as a call
 * that returns at once, as getcontext's is (context.c), so the tree shows
 * it where the program made it, as it shows every other library call.
 * The stubs keep the stack and the arguments as they came and jump on to
 * glibc's, which saves the caller's registers and stack pointer as if it
 * had been called directly.
 */

uintptr_t ct_jump_setjmp(uintptr_t *retp, uint32_t which)
{
    if (!next_setjmp[which])
        next_setjmp[which] =
            (uintptr_t)ct_next_definition(setjmp_names[which]);
    ct_write_leaf_call(retp);
    return next_setjmp[which];
}

#define SETJMP_STUB(name, which)                                           \
    ".p2align 4\n"                                                         \
    ".globl " name "\n"                                                    \
    ".type " name ", @function\n"                                          \
    name ":\n"                                                             \
    "    .cfi_startproc\n"                                                 \
    "    push %rdi\n"                                                      \
    "    .cfi_adjust_cfa_offset 8\n"                                       \
    "    push %rsi\n"                                                      \
    "    .cfi_adjust_cfa_offset 8\n"                                       \
    "    sub $8, %rsp\n"                                                   \
    "    .cfi_adjust_cfa_offset 8\n"                                       \
    "    lea 24(%rsp), %rdi\n"                                             \
    "    mov $" #which ", %esi\n"                                          \
    "    call ct_jump_setjmp\n"                                            \
    "    add $8, %rsp\n"                                                   \
    "    .cfi_adjust_cfa_offset -8\n"                                      \
    "    pop %rsi\n"                                                       \
    "    .cfi_adjust_cfa_offset -8\n"                                      \
    "    pop %rdi\n"                                                       \
    "    .cfi_adjust_cfa_offset -8\n"                                      \
    "    jmp *%rax\n"                                                      \
    "    .cfi_endproc\n"                                                   \
    ".size " name ", .-" name "\n"

/* The numbers are SJ_SETJMP, SJ__SETJMP and SJ_SIGSETJMP. */
__asm__(".text\n"
        SETJMP_STUB("setjmp", 0)
        SETJMP_STUB("_setjmp", 1)
        SETJMP_STUB("__sigsetjmp", 2));
_Static_assert(SJ_SETJMP == 0 && SJ__SETJMP == 1 && SJ_SIGSETJMP == 2,
               "the stubs' numbers");

/*
 * The first thing a catch block does: the exception has unwound to the
 * catching function, whose stack pointer is our caller's.  Instrumented
 * frames with cleanups ran their exit hooks on the way; frames without
 * (C code, code built without exceptions) are ended here.
 */
CT_API void *__cxa_begin_catch(void *exception)
{
    if (!next_catch)
        next_catch = (catch_fn)ct_next_definition("__cxa_begin_catch");
    uintptr_t here = (uintptr_t)__builtin_dwarf_cfa();
    land_at(here, here, 1);
    /* Library calls: the one that brought us here, if any, has its return
     * address just below here and stays. */
    ct_plt_rearm(here - sizeof(uintptr_t));
    return next_catch(exception);
}
