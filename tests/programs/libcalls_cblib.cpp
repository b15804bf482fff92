/* Not instrumented: a library that calls back into the program, so an
 * exception thrown by the callback crosses a library call
 * (tests/e2e/libcalls_cxx.sh). */
extern "C" int cblib_apply(int (*cb)(int), int n)
{
    int s = 0;
    for (int i = 0; i < n; i++)
        s += cb(i);
    return s;
}
