/* Every way a process ends.  Each mode calls step() STEPS times first;
 * the frames still open at the end are main and the function named.
 *   quick_exit  at_quick_exit(on_quick), then quick_exit(3) from in_quick
 *   thread_exit a worker calls exit(0) while main waits in waiter()
 *   thread__exit a worker calls _exit(6) while main waits in waiter()
 *   signal_exit exit(4) from an instrumented SIGUSR1 handler (on_signal)
 *   atexit_exit an atexit handler (on_atexit) calls exit(5)
 *   main_pthread_exit main calls pthread_exit; the worker returns 0
 *   thread_abort a worker calls abort while main waits in waiter()
 *   thread_exec  a worker execs argv[2] (argument "exec-done")  */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define STEPS 10
static volatile long sink;
static const char *mode, *exec_path;

__attribute__((noinline)) void step(void) { sink++; }
__attribute__((noinline)) void on_quick(void) { step(); }
__attribute__((noinline)) void in_quick(void) { quick_exit(3); }
__attribute__((noinline)) void on_signal(int sig) { (void)sig; exit(4); }
__attribute__((noinline)) void on_atexit(void) { exit(5); }

__attribute__((noinline)) void *worker(void *arg)
{
    (void)arg;
    usleep(20000);
    if (strcmp(mode, "thread_exit") == 0)
        exit(0);
    if (strcmp(mode, "thread__exit") == 0)
        _exit(6);
    if (strcmp(mode, "thread_abort") == 0)
        abort();
    if (strcmp(mode, "thread_exec") == 0) {
        execl(exec_path, exec_path, "exec-done", (char *)NULL);
        _exit(9);
    }
    return NULL;
}

__attribute__((noinline)) void waiter(pthread_t t) { pthread_join(t, NULL); }

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "exec-done") == 0)
        return 7;
    mode = argc > 1 ? argv[1] : "";
    exec_path = argc > 2 ? argv[2] : "";
    for (int i = 0; i < STEPS; i++)
        step();
    pthread_t t;
    if (strcmp(mode, "quick_exit") == 0) {
        at_quick_exit(on_quick);
        in_quick();
    } else if (strcmp(mode, "signal_exit") == 0) {
        signal(SIGUSR1, on_signal);
        raise(SIGUSR1);
    } else if (strcmp(mode, "atexit_exit") == 0) {
        atexit(on_atexit);
        return 1;
    } else if (strcmp(mode, "main_pthread_exit") == 0) {
        pthread_create(&t, NULL, worker, NULL);
        pthread_exit(NULL);
    } else {
        pthread_create(&t, NULL, worker, NULL);
        waiter(t);
    }
    return 1;
}
