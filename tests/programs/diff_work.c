/*
 * Two builds of one program for the diff tests (tests/e2e/report_diff.sh):
 * built as is it is the old run, with -DNEW the new one, whose changes are
 * known by construction:
 *   heavy   does 10 times the work (same calls), light a tenth of it;
 *   gone    is called in the old build only, fresh in the new one only;
 *   chatty  is called 5 times in the old build, 8 in the new one;
 *   steady  is the same in both;
 *   helper  is a static function of this file and another of
 *           diff_work_b.c: the one there is called 2 times in the old
 *           build and 6 in the new one, this one 3 times in both.
 * The new build has a function more at the start (pad), so that every
 * address differs between the builds.
 */
#include <stdio.h>

#define NOINLINE __attribute__((noinline))

int helper_b_calls(int n);

#ifdef NEW
NOINLINE int pad(int x) { return x + 1; }
#define HEAVY 40000000L
#define LIGHT 4000000L
#define CHATTY 8
#define HELPER_B 6
#else
#define HEAVY 4000000L
#define LIGHT 40000000L
#define CHATTY 5
#define HELPER_B 2
#endif

static volatile long sink;

NOINLINE static int helper(int x) { return x * 2; }

/* the loops are in the functions themselves: their self time changes */
NOINLINE void heavy(void)
{
    for (long i = 0; i < HEAVY; i++)
        sink += i;
}

NOINLINE void light(void)
{
    for (long i = 0; i < LIGHT; i++)
        sink += i;
}
NOINLINE void steady(void) { sink += helper(1); }
NOINLINE void chatty(void) { sink += 1; }
#ifdef NEW
NOINLINE void fresh(void) { sink += 2; }
#else
NOINLINE void gone(void) { sink += 3; }
#endif

int main(void)
{
#ifdef NEW
    sink += pad(0);
    for (int i = 0; i < 4; i++)
        fresh();
#else
    for (int i = 0; i < 3; i++)
        gone();
#endif
    heavy();
    light();
    for (int i = 0; i < 3; i++)
        steady();
    for (int i = 0; i < CHATTY; i++)
        chatty();
    sink += helper_b_calls(HELPER_B);
    printf("done\n");
    return 0;
}
