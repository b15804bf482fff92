/* The library function of bench/libcalls.sh: cheap, not instrumented,
 * called through the PLT. */
int lib_step(int x);
int lib_step(int x)
{
    return x * 3 + 1;
}
