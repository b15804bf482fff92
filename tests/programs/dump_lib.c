/* A shared library for the dump e2e tests: one exported function that
 * calls a static one, so names resolve inside a -fPIC object. */
static int lib_square(int x)
{
    return x * x;
}

int lib_entry(int n)
{
    int s = 0;
    for (int i = 0; i < n; i++)
        s += lib_square(i);
    return s;
}
