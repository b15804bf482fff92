/*
 * A coroutine switch made inside 40 nested library calls (qsort whose
 * comparator calls qsort, then coro_lib.c's switch) when the address
 * space is full: the tracer cannot keep the context's open library calls
 * (a save buffer for so many cannot be mapped), so it must take their
 * trampolines off the stack and count their returns lost.  Left armed,
 * the returns found no frame and the tracer aborted the program.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <ucontext.h>

void coro_lib_switch(ucontext_t *from, ucontext_t *to);

static ucontext_t main_ctx, co_ctx;
static char co_stack[64 * 1024];

static int depth;

__attribute__((noinline)) static void nest(void);

/* Recurses through qsort once per level: the first comparison only. */
__attribute__((noinline)) static int cmp(const void *a, const void *b)
{
    static int seen[64];
    if (depth < 40 && !seen[depth]++) {
        depth++;
        nest();
    }
    return *(const int *)a - *(const int *)b;
}

__attribute__((noinline)) static void nest(void)
{
    if (depth == 40) {
        coro_lib_switch(&co_ctx, &main_ctx);
        return;
    }
    int pair[2] = {2, 1};
    qsort(pair, 2, sizeof pair[0], cmp);
}

__attribute__((noinline)) static void co_body(void)
{
    nest();
}

/* The address space limited to what the process holds now (and a few
 * pages): every new mapping, the tracer's too, is refused. */
static void fill_address_space(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long pages = 0;
    if (!f || fscanf(f, "%lu", &pages) != 1)
        exit(3);
    fclose(f);
    struct rlimit r = {(pages + 4) * 4096ul, (pages + 4) * 4096ul};
    if (setrlimit(RLIMIT_AS, &r) != 0)
        exit(4);
}

int main(void)
{
    printf("start\n");
    fflush(stdout);
    getcontext(&co_ctx);
    co_ctx.uc_stack.ss_sp = co_stack;
    co_ctx.uc_stack.ss_size = sizeof co_stack;
    co_ctx.uc_link = &main_ctx;
    makecontext(&co_ctx, co_body, 0);
    fill_address_space();
    coro_lib_switch(&main_ctx, &co_ctx);  /* co_body switches back */
    coro_lib_switch(&main_ctx, &co_ctx);  /* its library call returns */
    printf("done\n");
    return 0;
}
