/* The second file of diff_work.c's program: a static helper of the same
 * name as that file's, so that the diff tells them apart by file. */
#define NOINLINE __attribute__((noinline))

NOINLINE static int helper(int x) { return x + 5; }

NOINLINE int helper_b_calls(int n)
{
    int s = 0;
    for (int i = 0; i < n; i++)
        s += helper(i);
    return s;
}
