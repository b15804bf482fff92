/* Library calls with arguments and return values known by construction,
 * for CALLTRACE_ARGS (tests/e2e/args_libcalls.sh): ints of each sign,
 * strings (one longer than its rule's maximum, one NULL, one at a bad
 * address that access() refuses with EFAULT), a char, floats, stack
 * arguments.  The values go through volatile variables so that no
 * optimisation level folds the calls away. */
#include <stdio.h>
#include <unistd.h>

int lib_add(int a, long b);
const char *lib_greet(const char *who, char mark);
double lib_scale(double x, float y, int k);
long lib_many(int a1, int a2, int a3, int a4, int a5, int a6, int a7,
              long a8);
unsigned lib_mask(unsigned short v);
int lib_len(const char *s);

static volatile int minus_one = -1;
static volatile long big = 100000000000L;
static const char *volatile bad = (const char *)16;
static const char *volatile none;

int main(void)
{
    char text[] = "a \"quoted\"\tline that is longer than sixteen bytes";
    int sum = lib_add(minus_one, 2) + lib_add(40, big > 0 ? 2 : 0);
    const char *g = lib_greet("world", '!');
    double d = lib_scale(1.5, 2.0f, -2);
    long m = lib_many(1, 2, 3, 4, 5, 6, 7, big);
    unsigned k = lib_mask(0x1234);
    int r = access(bad, F_OK);
    int z = access(none, F_OK);
    int n = lib_len(text);
    printf("%d %s %.1f %ld %x %d %d %d\n", sum, g, d, m, k, r, z, n);
    return 0;
}
