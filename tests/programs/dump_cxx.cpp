// For the dump e2e tests: C++ names (namespace, template, class member)
// must come out demangled.  Call counts: shapes::area<int> 2,
// shapes::area<double> 1, shapes::Box::volume 1.
#include <cstdio>

namespace shapes {
template <typename T> T area(T w, T h)
{
    return w * h;
}

struct Box {
    int w, h, d;
    int volume() const;
};

int Box::volume() const
{
    return area<int>(w, h) * d;
}
} // namespace shapes

int main()
{
    shapes::Box b{2, 3, 4};
    int v = b.volume() + shapes::area<int>(1, 1);
    double a = shapes::area<double>(1.5, 2.0);
    std::printf("%d %.1f\n", v, a);
    return 0;
}
