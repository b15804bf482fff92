/* A library whose instrumented constructor runs before the tracer's own
 * (tests/e2e/trace_early.sh links it into early_start). */
static volatile int sink;

__attribute__((noinline)) static void lib_leaf(void) { sink++; }
__attribute__((constructor)) static void lib_ctor(void) { lib_leaf(); }

int early_lib_calls(void) { return sink; }
