/* For the dump e2e tests: the main thread and two workers, started one
 * after the other.  worker_fn runs 3 times in each worker, main_work twice
 * in the main thread. */
#include <pthread.h>
#include <stdio.h>

static volatile int sink;

void worker_fn(int i)
{
    sink += i;
}

void *worker(void *arg)
{
    for (int i = 0; i < 3; i++)
        worker_fn(i + (int)(long)arg);
    return NULL;
}

void main_work(void)
{
    sink++;
}

int main(void)
{
    main_work();
    for (long k = 0; k < 2; k++) {
        pthread_t t;
        pthread_create(&t, NULL, worker, (void *)k);
        pthread_join(t, NULL);
    }
    main_work();
    printf("%d\n", sink);
    return 0;
}
