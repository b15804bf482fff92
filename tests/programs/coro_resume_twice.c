/*
 * A context saved by swapcontext and resumed three times (setcontext to
 * it twice more), as getcontext's may be (tests/e2e/trace_coroutines.sh):
 * the tracer writes the calls of getcontext and swapcontext but must keep
 * no frame of its own between the caller and glibc, which the saved
 * context would hold.  Prints n=3.
 */
#include <stdio.h>
#include <ucontext.h>

static ucontext_t saved, co_ctx;
static int n;
static char co_stack[64 * 1024];

__attribute__((noinline)) static void co(void)
{
    setcontext(&saved);
}

__attribute__((noinline)) static void step(void)
{
    n++;
}

int main(void)
{
    getcontext(&co_ctx);
    co_ctx.uc_stack.ss_sp = co_stack;
    co_ctx.uc_stack.ss_size = sizeof co_stack;
    co_ctx.uc_link = NULL;
    makecontext(&co_ctx, co, 0);
    swapcontext(&saved, &co_ctx);  /* returns three times */
    step();
    if (n < 3)
        setcontext(&saved);
    printf("n=%d\n", n);
    return 0;
}
