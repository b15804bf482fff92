// C++ exceptions through hooked calls whose return is caught on its way
// out (tests/e2e/args_site_returns.sh): 10 rounds of main -> middle ->
// thrower; thrower throws in odd rounds, caught in main, and middle's
// guard calls leaf as the exception passes.  Even rounds return values:
// thrower(i) = i, middle(i) = i + 1, leaf() = 7 each time.  Prints the
// sum of the values middle returned and how many throws were caught.
#include <cstdio>
#include <stdexcept>

static volatile int sink;

__attribute__((noinline)) int leaf()
{
    sink++;
    return 7;
}

__attribute__((noinline)) int thrower(int i)
{
    sink += leaf();
    if (i % 2)
        throw std::runtime_error("odd");
    return i;
}

__attribute__((noinline)) int middle(int i)
{
    struct Guard {
        ~Guard() { sink += leaf(); }
    } g;
    return thrower(i) + 1;
}

int main()
{
    int sum = 0, caught = 0;
    for (int i = 0; i < 10; i++) {
        try {
            sum += middle(i);
        } catch (const std::exception &) {
            caught++;
        }
    }
    std::printf("%d %d\n", sum, caught);
    return 0;
}
