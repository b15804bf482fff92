/* A coroutine switch in a shared library (tests/e2e/trace_coroutines.sh,
 * with coro_ucontext.c built -DCORO_LIB): the call is open in the context
 * that makes it until that context runs again. */
#include <ucontext.h>

void coro_lib_switch(ucontext_t *from, ucontext_t *to)
{
    swapcontext(from, to);
}
