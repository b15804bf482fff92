// C++ names for tests/e2e/trace_filter_cxx.sh: ns::Parser::read 4 (each
// calls ns::Parser::skip twice and tokenize<int> once), ns::helper 3,
// tokenize<int> 4 + 1 from main.
#define NOINLINE __attribute__((noinline))

volatile int sink;

template <typename T> NOINLINE void tokenize(T v) { sink += (int)v; }

namespace ns {
struct Parser {
    NOINLINE void skip() { sink++; }
    NOINLINE void read(int n)
    {
        skip();
        skip();
        tokenize<int>(n);
    }
};
NOINLINE void helper() { sink--; }
} // namespace ns

int main()
{
    ns::Parser p;
    for (int i = 0; i < 4; i++)
        p.read(i);
    for (int i = 0; i < 3; i++)
        ns::helper();
    tokenize<int>(7);
    return 0;
}
