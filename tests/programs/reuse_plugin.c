/*
 * Built twice, as two plugins that dlopen puts at the same address one
 * after the other (reuse_main.c): -DNAME=alpha and -DNAME=beta give
 * functions of different names at the same offsets.
 */
#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)

static int CAT(NAME, _helper)(int x)
{
    return x * 3 + 1;
}

int CAT(NAME, _entry)(int n)
{
    int s = 0;
    for (int i = 0; i < n; i++)
        s += CAT(NAME, _helper)(i);
    return s;
}
