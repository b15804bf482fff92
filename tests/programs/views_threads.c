/* Two threads take turns (semaphores): worker_a runs step_a, then
 * worker_b runs step_b, three times each, so the time order of their calls
 * is known: step_a step_b step_a step_b step_a step_b.  step_a calls
 * leaf once, step_b twice; main calls leaf once after joining. */
#include <pthread.h>
#include <semaphore.h>

static volatile int sink;
static sem_t turn_a, turn_b;

__attribute__((noinline)) void leaf(int i) { sink += i; }
__attribute__((noinline)) void step_a(void) { leaf(1); }
__attribute__((noinline)) void step_b(void) { leaf(2); leaf(3); }

void *worker_a(void *p)
{
    for (int i = 0; i < 3; i++) {
        sem_wait(&turn_a);
        step_a();
        sem_post(&turn_b);
    }
    return p;
}

void *worker_b(void *p)
{
    for (int i = 0; i < 3; i++) {
        sem_wait(&turn_b);
        step_b();
        sem_post(&turn_a);
    }
    return p;
}

int main(void)
{
    pthread_t a, b;
    sem_init(&turn_a, 0, 0);
    sem_init(&turn_b, 0, 0);
    pthread_create(&a, NULL, worker_a, NULL);
    pthread_create(&b, NULL, worker_b, NULL);
    sem_post(&turn_a);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    leaf(0);
    return 0;
}
