/* Tail calls between patched functions (tests/e2e/patch_tail.sh; built
 * with `calltrace cflags --patchable` at -O2, where gcc and clang turn
 * `return g(...)` into a jump): a patched function that jumps to another
 * leaves its return address, which the tracer has pointed at its
 * trampoline, for the next one to return through.  By construction:
 *   f x10 jumps to g, g jumps to h:          f=10 g=10 h=10
 *   is_even/is_odd: 100001 calls in all, each jumping to the other, never
 *     deeper than one frame (a tracer that kept each would run out of its
 *     4096)
 *   to_unpatched x3 jumps to u (left unpatched by the test): u=0
 *   to_lib x2 jumps to a library function (getppid, through the PLT)
 * Prints what it computed, the same traced or not. */
#include <stdio.h>
#include <unistd.h>

volatile int sink;

__attribute__((noinline)) int h(int x)
{
    sink += x;
    return x + 1;
}

__attribute__((noinline)) int g(int x)
{
    sink++;
    return h(x * 2);
}

__attribute__((noinline)) int f(int x)
{
    sink++;
    return g(x + 1);
}

__attribute__((noinline)) int is_odd(unsigned n);

__attribute__((noinline)) int is_even(unsigned n)
{
    sink++;
    return n == 0 ? 1 : is_odd(n - 1);
}

__attribute__((noinline)) int is_odd(unsigned n)
{
    sink++;
    return n == 0 ? 0 : is_even(n - 1);
}

__attribute__((noinline)) int u(int x)
{
    sink++;
    return x - 1;
}

__attribute__((noinline)) int to_unpatched(int x)
{
    sink++;
    return u(x * 3);
}

__attribute__((noinline)) int to_lib(void)
{
    sink++;
    return getppid();
}

int main(void)
{
    long t = 0;
    for (int i = 0; i < 10; i++)
        t += f(i);
    t += is_even(100000);
    for (int i = 0; i < 3; i++)
        t += to_unpatched(i);
    for (int i = 0; i < 2; i++)
        t += to_lib() > 0;
    printf("%ld\n", t);
    return 0;
}
