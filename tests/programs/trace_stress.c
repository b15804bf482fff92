/* The tracer under stress: THREADS threads each run ROUNDS rounds of
 *   - create a short thread that calls leaf() SHORT_CALLS times, join it;
 *   - send itself SIGUSR1 (instrumented handler on_sync calls leaf());
 *   - every FORK_EVERY rounds fork a child that calls leaf() CHILD_CALLS
 *     times and exits (the parent waits);
 * while one more thread sends SIGUSR2 to random workers (instrumented
 * handler on_async, which may land inside the tracer: its events are then
 * dropped and counted as lost).  Prints the counts it made; exit status 3.
 *   trace_stress THREADS ROUNDS */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define SHORT_CALLS 50
#define FORK_EVERY 8
#define CHILD_CALLS 100

static _Thread_local volatile long sink;  /* per thread: no race of ours */
static atomic_long sync_handled, async_handled;
static atomic_int stop, active;
static int rounds;
static pthread_t *workers;
static int nworkers;

__attribute__((noinline)) void leaf(void) { sink++; }

__attribute__((noinline)) void on_sync(int sig)
{
    (void)sig;
    leaf();
    atomic_fetch_add(&sync_handled, 1);
}

__attribute__((noinline)) void on_async(int sig)
{
    (void)sig;
    atomic_fetch_add(&async_handled, 1);
}

__attribute__((noinline)) void *short_thread(void *arg)
{
    (void)arg;
    for (int i = 0; i < SHORT_CALLS; i++)
        leaf();
    return NULL;
}

__attribute__((noinline)) void child_work(void)
{
    for (int i = 0; i < CHILD_CALLS; i++)
        leaf();
}

__attribute__((noinline)) void *worker(void *arg)
{
    (void)arg;
    for (int r = 0; r < rounds; r++) {
        pthread_t t;
        if (pthread_create(&t, NULL, short_thread, NULL) == 0)
            pthread_join(t, NULL);
        pthread_kill(pthread_self(), SIGUSR1);
        if (r % FORK_EVERY == FORK_EVERY - 1) {
            pid_t pid = fork();
            if (pid == 0) {
                child_work();
                exit(0);
            }
            int st;
            if (pid < 0 || waitpid(pid, &st, 0) != pid || st != 0)
                abort();
        }
    }
    /* Stay alive until the signaller is done: it must never signal a
     * thread that has ended. */
    atomic_fetch_sub(&active, 1);
    while (!atomic_load(&stop))
        usleep(1000);
    return NULL;
}

__attribute__((noinline)) void *signaller(void *arg)
{
    (void)arg;
    unsigned seed = 1;
    while (!atomic_load(&stop)) {
        pthread_kill(workers[rand_r(&seed) % (unsigned)nworkers], SIGUSR2);
        usleep(200);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    nworkers = argc > 1 ? atoi(argv[1]) : 64;
    rounds = argc > 2 ? atoi(argv[2]) : 16;
    struct sigaction sa = {0};
    sa.sa_flags = SA_RESTART;
    sa.sa_handler = on_sync;
    sigaction(SIGUSR1, &sa, NULL);
    sa.sa_handler = on_async;
    sigaction(SIGUSR2, &sa, NULL);
    workers = calloc((size_t)nworkers, sizeof *workers);
    /* SIGUSR2 only reaches workers: blocked here, unblocked in them. */
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGUSR2);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    atomic_store(&active, nworkers);
    for (int i = 0; i < nworkers; i++) {
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        pthread_create(&workers[i], NULL, worker, NULL);
        pthread_sigmask(SIG_BLOCK, &block, NULL);
    }
    pthread_t sig;
    pthread_create(&sig, NULL, signaller, NULL);
    while (atomic_load(&active) > 0)
        usleep(1000);
    atomic_store(&stop, 1);
    pthread_join(sig, NULL);
    for (int i = 0; i < nworkers; i++)
        pthread_join(workers[i], NULL);
    long forks = (long)nworkers * (rounds / FORK_EVERY);
    printf("threads=%d short_threads=%ld leaf_parent=%ld leaf_children=%ld "
           "sync=%ld forks=%ld\n", nworkers, (long)nworkers * rounds,
           (long)nworkers * rounds * (SHORT_CALLS + 1),
           forks * CHILD_CALLS, (long)atomic_load(&sync_handled), forks);
    fprintf(stderr, "async=%ld\n", (long)atomic_load(&async_handled));
    return 3;
}
