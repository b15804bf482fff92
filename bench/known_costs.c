/*
 * A program of known costs (issue 22): for each function of
 * bench/known_costs_work.c, the CPU time per call of its uninstrumented copy
 * (u_*) and of its instrumented copy (t_*, which the tracer records), in
 * ROUNDS rounds taken in turn, means over the rounds.  Prints
 * one line per function:
 *   NAME CALLS UNTRACED_NS_PER_CALL TRACED_NS_PER_CALL_BY_THIS_CLOCK
 * For the parent, UNTRACED is its total per call (its leaf's calls in it).
 * bench/known_costs.sh compares these with the report.
 *   known_costs [SCALE]     (SCALE multiplies the calls; default 1)
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define ROUNDS 5
#define PARENT_N 100
#define REC_DEPTH 10

#define DECLARE(p)                                                           \
    unsigned long p##_c1(unsigned long), p##_c10(unsigned long),             \
        p##_c100(unsigned long), p##_c1000(unsigned long),                   \
        p##_c10000(unsigned long), p##_leaf(unsigned long),                  \
        p##_parent(unsigned long, int), p##_rec(unsigned long, int),         \
        p##_libcall(unsigned long);
DECLARE(u)
DECLARE(t)

static volatile unsigned long sink;

static double cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* One kind of call: a function of one argument, or one with an int. */
struct fn {
    const char *name;
    unsigned long (*u1)(unsigned long), (*t1)(unsigned long);
    unsigned long (*u2)(unsigned long, int), (*t2)(unsigned long, int);
    int arg;
    long calls;
};

/* CPU ns per call of `calls` calls of f (untraced or traced copy). */
static double time_calls(const struct fn *f, int traced)
{
    unsigned long x = 1;
    double t0 = cpu_ns();
    if (f->u1) {
        unsigned long (*g)(unsigned long) = traced ? f->t1 : f->u1;
        for (long i = 0; i < f->calls; i++)
            x = g(x);
    } else {
        unsigned long (*g)(unsigned long, int) = traced ? f->t2 : f->u2;
        for (long i = 0; i < f->calls; i++)
            x = g(x, f->arg);
    }
    double ns = cpu_ns() - t0;
    sink = x;
    return ns / f->calls;
}

int main(int argc, char **argv)
{
    long scale = argc > 1 ? atol(argv[1]) : 1;
    if (scale < 1)
        scale = 1;
    struct fn fns[] = {
        {"c1", u_c1, t_c1, NULL, NULL, 0, 200000},
        {"c10", u_c10, t_c10, NULL, NULL, 0, 200000},
        {"c100", u_c100, t_c100, NULL, NULL, 0, 100000},
        {"c1000", u_c1000, t_c1000, NULL, NULL, 0, 10000},
        {"c10000", u_c10000, t_c10000, NULL, NULL, 0, 1000},
        {"leaf", u_leaf, t_leaf, NULL, NULL, 0, 200000},
        {"parent", NULL, NULL, u_parent, t_parent, PARENT_N, 4000},
        {"rec", NULL, NULL, u_rec, t_rec, REC_DEPTH, 20000},
        {"libcall", u_libcall, t_libcall, NULL, NULL, 0, 100000},
    };
    enum { N = sizeof fns / sizeof fns[0] };
    double untraced[N] = {0}, traced[N] = {0};
    for (int i = 0; i < N; i++) {
        fns[i].calls *= scale;
        time_calls(&fns[i], 0);  /* warm up */
    }
    /* Untraced and traced rounds in turn, so that both meet the same load;
     * the report averages over every traced call, so the means compare. */
    for (int r = 0; r < ROUNDS; r++)
        for (int i = 0; i < N; i++) {
            untraced[i] += time_calls(&fns[i], 0) / ROUNDS;
            traced[i] += time_calls(&fns[i], 1) / ROUNDS;
        }
    for (int i = 0; i < N; i++) {
        long calls = fns[i].calls * ROUNDS;
        if (fns[i].u2 == u_rec) {
            calls *= REC_DEPTH;  /* the report counts every level */
            untraced[i] /= REC_DEPTH;
            traced[i] /= REC_DEPTH;
        }
        printf("%s %ld %.3f %.3f\n", fns[i].name, calls, untraced[i],
               traced[i]);
    }
    return 0;
}
