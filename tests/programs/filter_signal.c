/* A signal trigger's tree (trace_filter_signal.sh): the signal comes
 * twice, between before and middle, and between middle and after. */
#include <signal.h>

void before(void);
void middle(void);
void after(void);

__attribute__((noinline)) void before(void) { __asm__ volatile(""); }
__attribute__((noinline)) void middle(void) { __asm__ volatile(""); }
__attribute__((noinline)) void after(void) { __asm__ volatile(""); }

int main(void)
{
    before();
    raise(SIGUSR1);
    middle();
    raise(SIGUSR1);
    after();
    return 0;
}
