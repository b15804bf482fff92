/* uftrace's t039_filter_trigger scenario: an include filter on outer and
 * an :on trigger on start, two levels inside it (trace_filter_uftrace.sh). */
void leaf(void);
void start(void);
void inner(void);
void outer(void);

__attribute__((noinline)) void leaf(void) { __asm__ volatile(""); }
__attribute__((noinline)) void start(void) { leaf(); }
__attribute__((noinline)) void inner(void) { start(); }
__attribute__((noinline)) void outer(void) { inner(); }

int main(void)
{
    leaf();   /* before the trigger: never recorded */
    outer();
    return 0;
}
