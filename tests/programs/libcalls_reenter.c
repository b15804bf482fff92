/* Library calls re-entered during their own first call, when the loader's
 * lazy binding resolves them (tests/e2e/libcalls_reenter.sh):
 *   sort():   qsort whose instrumented comparator calls qsort once, at its
 *             first comparison: 2 qsort calls, the inner one in cmp_outer
 *   sort_r(): qsort_r whose comparator, not instrumented, calls qsort_r
 *             once, at its first comparison: 2 qsort_r calls
 * With the argument "deep" instead: qsort nested DEEP levels deep through
 * its comparator, past the CT_PLT_MAX_FRAMES (1024) library calls a
 * thread may have open: the calls past it are counted lost, 2 events each.
 * Each function is called here for the first time, so with lazy binding
 * the outer call goes through the loader's resolver.  Output: one line,
 * the same with and without the tracer. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int inner_done, quiet_done;

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static int cmp_outer(const void *a, const void *b)
{
    if (!inner_done) {
        static int w[3] = {9, 8, 7};
        inner_done = 1;
        qsort(w, 3, sizeof w[0], cmp_int);
    }
    return cmp_int(a, b);
}

static int sort(void)
{
    static int v[4] = {4, 2, 3, 1};
    qsort(v, 4, sizeof v[0], cmp_outer);
    return v[0] * 1000 + v[1] * 100 + v[2] * 10 + v[3];
}

/* Not instrumented: no hook runs between the resolver's work and the
 * nested call, which only the library-call stub can see. */
static __attribute__((no_instrument_function)) int
cmp_quiet(const void *a, const void *b, void *arg)
{
    if (!*(int *)arg) {
        static int w[3] = {6, 5, 4};
        *(int *)arg = 1;
        qsort_r(w, 3, sizeof w[0], cmp_quiet, arg);
    }
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static int sort_r(void)
{
    static int v[4] = {8, 6, 9, 7};
    qsort_r(v, 4, sizeof v[0], cmp_quiet, &quiet_done);
    return v[0] * 1000 + v[1] * 100 + v[2] * 10 + v[3];
}

#define DEEP 1100
static int deep_level;

static int cmp_deep(const void *a, const void *b)
{
    if (++deep_level < DEEP) {
        int w[2] = {2, 1};
        qsort(w, 2, sizeof w[0], cmp_deep);
    }
    return cmp_int(a, b);
}

static int deep(void)
{
    int w[2] = {2, 1};
    qsort(w, 2, sizeof w[0], cmp_deep);
    return deep_level;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "deep") == 0) {
        printf("levels %d\n", deep());
        return 0;
    }
    int s = sort();
    int r = sort_r();
    printf("sorted %d %d\n", s, r);
    return 0;
}
