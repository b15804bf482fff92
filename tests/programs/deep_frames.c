/* Frames past the levels a thread's state holds (960), which live in a
 * mapping of their own, must be kept as the others are.  Each mode goes
 * N levels deep (argv[2]), calls mid() half-way, and leaves the frames
 * under mid() by __builtin_longjmp, which no wrapper sees: mid()'s exit,
 * not its top frame's, must end them all, found on the shadow stack by
 * its function.  An event marks where mid() returned to.
 *   jump N: on the thread's own stack.
 *   coro N: in a coroutine, which switches back to main at the bottom;
 *           main goes N levels deep in other functions, returns and
 *           resumes it: its frames must come back as they were. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

#include "calltrace.h"

static void *jump_buf[5];
static volatile int sink;
static int in_coroutine;
static ucontext_t main_ctx, co_ctx;

__attribute__((noinline)) void walk(int n)
{
    if (n <= 0) {
        if (in_coroutine)
            swapcontext(&co_ctx, &main_ctx);
        __builtin_longjmp(jump_buf, 1);
    }
    walk(n - 1);
    sink++;
}

__attribute__((noinline)) void mid(int below)
{
    if (__builtin_setjmp(jump_buf) == 0)
        walk(below);
}

__attribute__((noinline)) void walk_to_mid(int above, int below)
{
    if (above > 0)
        walk_to_mid(above - 1, below);
    else {
        mid(below);
        calltrace_event("mid returned");
    }
    sink++;
}

__attribute__((noinline)) void main_walk(int n)
{
    if (n > 0)
        main_walk(n - 1);
    sink++;
}

static int depth;

__attribute__((noinline)) void co_body(void)
{
    walk_to_mid(depth / 2, depth / 2);
}

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    depth = atoi(argv[2]);
    if (strcmp(argv[1], "jump") == 0) {
        walk_to_mid(depth / 2, depth / 2);
    } else {
        static char stack[8 << 20];
        in_coroutine = 1;
        getcontext(&co_ctx);
        co_ctx.uc_stack.ss_sp = stack;
        co_ctx.uc_stack.ss_size = sizeof stack;
        co_ctx.uc_link = &main_ctx;
        makecontext(&co_ctx, co_body, 0);
        swapcontext(&main_ctx, &co_ctx);  /* to the coroutine's bottom */
        main_walk(depth);
        swapcontext(&main_ctx, &co_ctx);  /* it jumps, returns, ends */
    }
    printf("%d\n", sink);
    return 0;
}
