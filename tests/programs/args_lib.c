/* A library whose calls tests/programs/args_main.c makes through the PLT,
 * each argument and return value known by construction
 * (tests/e2e/args_libcalls.sh). */
int lib_add(int a, long b)
{
    return (int)(a + b);
}

const char *lib_greet(const char *who, char mark)
{
    return mark == '!' ? who : "?";
}

double lib_scale(double x, float y, int k)
{
    return x * y * k;
}

/* Eight integer arguments: the last two on the stack. */
long lib_many(int a1, int a2, int a3, int a4, int a5, int a6, int a7, long a8)
{
    return a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8;
}

unsigned lib_mask(unsigned short v)
{
    return v & 0xff0u;
}

int lib_len(const char *s)
{
    int n = 0;
    while (s[n])
        n++;
    return n;
}
