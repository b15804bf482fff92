/* Functions whose parameters and return values calltrace record reads
 * from DWARF (`--args FUNC@args`, `--auto-args`; args_dwarf.sh): each
 * kind of type once, with values known by construction (an enum by its
 * values' names), and the cases where the items stop (a variadic tail). */
#include <stdbool.h>
#include <stdio.h>
#include <unistd.h>

#if defined(__clang__)
#define KEEP __attribute__((noinline, used))
#else
#define KEEP __attribute__((noinline, noipa))
#endif

enum color { RED, GREEN = 5, BLUE = -2 };
struct pair {
    long a, b;
};

volatile long sink;

KEEP int d_int(int a, long b) { return (int)(a + b); }

KEEP unsigned short d_small(unsigned short u, signed char c, bool f)
{
    return (unsigned short)(u + c + f);
}

KEEP const char *d_str(const char *s, char c, void *p)
{
    sink += (long)p;
    return s + (c == 'x');
}

KEEP double d_float(float f, double d, int i) { return f * d + i; }

KEEP float d_mixed(double d, long l, float f) { return (float)(d + l + f); }

KEEP int d_enum(enum color c)
{
    sink++;  /* an effect: clang -O2 drops a call it can do without */
    return c;
}

KEEP long d_struct(int before, struct pair p, int after)
{
    return before + p.a + p.b + after;
}

KEEP int d_variadic(int n, ...)
{
    sink++;
    return n;
}

KEEP void d_void(long x) { sink += x; }

/* A pointer to a function reads &name, as uftrace shows a callback. */
KEEP int d_fnptr(void (*cb)(long))
{
    sink++;
    return cb != 0;
}

int main(void)
{
    struct pair p = {1, 2};
    /* each result used: clang -O2 drops calls of functions it sees have
     * no effect */
    sink += d_int(-3, 40);
    sink += d_small(65535, -2, true);
    sink += *d_str("abc", 'x', (void *)0x1234);
    sink += (long)d_float(1.5f, 2.0, 3);
    sink += (long)d_mixed(0.5, 2, 0.25f);
    sink += d_enum(BLUE);
    sink += d_struct(7, p, 7);
    sink += d_variadic(3, 1, 2, 3);
    d_void(9);
    sink += d_fnptr(d_void);
    sink += access(".", R_OK | X_OK);  /* flags of the table's enum */
    puts("done");
    return 0;
}
