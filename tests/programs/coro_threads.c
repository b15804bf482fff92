/*
 * Two threads, each with a coroutine of its own (tests/e2e/
 * trace_coroutines.sh): each runs main's ping-pong of coro_ucontext.c,
 * ROUNDS rounds, on its own stacks at the same time.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <ucontext.h>

#define ROUNDS 1000

struct co {
    ucontext_t main, co;
    char stack[1 << 16];
};

static __thread struct co *cur;

__attribute__((noinline)) void baz(void)
{
    __asm__ volatile("");
}

__attribute__((noinline)) void bar(void)
{
    for (int i = 0; i < ROUNDS; i++) {
        baz();
        swapcontext(&cur->co, &cur->main);
    }
}

__attribute__((noinline)) void foo(void)
{
    swapcontext(&cur->main, &cur->co);
}

__attribute__((noinline)) void *run(void *arg)
{
    struct co *c = arg;
    cur = c;
    getcontext(&c->co);
    c->co.uc_stack.ss_sp = c->stack;
    c->co.uc_stack.ss_size = sizeof c->stack;
    c->co.uc_link = &c->main;
    makecontext(&c->co, bar, 0);
    for (int i = 0; i <= ROUNDS; i++)
        foo();
    return NULL;
}

int main(void)
{
    static struct co a, b;
    pthread_t x, y;
    if (pthread_create(&x, NULL, run, &a) || pthread_create(&y, NULL, run, &b))
        return 1;
    pthread_join(x, NULL);
    pthread_join(y, NULL);
    puts("ok");
    return 0;
}
