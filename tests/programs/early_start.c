/* Instrumented code that runs before libc has set up the environment: a
 * function in .preinit_array (before any library's constructor), the
 * constructor of a library it links (early_lib.c) and an early
 * constructor of its own, all before main (see tests/e2e/trace_early.sh). */
#include <stdio.h>

static volatile int sink;

__attribute__((noinline)) static void pre_leaf(void) { sink++; }
static void in_preinit(void) { pre_leaf(); }
__attribute__((section(".preinit_array"), used))
static void (*const preinit)(void) = in_preinit;

__attribute__((noinline)) static void ctor_leaf(void) { sink++; }
__attribute__((constructor(101))) static void early_ctor(void) { ctor_leaf(); }

int early_lib_calls(void);

int main(void)
{
    printf("sink=%d lib=%d\n", sink, early_lib_calls());
    return 0;
}
