/* A thread cancelled while blocked in read, under two C++ objects whose
 * destructors the cancellation's unwinding runs (tests/e2e/
 * libcalls_cancel.sh): worker() -> blocked() -> read.  Output: one line,
 * the same with and without the tracer (both destructors ran). */
#include <pthread.h>
#include <unistd.h>
#include <cstdio>
static int fds[2];
static volatile int dtors;
struct guard { ~guard() { dtors++; } };
static void blocked() { guard g; char c; if (read(fds[0], &c, 1) >= 0) c = 0; }
static void *worker(void *) { guard g; blocked(); return nullptr; }
int main() {
    pipe(fds);
    pthread_t th; void *ret;
    pthread_create(&th, nullptr, worker, nullptr);
    usleep(100000);
    pthread_cancel(th);
    pthread_join(th, &ret);
    std::printf("canceled=%d dtors=%d\n", ret == PTHREAD_CANCELED, dtors);
}
