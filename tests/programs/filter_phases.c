/* Driven line by line on stdin, for tests that change record-time filters
 * while the program runs (tests/e2e/trace_filter_runtime.sh): "N" runs
 * N rounds of a fixed call tree and answers "done"; "exit" returns.
 * One round, from main:
 *   outer -> mid (x2) -> leaf (x3 each)      1 + 2 + 6 calls
 *   outer -> jumper -> leaf, then longjmp back to outer past jumper
 *   outer -> rec(3) -> rec(2) -> rec(1)       a recursion of 3 levels
 * so every count a filter leaves is known by construction.  Each line is
 * read in next_line, so a rule changed while the program waits for one
 * meets first the return of a call entered under the rules before.
 * "nest" runs nest(6), a recursion that prints "waiting" and reads a
 * line in its fourth level, nest(3), so rules can change while four of
 * its frames are open; each of those calls after() once it is back. */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile int sink;
static jmp_buf back;

__attribute__((noinline)) void leaf(void) { sink++; }

__attribute__((noinline)) void mid(void)
{
    for (int i = 0; i < 3; i++)
        leaf();
}

__attribute__((noinline)) void jumper(void)
{
    leaf();
    longjmp(back, 1);
}

__attribute__((noinline)) void rec(int n)
{
    if (n > 1)
        rec(n - 1);
    sink++;
}

__attribute__((noinline)) void outer(void)
{
    mid();
    mid();
    if (!setjmp(back))
        jumper();
    rec(3);
}

__attribute__((noinline)) char *next_line(char *buf, int size)
{
    return fgets(buf, size, stdin);
}

__attribute__((noinline)) void after(void) { sink++; }

__attribute__((noinline)) void nest(int n, char *buf, int size)
{
    if (n == 3) {
        printf("waiting\n");
        next_line(buf, size);
    }
    if (n > 0)
        nest(n - 1, buf, size);
    if (n >= 3)
        after();
}

int main(void)
{
    char line[64];
    setvbuf(stdout, NULL, _IOLBF, 0);
    printf("ready\n");
    while (next_line(line, sizeof line) && strncmp(line, "exit", 4)) {
        if (!strncmp(line, "nest", 4)) {
            nest(6, line, sizeof line);
            printf("done\n");
            continue;
        }
        long n = atol(line);
        for (long i = 0; i < n; i++)
            outer();
        printf("done\n");
    }
    return 0;
}
