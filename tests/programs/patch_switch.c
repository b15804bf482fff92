/* A stack switch no wrapper sees (tests/e2e/patch_coroutines.sh): foo
 * moves the stack pointer into a buffer of main's, above foo's own frame,
 * calls bar there and comes back, the way a coroutine library of its own
 * switches.  For the tracer, bar's entry looks as if foo had been left by
 * a jump; foo returns all the same.  Prints bar's result. */
#include <stdio.h>

__attribute__((noinline, used)) int bar(int x)
{
    return x * 2;
}

__attribute__((noinline)) int foo(char *top, int x)
{
    int r;
    __asm__ volatile("mov %%rsp, %%rbx\n\t"
                     "mov %1, %%rsp\n\t"
                     "mov %2, %%edi\n\t"
                     "call bar\n\t"
                     "mov %%rbx, %%rsp"
                     : "=a"(r)
                     : "r"(top), "r"(x)
                     : "rbx", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10",
                       "r11", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5",
                       "xmm6", "xmm7", "memory", "cc");
    return r + 1;
}

int main(void)
{
    static __thread int dummy;
    char buf[16384] __attribute__((aligned(16)));
    dummy = foo(buf + sizeof buf - 256, 20);
    printf("%d\n", dummy + (buf[0] & 0));
    return 0;
}
