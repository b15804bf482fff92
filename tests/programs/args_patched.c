/* Functions of the main program with arguments and return values known
 * by construction, for CALLTRACE_ARGS on patched entries
 * (tests/e2e/args_patched.sh; built with `calltrace cflags --patchable`
 * at -O0 and -O2): the values are in the ABI's registers at the patched
 * entry whatever the optimisation level.  Prints what it computed, the
 * same traced or not. */
#include <stdio.h>

__attribute__((noinline)) int p_add(int a, long b)
{
    return (int)(a + b);
}

__attribute__((noinline)) const char *p_greet(const char *who, char mark)
{
    return mark == '!' ? who : "?";
}

__attribute__((noinline)) double p_scale(double x, float y, int k)
{
    return x * y * k;
}

/* Eight integer arguments: the last two on the stack. */
__attribute__((noinline)) long p_many(int a1, int a2, int a3, int a4, int a5,
                                      int a6, int a7, long a8)
{
    return a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8;
}

__attribute__((noinline)) int p_len(const char *s)
{
    int n = 0;
    while (s && s[n])
        n++;
    return n;
}

/* A string argument it never reads: at a bad address (shown as a bad
 * pointer, the program untouched) or NULL. */
__attribute__((noinline)) int p_ptr(const char *s)
{
    return s != 0;
}

/* No rule: no values shown. */
__attribute__((noinline)) int p_plain(int x)
{
    return p_add(x, 1) * 2;
}

/* Recursion: each level's value and result its own. */
__attribute__((noinline)) int p_fact(int n)
{
    return n <= 1 ? 1 : n * p_fact(n - 1);
}

int main(void)
{
    long t = p_add(-1, 2);
    t += p_add(40, 2);
    const char *g = p_greet("world", '!');
    double d = p_scale(1.5, 2.0f, -2);
    t += p_many(1, 2, 3, 4, 5, 6, 7, 100000000000L);
    t += p_len("hello");
    t += p_ptr((const char *)0x10) + p_ptr(0);
    t += p_plain(4);
    t += p_fact(4);
    printf("%ld %s %.1f\n", t, g, d);
    return 0;
}
