/* 256-bit vectors passed by value to and from functions whose calls are
 * recorded (tests/e2e/trace_vector_args.sh): a library's through the PLT
 * (vector_args_lib.c), and one of its own, which a patchable-entry build
 * reaches through the entry and return trampolines.  Every lane of each
 * result is known; a vector whose upper half the tracer cut gives a wrong
 * sum.
 *   vector_args [N]      prints "bad B of N"; exits 1 when B > 0 */
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>

__m256d vec_add(__m256d a, __m256d b);
double vec_sum(__m256d a);

__attribute__((noinline)) __m256d own_mul(__m256d a, __m256d b)
{
    return _mm256_mul_pd(a, b);
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 20000, bad = 0;
    for (long i = 0; i < n; i++) {
        __m256d a = _mm256_set_pd((double)i, i + 1.0, i + 2.0, i + 3.0);
        __m256d b = _mm256_set_pd(1, 2, 3, 4);
        /* (4i + 6) + 10, then each lane doubled */
        double s = vec_sum(own_mul(vec_add(a, b), _mm256_set1_pd(2)));
        if (s != 2 * (4.0 * (double)i + 16))
            bad++;
    }
    printf("bad %ld of %ld\n", bad, n);
    return bad != 0;
}
