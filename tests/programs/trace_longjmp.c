/* main calls outer 3 times; outer calls middle, middle calls inner, and
 * inner longjmps back into outer, so neither inner's nor middle's exit
 * hook runs.  Then outer calls leaf once and returns normally. */
#include <setjmp.h>
#include <stdio.h>

static jmp_buf back;
static volatile int sum;

__attribute__((noinline)) static void inner(int i)
{
    sum += i;
    longjmp(back, 1);
}

__attribute__((noinline)) static void middle(int i)
{
    inner(i);
    sum += 100;  /* never reached */
}

__attribute__((noinline)) static void leaf(void)
{
    sum += 1;
}

__attribute__((noinline)) static void outer(int i)
{
    if (setjmp(back) == 0)
        middle(i);
    leaf();
}

int main(void)
{
    for (int i = 0; i < 3; i++)
        outer(i);
    printf("sum=%d\n", sum);
    return 0;
}
