/* bias_libcall.c: 20 000 calls of cheap() (bias_libcall_lib.c, a shared
 * library) through the PLT from one instrumented function, for
 * tests/e2e/bias_libcall.sh. */
#include <stdio.h>

int cheap(int x);

__attribute__((noinline)) static int caller(int n)
{
    int s = 0;
    for (int i = 0; i < n; i++)
        s = cheap(s);
    return s;
}

int main(void)
{
    printf("%d\n", caller(20000));
    return 0;
}
