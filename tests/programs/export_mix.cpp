// For the export tests: what a viewer must survive.  C++ names with
// namespaces, templates and operators; two threads (worker calls
// ns::Grid<int>::step 50 times, main 30 times); user events whose text
// holds quotes, a backslash, control characters and bytes that are not
// UTF-8; and an exit() from three frames deep, so main, finish and
// leave never return.
#include <cstdio>
#include <cstdlib>
#include <pthread.h>

#include "calltrace.h"

namespace ns {
template <typename T> struct Grid {
    T cells[8];
    __attribute__((noinline)) T step(int i)
    {
        cells[i & 7] += (T)i;
        return cells[(i + 1) & 7];
    }
    __attribute__((noinline)) bool operator<(const Grid &o) const
    {
        return cells[0] < o.cells[0];
    }
};
} // namespace ns

static ns::Grid<int> g1, g2;

__attribute__((noinline)) static void *worker(void *)
{
    ns::Grid<int> local{};
    for (int i = 0; i < 50; i++)
        local.step(i);
    return nullptr;
}

__attribute__((noinline)) static void leave(int code)
{
    std::fflush(stdout);
    std::exit(code);
}

__attribute__((noinline)) static void finish(void)
{
    calltrace_event("quote \" backslash \\ tab \t newline \n bell \a end");
    calltrace_event("not utf-8: \xff\xfe \xc3( \xe2\x82 done");
    leave(0);
}

int main()
{
    pthread_t t;
    pthread_create(&t, nullptr, worker, nullptr);
    for (int i = 0; i < 30; i++)
        g1.step(i);
    bool less = g1 < g2;
    pthread_join(t, nullptr);
    calltrace_event("caf\xc3\xa9 \xe2\x82\xac ok");
    std::printf("%d\n", less ? 1 : 0);
    finish();
    return 1;
}
