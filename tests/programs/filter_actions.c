/* A fixed call tree for the filter's uftrace-style triggers
 * (trace_filter_actions.sh): every rule's expected tree follows from it.
 *   main { outer { inner { leaf } leaf }  skip { inner { leaf } }
 *          path { target { leaf } }  nopath { leaf }  stop { leaf }
 *          after }                                                     */
void leaf(void);
void inner(void);
void outer(void);
void skip(void);
void target(void);
void path(void);
void nopath(void);
void stop(void);
void after(void);

__attribute__((noinline)) void leaf(void) { __asm__ volatile(""); }
__attribute__((noinline)) void inner(void) { leaf(); }
__attribute__((noinline)) void outer(void) { inner(); leaf(); }
__attribute__((noinline)) void skip(void) { inner(); }
__attribute__((noinline)) void target(void) { leaf(); }
__attribute__((noinline)) void path(void) { target(); }
__attribute__((noinline)) void nopath(void) { leaf(); }
__attribute__((noinline)) void stop(void) { leaf(); }
__attribute__((noinline)) void after(void) { __asm__ volatile(""); }

int main(void)
{
    outer();
    skip();
    path();
    nopath();
    stop();
    after();
    return 0;
}
