/* A program that executes another with the same functions
 * (tests/e2e/args_site_returns.sh): run as `prog OTHER`, it calls
 * same(5) and executes OTHER (a copy of itself), which calls same(21).
 * The places calltrace record read from prog's file hold in prog alone:
 * the copy's calls keep no values. */
#include <stdio.h>
#include <unistd.h>

#if defined(__clang__)
#define KEEP __attribute__((noinline, used))
#else
#define KEEP __attribute__((noinline, noipa))
#endif

KEEP int same(int x) { return x * 2; }

int main(int argc, char **argv)
{
    printf("%d\n", same(argc > 1 ? 5 : 21));
    fflush(stdout);
    if (argc > 1) {
        execl(argv[1], argv[1], (char *)NULL);
        return 127;
    }
    return 0;
}
