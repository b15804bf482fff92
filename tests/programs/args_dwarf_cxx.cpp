/* A C++ method's parameters from DWARF (args_dwarf.sh): `this` first, as
 * uftrace shows it, and the tree's name without its parameter list. */
#include <cstdio>

struct Counter {
    int k;
    __attribute__((noinline)) int add(int v, double w);
};

int Counter::add(int v, double w) { return k + v + (int)w; }

namespace ns {
__attribute__((noinline)) long twice(long x) { return 2 * x; }
}

int main()
{
    Counter c{3};
    std::printf("%d %ld\n", c.add(4, 1.0), ns::twice(21));
    return 0;
}
