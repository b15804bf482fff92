// C++ exceptions through functions of the patchable-entry mode
// (tests/e2e/patch_entries.sh): 10 rounds of main -> middle -> thrower,
// thrower throws in odd rounds (caught in main), middle's guard runs
// leaf as it unwinds.  leaf: 10 (thrower) + 10 (guards) + 5 (middle
// after an even round) + 1 (main) = 26; middle, thrower: 10 each.
#include <cstdio>
#include <stdexcept>

static volatile int sink;

__attribute__((noinline)) void leaf() { sink++; }

__attribute__((noinline)) void thrower(int i)
{
    leaf();
    if (i % 2)
        throw std::runtime_error("odd");
}

__attribute__((noinline)) void middle(int i)
{
    struct Guard {
        ~Guard() { leaf(); }
    } g;
    thrower(i);
    leaf();
}

int main()
{
    int caught = 0;
    for (int i = 0; i < 10; i++) {
        try {
            middle(i);
        } catch (const std::exception &) {
            caught++;
        }
    }
    leaf();
    std::printf("%d %d\n", caught, sink);
    return 0;
}
