/* Record-time filters across coroutine switches
 * (tests/e2e/filter_coroutine.sh): under min=1ms, main's entry is
 * written by slow(1), then a coroutine starts at level 0 with frames of
 * its own that wait on their duration, switches back to main while they
 * are open, and main keeps slow(2): main must not be written twice, nor
 * the coroutine's pending frames be taken for main's.  The coroutine's
 * frames end in its own context: co_yield's call spans main's slow(2)
 * and is kept, co_body's once slow(5) is, quick() never.  With an
 * argument, main ends while the coroutine is suspended in co_yield: its
 * frames open then are shown as never returned, as without a filter. */
#include <ucontext.h>
#include <unistd.h>

static ucontext_t main_ctx, co_ctx;
static char co_stack[64 << 10];
volatile long sink;

__attribute__((noinline)) long quick(long x) { return x + 1; }

__attribute__((noinline)) long slow(long x)
{
    usleep(3000);
    return x * 2;
}

__attribute__((noinline)) void co_yield(void)
{
    swapcontext(&co_ctx, &main_ctx);
}

static void co_body(void)
{
    sink += quick(1);
    co_yield();
    sink += slow(5);
}

int main(int argc, char **argv)
{
    (void)argv;
    sink += slow(1);
    getcontext(&co_ctx);
    co_ctx.uc_stack.ss_sp = co_stack;
    co_ctx.uc_stack.ss_size = sizeof co_stack;
    co_ctx.uc_link = &main_ctx;
    makecontext(&co_ctx, co_body, 0);
    swapcontext(&main_ctx, &co_ctx);
    sink += slow(2);
    if (argc > 1)  /* co_body stays suspended */
        return sink == 2 + 2 + 4 ? 0 : 1;
    swapcontext(&main_ctx, &co_ctx);
    sink += quick(3);
    return sink == 2 + 2 + 4 + 10 + 4 ? 0 : 1;
}
