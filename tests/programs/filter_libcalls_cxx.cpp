/* C++ library calls for tests/e2e/trace_filter_libcalls.sh: make_one
 * calls operator new and operator delete once each, six times over.
 * Built with -O0, so the pair is not elided. */
__attribute__((noinline)) int make_one(int i)
{
    int *p = new int(i);
    int r = *p;
    delete p;
    return r;
}

int main()
{
    int s = 0;
    for (int i = 0; i < 6; i++)
        s += make_one(i);
    return s == 15 ? 0 : 1;
}
