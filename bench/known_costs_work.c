/*
 * The functions of bench/known_costs.c, whose costs are known: built twice
 * into the one program, once with -finstrument-functions (names t_*,
 * traced) and once without (names u_*, the truth the traced figures are
 * held against).  KC(name) gives each copy its names.
 *
 * The work is a dependent chain of multiplications (about 1 ns a step: one
 * imul's latency at 3 GHz); the empty asm keeps the compiler from folding
 * the chain into a closed form or hoisting it out of the caller's loop.
 */
#include <stdio.h>

#ifndef KC
#error "build with -DKC(n)=t_##n or -DKC(n)=u_##n"
#endif

#define NOINLINE __attribute__((noinline))

static inline __attribute__((always_inline, no_instrument_function)) unsigned long
chain_steps(unsigned long x, int steps)
{
    for (int i = 0; i < steps; i++) {
        x = x * 2654435761u + 1;
        __asm__("" : "+r"(x));
    }
    return x;
}

NOINLINE unsigned long KC(c1)(unsigned long x) { __asm__("" : "+r"(x)); return x + 1; }
NOINLINE unsigned long KC(c10)(unsigned long x) { return chain_steps(x, 8); }
NOINLINE unsigned long KC(c100)(unsigned long x) { return chain_steps(x, 100); }
NOINLINE unsigned long KC(c1000)(unsigned long x) { return chain_steps(x, 1000); }
NOINLINE unsigned long KC(c10000)(unsigned long x) { return chain_steps(x, 10000); }

/* A leaf and a parent that calls it n times: the parent's own work is its
 * loop, all its time but a few ns a call is its children's. */
NOINLINE unsigned long KC(leaf)(unsigned long x) { return chain_steps(x, 16); }
NOINLINE unsigned long KC(parent)(unsigned long x, int n)
{
    for (int i = 0; i < n; i++)
        x = KC(leaf)(x);
    return x;
}

/* Recursion: each level does 40 steps of its own. */
NOINLINE unsigned long KC(rec)(unsigned long x, int depth)
{
    x = chain_steps(x, 40);
    return depth > 1 ? KC(rec)(x, depth - 1) + 1 : x;
}

/* A library call (uninstrumented libc), whose time is the caller's. */
NOINLINE unsigned long KC(libcall)(unsigned long x)
{
    char buf[32];
    int n = snprintf(buf, sizeof buf, "%lu", x);
    return x + (unsigned long)n + (unsigned char)buf[0];
}
