/* C++ classes passed by value (args_struct.sh): one that is not trivial
 * for calls (a destructor, a copy constructor of its own, a member with
 * one) goes by an invisible reference, one integer register; an empty
 * one takes nothing; a trivial one its eightbytes' registers.  A class
 * template is shown by its name alone (`Box`), as uftrace shows one. */
#include <cstdio>

struct Owned {
    long v;
    ~Owned() { v = 0; }
};
struct Copied {
    long v;
    Copied(long x) : v(x) {}
    Copied(const Copied &o) : v(o.v) {}
};
struct Holder {
    Owned o;  /* not trivial through its member */
};
struct Tag {};
template <typename T> struct Box {
    T a, b;
};

volatile long sink;

__attribute__((noinline)) long c_owned(Owned o, int after) { return o.v + after; }
__attribute__((noinline)) long c_copied(int before, Copied c, int after)
{
    return before + c.v + after;
}
__attribute__((noinline)) long c_holder(Holder h, int after) { return h.o.v + after; }
__attribute__((noinline)) int c_tag(Tag, int after)
{
    sink++;
    return after;
}
__attribute__((noinline)) long c_box(Box<long> b, int after) { return b.a + b.b + after; }
/* returned through the caller's pointer: the arguments move one on */
__attribute__((noinline)) Copied c_make(int x) { return Copied(x); }

int main()
{
    Owned o{1};
    Copied c(2);
    Holder h{{3}};
    Box<long> b{4, 5};
    sink += c_owned(o, 11);
    sink += c_copied(13, c, 15);
    sink += c_holder(h, 17);
    sink += c_tag(Tag(), 19);
    sink += c_box(b, 21);
    sink += c_make(23).v;
    std::puts("done");
    return 0;
}
