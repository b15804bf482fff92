// Built without -finstrument-functions (tests/e2e/trace_jumps.sh): a frame
// the tracer never sees, between the thrower and the catcher.
__attribute__((noinline)) void relay(void (*fn)(int), int n)
{
    fn(n);
    fn(n + 100);  // never reached: the first call throws
}
