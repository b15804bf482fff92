/* Frames that never return.  "thread": worker -> inner calls pthread_exit
 * (2 frames never return) while main joins it and returns.  "exit":
 * main -> run -> stop calls _exit(3) (3 frames never return). */
#include <pthread.h>
#include <string.h>
#include <unistd.h>

static volatile int sink;

__attribute__((noinline)) void leaf(void) { sink++; }

__attribute__((noinline)) void inner(void)
{
    leaf();
    pthread_exit(NULL);
}

void *worker(void *p)
{
    leaf();
    inner();
    return p;
}

__attribute__((noinline)) void stop(void)
{
    leaf();
    _exit(3);
}

__attribute__((noinline)) void run(void)
{
    leaf();
    stop();
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "exit") == 0)
        run();
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    pthread_join(t, NULL);
    leaf();
    return 0;
}
