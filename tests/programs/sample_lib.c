/* The shared library of sample_7030: its function is named in samples only
 * through the library's own symbols and load address. */
static volatile unsigned long lib_sink;

__attribute__((noinline)) void lib_spin(unsigned long n)
{
    unsigned long x = lib_sink;
    for (unsigned long i = 0; i < n; i++)
        x = x * 6364136223846793005ul + 1442695040888963407ul;
    lib_sink = x;
}
