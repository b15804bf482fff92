/* Values of calls that a min= filter keeps only once they have lasted
 * long enough (args_patched.sh): slow() sleeps 3 ms and is kept, with
 * its argument and return value; quick(), called from main and from
 * slow(), is left out, values and all. */
#include <unistd.h>

__attribute__((noinline)) long quick(long x) { return x + 1; }

__attribute__((noinline)) long slow(long x)
{
    usleep(3000);
    return quick(x) * 2;
}

int main(void)
{
    long s = 0;
    for (int i = 0; i < 3; i++)
        s += quick(i) + slow(i);
    return s == 18 ? 0 : 1;
}
