/* A shared library built with patchable entries (tests/e2e/patch_libs.sh):
 * linked at start as libplink.so, and dlopen'ed as libpopen.so with its
 * names changed by -Dlib_entry=dl_entry -Dlib_leaf=dl_leaf. */
__attribute__((noinline)) int lib_leaf(int x)
{
    return x + 1;
}

int lib_entry(int n)
{
    int t = 0;
    for (int i = 0; i < n; i++)
        t += lib_leaf(i);
    return t;
}
