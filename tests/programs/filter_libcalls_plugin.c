/* The dlopened library of tests/programs/filter_libcalls.c: plugin_pids
 * calls getpid twice through this library's own PLT. */
#include <unistd.h>

volatile long plugin_sink;

__attribute__((noinline)) void plugin_pids(void)
{
    plugin_sink += getpid();
    plugin_sink += getpid();
}
