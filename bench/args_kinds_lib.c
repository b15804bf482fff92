/* The library of bench/args_kinds.sh: one cheap function per kind of
 * value a rule may keep, not instrumented, called through the PLT. */
#include "args_kinds_lib.h"

int k_int(int x) { return x * 3 + 1; }
long k_long(long x) { return x * 3 + 1; }
int k_char(char c) { return c + 1; }
void *k_ptr(void *p) { return (char *)p + 1; }
double k_dbl(double d) { return d * 0.5 + 1.0; }
int k_str(const char *s) { return s[0]; }
int k_four(int a, int b, int c, int d) { return a + b + c + d; }
