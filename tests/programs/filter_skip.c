/*
 * Calls left out by rules that only exclude (tests/e2e/trace_filter_skip.sh):
 * every count known by construction.  The excluded functions are skip_*:
 * a leaf called from kept code, a recursion 5000 deep with a kept call at
 * its bottom, two excluded calls on top of 2001 kept frames, a recursion
 * left by longjmp, one that raises a signal whose
 * instrumented handler calls both kinds, a storm of timer signals whose
 * handler calls both while the program does too, four threads, and one
 * thread still inside a kept function when the process exits.  It prints
 * the counts the signals make uncertain.
 */
#include <pthread.h>
#include <semaphore.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <sys/time.h>
#include <unistd.h>

static int sink, kept_n, mid_n, skip_n, alrm_n;
static jmp_buf jb;
static sem_t ready;

__attribute__((noinline)) void kept_leaf(void)
{
    __atomic_fetch_add(&kept_n, 1, __ATOMIC_RELAXED);
}

__attribute__((noinline)) void skip_leaf(void)
{
    __atomic_fetch_add(&skip_n, 1, __ATOMIC_RELAXED);
}

__attribute__((noinline)) void skip_rec(int n)
{
    if (n == 0)
        kept_leaf();
    else
        skip_rec(n - 1);
    __atomic_fetch_add(&sink, 1, __ATOMIC_RELAXED);
}

__attribute__((noinline)) void skip_jump(int n)
{
    if (n > 0)
        skip_jump(n - 1);
    else
        longjmp(jb, 1);
    __atomic_fetch_add(&sink, 1, __ATOMIC_RELAXED);
}

/* Kept frames deeper than the hooks' own shadow stack, with excluded
 * calls on top. */
__attribute__((noinline)) void kept_deep(int n)
{
    if (n > 0) {
        kept_deep(n - 1);
    } else {
        skip_leaf();
        skip_leaf();
    }
    __atomic_fetch_add(&sink, 1, __ATOMIC_RELAXED);
}

__attribute__((noinline)) void kept_mid(void)
{
    __atomic_fetch_add(&mid_n, 1, __ATOMIC_RELAXED);
    skip_leaf();
    kept_leaf();
    skip_leaf();
}

__attribute__((noinline)) void kept_jumper(void)
{
    if (!setjmp(jb))
        skip_jump(50);
    kept_leaf();
}

static void on_usr1(int sig)
{
    (void)sig;
    skip_leaf();
    kept_leaf();
}

static void on_alrm(int sig)
{
    (void)sig;
    alrm_n++;
    skip_leaf();
    kept_leaf();
}

__attribute__((noinline)) void skip_raise(void)
{
    raise(SIGUSR1);
    __atomic_fetch_add(&sink, 1, __ATOMIC_RELAXED);
}

__attribute__((noinline)) void kept_block(void)
{
    sem_post(&ready);
    for (;;)  /* no call: its frames stay as they are until the exit */
        __asm__ volatile("pause");
}

static void *worker(void *arg)
{
    (void)arg;
    for (int i = 0; i < 1000; i++)
        kept_mid();
    return NULL;
}

static void *lingerer(void *arg)
{
    (void)arg;
    for (int i = 0; i < 300; i++)
        skip_leaf();
    kept_block();
    return NULL;
}

int main(void)
{
    signal(SIGUSR1, on_usr1);
    sem_init(&ready, 0, 0);
    for (int i = 0; i < 1000; i++)
        kept_mid();
    skip_rec(5000);
    kept_deep(2000);
    for (int i = 0; i < 10; i++)
        kept_jumper();
    for (int i = 0; i < 20; i++)
        skip_raise();
    signal(SIGALRM, on_alrm);
    struct itimerval on = {{0, 50}, {0, 50}}, off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_REAL, &on, NULL);
    for (int i = 0; i < 200000; i++)
        kept_mid();
    setitimer(ITIMER_REAL, &off, NULL);
    pthread_t w[4], l;
    for (int i = 0; i < 4; i++)
        pthread_create(&w[i], NULL, worker, NULL);
    for (int i = 0; i < 4; i++)
        pthread_join(w[i], NULL);
    pthread_create(&l, NULL, lingerer, NULL);
    sem_wait(&ready);
    printf("sink=%d kept_leaf=%d kept_mid=%d on_alrm=%d skip_leaf=%d\n",
           sink, kept_n, mid_n, alrm_n, skip_n);
    return 0;
}
