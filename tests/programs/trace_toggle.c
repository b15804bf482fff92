/* Every way of turning tracing off.  Expected records, in order:
 *   main, shown_a, (hidden_a x5 not recorded), outer [its exit recorded
 *   though tracing goes off inside it], shown_b x3, (in_region x4 and the
 *   nested() they call not recorded), shown_c, then with CALLTRACE_SIGNAL
 *   set: (by_signal x2 not recorded), shown_d x2.
 * Without the preload every call here is a no-op; prints "enabled=0". */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include "calltrace.h"

static volatile int sink;

__attribute__((noinline)) static void shown_a(void) { sink++; }
__attribute__((noinline)) static void hidden_a(void) { sink++; }
__attribute__((noinline)) static void shown_b(void) { sink++; }
__attribute__((noinline)) static void nested(void) { sink++; }
__attribute__((noinline)) static void in_region(void) { nested(); }
__attribute__((noinline)) static void shown_c(void) { sink++; }
__attribute__((noinline)) static void by_signal(void) { sink++; }
__attribute__((noinline)) static void shown_d(void) { sink++; }

__attribute__((noinline)) static void outer(void)
{
    calltrace_disable();
    for (int i = 0; i < 5; i++)
        hidden_a();
}

int main(void)
{
    shown_a();
    outer();
    int off = calltrace_is_enabled();
    calltrace_enable();
    for (int i = 0; i < 3; i++)
        shown_b();
    CALLTRACE_OFF();
    CALLTRACE_OFF();
    for (int i = 0; i < 2; i++)
        in_region();
    CALLTRACE_ON();
    for (int i = 0; i < 2; i++)
        in_region();
    CALLTRACE_ON();
    shown_c();
    calltrace_event("region done");
    if (getenv("CALLTRACE_SIGNAL")) {
        raise(SIGUSR2);
        for (int i = 0; i < 2; i++)
            by_signal();
        raise(SIGUSR2);
        for (int i = 0; i < 2; i++)
            shown_d();
    }
    printf("enabled=%d off_inside=%d\n", calltrace_is_enabled(), off);
    return 0;
}
