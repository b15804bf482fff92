/* A dlopened library for tests/e2e/trace_filter.sh: plugin_work calls
 * plugin_inner twice. */
#define NOINLINE __attribute__((noinline))
volatile int plugin_sink;
NOINLINE void plugin_inner(void) { plugin_sink++; }
NOINLINE void plugin_work(void)
{
    plugin_inner();
    plugin_inner();
}
