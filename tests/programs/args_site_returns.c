/* Return values caught on their way out of hooked calls
 * (tests/e2e/args_site_returns.sh): each function's value is known by
 * construction, and every way a return can go elsewhere is here: a
 * recursion, a longjmp over frames whose return was taken, a tail call,
 * a signal handler's call inside one, threads, a coroutine that
 * switches away from inside one and comes back, and a function inlined
 * into another, whose hooks name it from a place its rule does not
 * describe.  Prints one line the
 * traced run must print the same. */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <ucontext.h>

#if defined(__clang__)
#define KEEP __attribute__((noinline, used))
#else
#define KEEP __attribute__((noinline, noipa))
#endif

static jmp_buf jb;
static ucontext_t main_ctx, co_ctx;
static char co_stack[64 << 10];
volatile long sink;

KEEP long fact(long n) { return n <= 1 ? 1 : n * fact(n - 1); }

KEEP int jumper(int x)
{
    if (x)
        longjmp(jb, x);
    return 0;
}

/* left by the longjmp: no value */
KEEP int over(int x)
{
    int r = jumper(x);
    sink += r;
    return r + 1;
}

KEEP int twice(int x) { return 2 * x; }

/* a tail call at -O2: its value is twice's */
KEEP int tail(int x) { return twice(x + 1); }

KEEP int in_handler(int x) { return x + 100; }

static void on_usr1(int s) { sink += in_handler(s); }

KEEP int raiser(int x)
{
    raise(SIGUSR1);
    return x * 3;
}

/* out of line through a pointer, and inlined into wrap at -O2, where
 * its hooks still name it but its values are elsewhere */
long scale(long x) { return x * 3 + 1; }
long (*volatile scale_ptr)(long) = scale;

KEEP long wrap(long x) { return x > 0 ? scale(x) : 0; }

static void *worker(void *arg)
{
    long t = (long)arg;
    for (int i = 0; i < 200; i++)
        t += fact(5) + twice(i);
    return (void *)t;
}

/* switches back to main from inside: returns once resumed */
KEEP int yielder(int x)
{
    swapcontext(&co_ctx, &main_ctx);
    return x + 1;
}

static void co_body(void) { sink += yielder(41); }

int main(void)
{
    signal(SIGUSR1, on_usr1);
    long sum = fact(10);
    if (!setjmp(jb))
        sum += over(7);
    sum += over(0) + tail(5) + raiser(2);
    sum += scale_ptr(5) + wrap(4);
    pthread_t th[4];
    for (long i = 0; i < 4; i++)
        pthread_create(&th[i], NULL, worker, (void *)i);
    for (int i = 0; i < 4; i++) {
        void *r;
        pthread_join(th[i], &r);
        sum += (long)r;
    }
    getcontext(&co_ctx);
    co_ctx.uc_stack.ss_sp = co_stack;
    co_ctx.uc_stack.ss_size = sizeof co_stack;
    co_ctx.uc_link = &main_ctx;
    makecontext(&co_ctx, co_body, 0);
    swapcontext(&main_ctx, &co_ctx);
    sum += fact(4);
    swapcontext(&main_ctx, &co_ctx);
    printf("%ld %ld\n", sum, sink);
    return 0;
}
