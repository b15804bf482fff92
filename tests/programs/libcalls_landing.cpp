/* An exception thrown by a callback that an uninstrumented library called
 * (cblib_apply, libcalls_cblib.cpp), crossing a frame with a destructor to
 * run before the catch (tests/e2e/libcalls_landing.sh): attempt() ->
 * cblib_apply -> cb; cb throws at its third call; ~Guard runs in attempt's
 * landing pad; main catches.  Twice, so the second round runs with the
 * lazily bound slots resolved. */
#include <cstdio>
#include <stdexcept>

extern "C" int cblib_apply(int (*cb)(int), int n);

static int destroyed, caught;

struct Guard {
    ~Guard();
};

__attribute__((noinline)) Guard::~Guard() { destroyed++; }

__attribute__((noinline)) static int cb(int x)
{
    if (x == 2)
        throw std::runtime_error("two");
    return x;
}

__attribute__((noinline)) static int attempt()
{
    Guard g;
    return cblib_apply(cb, 3);
}

int main()
{
    for (int i = 0; i < 2; i++) {
        try {
            attempt();
        } catch (const std::exception &) {
            caught++;
        }
    }
    std::printf("caught=%d destroyed=%d\n", caught, destroyed);
}
