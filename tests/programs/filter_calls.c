/*
 * Calls whose counts are known by construction, for the record-time
 * filter tests (tests/e2e/trace_filter*.sh):
 *   main 1, run_parse 1, parse 10, lex_token 30, leaf 30, helper 5,
 *   slow_fn 2 (3 ms each), fast_fn 100, deep 8 (nested 8 levels),
 *   handle_request 3 (each calls leaf once), after_stop 2.
 * With an argument PATH it also dlopens PATH and calls plugin_work there.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <time.h>

#define NOINLINE __attribute__((noinline))

volatile int sink;

NOINLINE void leaf(void) { sink++; }
NOINLINE void lex_token(void) { leaf(); }
NOINLINE void parse(void)
{
    for (int i = 0; i < 3; i++)
        lex_token();
}
NOINLINE void run_parse(void)
{
    for (int i = 0; i < 10; i++)
        parse();
}
NOINLINE void helper(void) { sink += 2; }
NOINLINE void slow_fn(void)
{
    struct timespec ts = {0, 3000000};
    nanosleep(&ts, NULL);
}
NOINLINE void fast_fn(void) { sink += 3; }
NOINLINE void deep(int n)
{
    if (n > 1)
        deep(n - 1);
    sink++;
}
NOINLINE void handle_request(void) { leaf(); }
NOINLINE void stop_here(void) { sink++; }
NOINLINE void after_stop(void) { sink++; }

int main(int argc, char **argv)
{
    run_parse();
    for (int i = 0; i < 5; i++)
        helper();
    for (int i = 0; i < 2; i++)
        slow_fn();
    for (int i = 0; i < 100; i++)
        fast_fn();
    deep(8);
    for (int i = 0; i < 3; i++)
        handle_request();
    if (argc > 1) {
        void *h = dlopen(argv[1], RTLD_NOW);
        void (*work)(void) = h ? (void (*)(void))dlsym(h, "plugin_work") : 0;
        if (!work) {
            fprintf(stderr, "no plugin: %s\n", dlerror());
            return 1;
        }
        work();
        work();
    }
    for (int i = 0; i < 2; i++)
        after_stop();
    printf("done %d\n", sink);
    return 0;
}
