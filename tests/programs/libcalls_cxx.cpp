/* C++ library calls known by construction (tests/e2e/libcalls_cxx.sh):
 *   make_boxes(): operator new 4 times, operator delete 4 times
 *   attempt() x 2: cblib_apply calls cb(0), cb(1) (a getpid each), then
 *                  cb(2) throws; attempt catches it above the library
 *   after_catch(): 1 getppid, right after the second catch
 * Output: one line, the same with and without the tracer. */
#include <cstdio>
#include <stdexcept>
#include <unistd.h>

extern "C" int cblib_apply(int (*cb)(int), int n);

struct Box {
    int v;
};

static int make_boxes()
{
    Box *b[4];
    for (int i = 0; i < 4; i++)
        b[i] = new Box{i};
    int s = 0;
    for (int i = 0; i < 4; i++) {
        s += b[i]->v;
        delete b[i];
    }
    return s;
}

static int cb(int i)
{
    if (i == 2)
        throw std::runtime_error("two");
    return getpid() > 0;
}

static int attempt()
{
    try {
        return cblib_apply(cb, 5);
    } catch (const std::exception &e) {
        return 10;
    }
}

static int after_catch()
{
    return getppid() > 0;
}

int main()
{
    int r = make_boxes();
    r += attempt();
    r += attempt();
    r += after_catch();
    std::printf("r=%d\n", r);
    return 0;
}
