/* What the program sees of its own signal dispositions: the same with and
 * without the tracer, for every signal the tracer may hold.
 *   trace_sigview view    sets, queries and restores dispositions of each
 *                         signal with every libc interface, prints them
 *   trace_sigview chain   its SIGSEGV handler repairs 5 faults, then one
 *                         SIGSEGV handler of SA_RESETHAND lets the 6th kill
 *   trace_sigview ignore  SIGSEGV and SIGBUS ignored (SA_SIGINFO set
 *                         too), then raised: the program goes on */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
/* Not declared for _GNU_SOURCE, still in libc. */
extern __sighandler_t bsd_signal(int, __sighandler_t);

static volatile long sink;
__attribute__((noinline)) void work(int i) { sink += i; }

static void h1(int sig) { (void)sig; }
static void h2(int sig, siginfo_t *si, void *ctx) { (void)sig; (void)si; (void)ctx; }

static const char *name(void (*h)(int))
{
    if (h == SIG_DFL) return "DFL";
    if (h == SIG_IGN) return "IGN";
    if (h == SIG_HOLD) return "HOLD";
    if (h == SIG_ERR) return "ERR";
    if (h == h1) return "h1";
    if (h == (void (*)(int))h2) return "h2";
    return "other";
}

static void show(const char *what, int sig)
{
    struct sigaction sa;
    if (sigaction(sig, NULL, &sa) != 0) {
        printf("%s %d: query failed\n", what, sig);
        return;
    }
    printf("%s %d: %s flags %#x restorer %s mask", what, sig,
           name(sa.sa_handler), (unsigned)sa.sa_flags,
           sa.sa_restorer ? "set" : "none");
    for (int s = 1; s < 65; s++)
        if (sigismember(&sa.sa_mask, s))
            printf(" %d", s);
    printf("\n");
}

static void view(int sig)
{
    struct sigaction sa, old, first;
    show("start", sig);
    sigaction(sig, NULL, &first);
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = h2;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_RESETHAND | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGTERM);
    sigaddset(&sa.sa_mask, SIGKILL);
    sigaction(sig, &sa, &old);
    printf("sigaction old %s\n", name(old.sa_handler));
    show("sigaction", sig);
    printf("signal old %s\n", name(signal(sig, h1)));
    show("signal", sig);
    printf("siginterrupt %d\n", siginterrupt(sig, 1));
    show("siginterrupt", sig);
    printf("sysv_signal old %s\n", name(sysv_signal(sig, SIG_IGN)));
    show("sysv_signal", sig);
    printf("bsd_signal old %s\n", name(bsd_signal(sig, h1)));
    show("bsd_signal", sig);
    printf("sigset hold %s\n", name(sigset(sig, SIG_HOLD)));
    printf("sigset old %s\n", name(sigset(sig, SIG_DFL)));
    show("sigset", sig);
    printf("sigignore %d\n", sigignore(sig));
    show("sigignore", sig);
    sigaction(sig, &first, &old);
    printf("restored, old %s\n", name(old.sa_handler));
    show("restored", sig);
}

static sigjmp_buf again;
static int repaired;
static char *page;

static void on_segv(int sig, siginfo_t *si, void *ctx)
{
    (void)sig; (void)ctx;
    if ((char *)si->si_addr < page || (char *)si->si_addr >= page + 4096)
        _exit(3);
    repaired++;
    mprotect(page, 4096, PROT_READ | PROT_WRITE);
}

static void last_segv(int sig)
{
    (void)sig;
    printf("last handler ran, repaired %d\n", repaired);
    fflush(stdout);
}

static int chain(void)
{
    page = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, NULL);
    for (int i = 0; i < 5; i++) {
        work(i);
        mprotect(page, 4096, PROT_READ);
        page[i] = (char)i;  /* faults; the handler opens the page */
    }
    printf("repaired %d\n", repaired);
    (void)again;
    sa.sa_handler = last_segv;
    sa.sa_flags = SA_RESETHAND;
    sigaction(SIGSEGV, &sa, NULL);
    mprotect(page, 4096, PROT_READ);
    fflush(stdout);
    page[0] = 1;  /* the handler runs once, then the default action */
    printf("not reached\n");
    return 0;
}

static int ignore(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_IGN;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);
    work(1);
    raise(SIGSEGV);
    raise(SIGBUS);
    work(2);
    printf("ignored\n");
    return 0;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc > 1 && strcmp(argv[1], "ignore") == 0)
        return ignore();
    if (argc > 1 && strcmp(argv[1], "chain") == 0)
        return chain();
    static const int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT,
                               SIGPROF, SIGUSR1, SIGUSR2};
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) {
        work((int)i);
        view(sigs[i]);
    }
    return 0;
}
