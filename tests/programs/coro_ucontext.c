/*
 * Coroutine ping-pong with makecontext/swapcontext (tests/e2e/
 * trace_coroutines.sh): main calls foo ROUNDS + 1 times; each foo
 * switches to a context running bar, which calls baz and switches back,
 * ROUNDS times, then returns to uc_link (back in foo).  The shape of
 * uftrace's own ucontext test.  Built with -DCORO_LIB, the switches go
 * through coro_lib_switch in a shared library (coro_lib.c), a library
 * call open in each context while the other runs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <ucontext.h>

#ifdef CORO_LIB
void coro_lib_switch(ucontext_t *from, ucontext_t *to);
#define SWITCH coro_lib_switch
#else
#define SWITCH swapcontext
#endif

static ucontext_t main_ctx, co_ctx;
static char co_stack[1 << 16];
static int rounds, count;

__attribute__((noinline)) void baz(void)
{
    count++;
    __asm__ volatile("");
}

__attribute__((noinline)) void bar(void)
{
    for (int i = 0; i < rounds; i++) {
        baz();
        SWITCH(&co_ctx, &main_ctx);
    }
}

__attribute__((noinline)) void foo(void)
{
    SWITCH(&main_ctx, &co_ctx);
}

int main(int argc, char **argv)
{
    rounds = argc > 1 ? atoi(argv[1]) : 2;
    getcontext(&co_ctx);
    co_ctx.uc_stack.ss_sp = co_stack;
    co_ctx.uc_stack.ss_size = sizeof co_stack;
    co_ctx.uc_link = &main_ctx;
    makecontext(&co_ctx, bar, 0);
    for (int i = 0; i <= rounds; i++)
        foo();
    printf("count=%d\n", count);
    return 0;
}
