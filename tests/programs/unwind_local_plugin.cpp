/* A C++ plugin that a C program loads with dlopen(RTLD_LOCAL): libstdc++
 * and libgcc_s come in a scope of their own, which dlsym(RTLD_NEXT) from
 * the tracer does not search.  Exceptions thrown through a frame with a
 * destructor to run, and caught in the plugin. */
#include <stdexcept>

static int destroyed;

struct Guard {
    ~Guard() { destroyed++; }
};

__attribute__((noinline)) static int thrower(int x)
{
    if (x % 2)
        throw std::runtime_error("odd");
    return x;
}

__attribute__((noinline)) static int guarded(int x)
{
    Guard g;
    return thrower(x);
}

extern "C" int plugin(int n)
{
    int caught = 0;
    for (int i = 0; i < n; i++) {
        try {
            guarded(i);
        } catch (const std::exception &) {
            caught++;
        }
    }
    return caught * 1000 + destroyed;
}
