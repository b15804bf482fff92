/* One stage of the start-up bench's pipeline: copies stdin to stdout. */
#include <unistd.h>

static int pass(void)
{
    char buf[4096];
    ssize_t n;
    while ((n = read(0, buf, sizeof buf)) > 0)
        if (write(1, buf, (size_t)n) != n)
            return 1;
    return n < 0;
}

int main(void)
{
    return pass();
}
