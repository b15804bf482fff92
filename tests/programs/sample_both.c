/*
 * For CALLTRACE_MODE=both: main calls work exactly 400 times, each call
 * spinning long enough (a fixed number of iterations) to be sampled.
 */
static volatile unsigned long sink;

__attribute__((noinline)) void work(void)
{
    unsigned long x = sink;
    for (long i = 0; i < 200000; i++)
        x = x * 6364136223846793005ul + 1442695040888963407ul;
    sink = x;
}

int main(void)
{
    for (int i = 0; i < 400; i++)
        work();
    return 0;
}
