// A C++ exception thrown through frames that run no exit hook: c_mid
// (C, built without -fexceptions: no cleanup runs there) and relay
// (jump_relay.cpp, built without -finstrument-functions).  See
// tests/e2e/trace_jumps.sh for the tree it must give.
#include <cstdio>
#include <stdexcept>

#define F __attribute__((noinline))

extern "C" void c_mid(int depth);    // jump_c_mid.c
void relay(void (*fn)(int), int n);  // jump_relay.cpp, not instrumented

static volatile int sink;

extern "C" F void thrower(int n)
{
    sink += n;
    throw std::runtime_error("out");
}

F static void after_catch() { sink++; }
F static void after_catch_again() { sink++; }

F static void catcher()
{
    try {
        relay(c_mid, 2);
    } catch (const std::exception &) {
        after_catch();
    }
    after_catch_again();
}

// Caught in the function that threw through: only the hooks of frames
// with cleanups ran.
F static void cleanup_frame()
{
    struct guard { ~guard() { sink++; } } g;
    relay(c_mid, 1);
}

F static void catcher_of_cleanup()
{
    try {
        cleanup_frame();
    } catch (...) {
        after_catch();
    }
}

int main()
{
    catcher();
    catcher_of_cleanup();
    std::printf("sink=%d\n", sink);
    return 0;
}
