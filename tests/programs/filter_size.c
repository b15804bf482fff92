/*
 * Functions of known sizes for CALLTRACE_FILTER=size=N
 * (tests/e2e/trace_filter_size.sh): tiny() is the smallest, big() calls
 * tiny() and mid(), each called a known number of times from main:
 * big x3, mid x3 (from big) + x2 (from main), tiny x3 (from big) + x4.
 */
#include <stdio.h>

static volatile unsigned long sink;

__attribute__((noinline)) void tiny(void)
{
    sink++;
}

__attribute__((noinline)) void mid(void)
{
    for (int i = 0; i < 8; i++)
        sink = sink * 31 + (unsigned long)i;
}

__attribute__((noinline)) void big(void)
{
    for (int i = 0; i < 4; i++) {
        sink ^= sink >> 3;
        sink += (unsigned long)i * 7;
    }
    tiny();
    mid();
    printf("%lu\n", sink % 10);
}

int main(void)
{
    for (int i = 0; i < 3; i++)
        big();
    mid();
    mid();
    for (int i = 0; i < 4; i++)
        tiny();
    return 0;
}
