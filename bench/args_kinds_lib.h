/* The functions of bench/args_kinds_lib.c, one per kind of value a
 * CALLTRACE_ARGS rule keeps, which bench/args_kinds_prog.c calls. */
#ifndef ARGS_KINDS_LIB_H
#define ARGS_KINDS_LIB_H

int k_int(int x);
long k_long(long x);
int k_char(char c);
void *k_ptr(void *p);
double k_dbl(double d);
int k_str(const char *s);
int k_four(int a, int b, int c, int d);

#endif
