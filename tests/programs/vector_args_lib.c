/* A library whose functions take and return 256-bit vectors by value, in
 * %ymm registers (tests/e2e/trace_vector_args.sh): their upper halves
 * travel through the tracer's library-call stub and return trampoline. */
#include <immintrin.h>

__m256d vec_add(__m256d a, __m256d b)
{
    return _mm256_add_pd(a, b);
}

double vec_sum(__m256d a)
{
    double d[4];
    _mm256_storeu_pd(d, a);
    return d[0] + d[1] + d[2] + d[3];
}
