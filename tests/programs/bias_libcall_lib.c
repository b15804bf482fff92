/* bias_libcall_lib.c: a library function that costs about a ns, built
 * without instrumentation into a shared library (tests/e2e/bias_libcall.sh):
 * every ns its calls show beyond that is the tracer's. */
int cheap(int x)
{
    return x + 1;
}
