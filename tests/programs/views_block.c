/* Many short calls: under CALLTRACE_BUFSIZE=4K the tracer switches blocks
 * every few hundred records, so its pauses (S..E) fall inside calls of
 * tiny(), which the views must not charge to tiny(). */
static volatile int sink;

__attribute__((noinline)) void tiny(int i) { sink += i; }

__attribute__((noinline)) void batch(void)
{
    for (int i = 0; i < 4000; i++)
        tiny(i);
}

int main(void)
{
    batch();
    for (int i = 0; i < 4000; i++)
        tiny(i);
    return 0;
}
