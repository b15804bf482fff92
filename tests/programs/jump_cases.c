/* Jumps whose true call tree is known by construction (see
 * tests/e2e/trace_jumps.sh for the tree each case must give).  Every
 * function is noinline so each call is a frame of its own. */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define F __attribute__((noinline))

static jmp_buf jb, jb_outer, jb_inner;
static sigjmp_buf sjb;
static volatile int sink;

/* 1. longjmp from depth 4, then calls right after the landing. */
F static void d4(void) { longjmp(jb, 1); }
F static void d3(void) { d4(); sink++; }
F static void d2(void) { d3(); sink++; }
F static void d1(void) { d2(); sink++; }
F static void landed(void) { sink++; }
F static void landed_again(void) { sink++; }
F static void from_depth(void)
{
    if (setjmp(jb) == 0)
        d1();
    landed();
    landed_again();
}

/* 2. A small frame is left, then a sibling with a larger frame is called:
 * its stack pointer is below the left frame's, yet it is no child of it. */
F static void small(void) { _longjmp(jb, 1); }
F static void big(void)
{
    volatile char buf[4096];
    memset((char *)buf, 1, sizeof buf);
    sink += buf[100];
}
F static void sibling(void)
{
    if (_setjmp(jb) == 0)
        small();
    big();
}

/* 3. Nested setjmp: the inner jump lands in the middle function, the
 * outer one in the outer function. */
F static void jump_inner(void) { longjmp(jb_inner, 1); }
F static void jump_outer(void) { longjmp(jb_outer, 1); }
F static void after_inner(void) { jump_outer(); }
F static void after_outer(void) { sink++; }
F static void nest_mid(void)
{
    if (setjmp(jb_inner) == 0)
        jump_inner();
    after_inner();
}
F static void nested(void)
{
    if (setjmp(jb_outer) == 0)
        nest_mid();
    after_outer();
}

/* 4. siglongjmp out of a signal handler, on the thread's stack and on an
 * alternate signal stack. */
F static void handler_inner(void) { siglongjmp(sjb, 1); }
F static void on_signal(int sig) { (void)sig; handler_inner(); }
F static void raiser(void) { raise(SIGUSR1); sink++; }
F static void after_signal(void) { sink++; }
F static void from_handler(void)
{
    if (sigsetjmp(sjb, 1) == 0)
        raiser();
    after_signal();
}

static char alt[1 << 16];

/* 5. In a thread whose stack lies below its alternate signal stack: a
 * handler's frames there have stack pointers above the frames they
 * interrupt.  First a handler that returns (nothing is left), then one
 * that jumps. */
F static void handler_work(void) { sink++; }
F static void on_signal_return(int sig) { (void)sig; handler_work(); }
F static void after_return(void) { sink++; }
F static void returning(void)
{
    raiser();
    after_return();
}

#define ALT_SIZE (1 << 16)
#define STACK_SIZE (1 << 20)

static void *high_alt_thread(void *arg)
{
    stack_t ss = {.ss_sp = arg, .ss_size = ALT_SIZE};
    sigaltstack(&ss, NULL);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_flags = SA_ONSTACK;
    sa.sa_handler = on_signal_return;
    sigaction(SIGUSR1, &sa, NULL);
    returning();
    sa.sa_handler = on_signal;
    sigaction(SIGUSR1, &sa, NULL);
    from_handler();
    return NULL;
}

/* One mapping: the thread's stack at its bottom, the alternate signal
 * stack at its top, a page apart. */
static void run_high_alt_thread(void)
{
    char *base = mmap(NULL, STACK_SIZE + 4096 + ALT_SIZE,
                      PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                      -1, 0);
    if (base == MAP_FAILED) {
        perror("mmap");
        return;
    }
    char *stack = base, *alt_hi = base + STACK_SIZE + 4096;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstack(&attr, stack, STACK_SIZE);
    pthread_t th;
    pthread_create(&th, &attr, high_alt_thread, alt_hi);
    pthread_join(th, NULL);
}

int main(void)
{
    from_depth();
    sibling();
    nested();
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGUSR1, &sa, NULL);
    from_handler();
    stack_t ss = {.ss_sp = alt, .ss_size = sizeof alt};
    sigaltstack(&ss, NULL);
    sa.sa_flags = SA_ONSTACK;
    sigaction(SIGUSR1, &sa, NULL);
    from_handler();
    run_high_alt_thread();
    printf("sink=%d\n", sink);
    return 0;
}
