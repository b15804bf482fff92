/* calltrace --stats / slowest: nap(n) sleeps n * 200 us, for n = 1..20 in
 * a scrambled order, so that the k-th shortest call lasts at least
 * k * 200 us whatever the load (a sleep never ends early). */
#include <time.h>

__attribute__((noinline)) void nap(int n)
{
    struct timespec ts = {0, n * 200000L};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

int main(void)
{
    for (int i = 0; i < 20; i++)
        nap(i * 7 % 20 + 1);
    return 0;
}
