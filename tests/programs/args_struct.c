/* Parameters after structs passed by value, in every way the x86-64 ABI
 * passes one (args_struct.sh): in two integer registers, in two vector
 * registers, in one of each, in memory (too large, packed, or no
 * registers left for all of it), not at all (empty); and past the
 * registers, on the caller's stack, integers and doubles.  Every value
 * after a struct is known by construction, so a wrong count of the
 * registers a struct takes shows as a wrong value. */
#include <stdio.h>

#if defined(__clang__)
#define KEEP __attribute__((noinline, used))
#else
#define KEEP __attribute__((noinline, noipa))
#endif

struct pair { long a, b; };                    /* INTEGER, INTEGER */
struct dbl2 { double x, y; };                  /* SSE, SSE         */
struct mix { double x; int i; };               /* SSE, INTEGER     */
struct big { long v[3]; };                     /* memory: 24 bytes */
struct __attribute__((packed)) odd { char c; long n; }; /* memory  */
struct empty {};                               /* nothing          */
typedef struct { int lo, hi; } range_t;        /* INTEGER, a typedef's name */

volatile long sink;

KEEP long s_pair(int before, struct pair p, int after)
{
    return before + p.a + p.b + after;
}

KEEP double s_dbl2(struct dbl2 d, int i, double f)
{
    return d.x + d.y + i + f;
}

KEEP double s_mix(struct mix m, double f, int i)
{
    return m.x + m.i + f + i;
}

KEEP long s_big(int a, struct big b, int c)
{
    return a + b.v[0] + b.v[2] + c;
}

KEEP long s_odd(struct odd o, int x) { return o.c + o.n + x; }

KEEP int s_empty(struct empty e, int x)
{
    (void)e;
    sink++;
    return x;
}

KEEP int s_range(range_t r, int x) { return r.lo + r.hi + x; }

/* five registers taken: the pair needs two, so it goes in memory and f
 * takes the sixth register */
KEEP long s_spill(long a, long b, long c, long d, long e, struct pair p,
                  long f)
{
    return a + b + c + d + e + p.a + p.b + f;
}

/* the 7th and 8th integers, the 9th double: the caller's stack */
KEEP long s_stack(int a1, int a2, int a3, int a4, int a5, int a6, int a7,
                  int a8)
{
    return a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8;
}

KEEP double s_fstack(double f1, double f2, double f3, double f4, double f5,
                     double f6, double f7, double f8, double f9, int n)
{
    return f1 + f2 + f3 + f4 + f5 + f6 + f7 + f8 + f9 + n;
}

/* returned in memory: the caller's pointer comes first, in %rdi */
KEEP struct big s_ret_big(int x)
{
    struct big b = {{x, x + 1, x + 2}};
    sink++;
    return b;
}

KEEP struct pair s_ret_pair(int x)
{
    struct pair p = {x, -x};
    sink++;
    return p;
}

int main(void)
{
    struct pair p = {1, 2};
    struct dbl2 d = {0.5, 0.25};
    struct mix m = {1.5, 3};
    struct big b = {{4, 5, 6}};
    struct odd o = {7, 8};
    struct empty e;
    range_t r = {1, 2};
    sink += s_pair(7, p, 9);
    sink += (long)s_dbl2(d, 11, 2.5);
    sink += (long)s_mix(m, 4.5, 13);
    sink += s_big(15, b, 17);
    sink += s_odd(o, 19);
    sink += s_empty(e, 21);
    sink += s_range(r, 23);
    sink += s_spill(1, 2, 3, 4, 5, p, 25);
    sink += s_stack(1, 2, 3, 4, 5, 6, 27, 29);
    sink += (long)s_fstack(1, 2, 3, 4, 5, 6, 7, 8, 9.5, 31);
    sink += s_ret_big(33).v[1];
    sink += s_ret_pair(35).b;
    puts("done");
    return 0;
}
