/* C, instrumented, built without -fexceptions: an exception passes
 * through these frames (gcc's default .eh_frame lets it) but no cleanup
 * runs, so their exit hooks never do. */
extern void thrower(int n);

__attribute__((noinline)) static void c_leaf(int n)
{
    thrower(n);
}

__attribute__((noinline)) void c_mid(int depth)
{
    c_leaf(depth);
}
