/* Driven line by line on stdin, for `calltrace control` tests: "K N" calls
 * phase_K N times (K in a..d) and answers "done K"; "exit" returns.  Which
 * phases a trace holds depends only on when tracing was switched. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static volatile int sink;

__attribute__((noinline)) void phase_a(void) { sink++; }
__attribute__((noinline)) void phase_b(void) { sink++; }
__attribute__((noinline)) void phase_c(void) { sink++; }
__attribute__((noinline)) void phase_d(void) { sink++; }

int main(void)
{
    void (*const fn[])(void) = {phase_a, phase_b, phase_c, phase_d};
    char line[64];
    setvbuf(stdout, NULL, _IOLBF, 0);
    printf("ready\n");
    while (fgets(line, sizeof line, stdin) && strncmp(line, "exit", 4)) {
        char k;
        long n;
        if (sscanf(line, "%c %ld", &k, &n) != 2 || k < 'a' || k > 'd')
            continue;
        for (long i = 0; i < n; i++)
            fn[k - 'a']();
        printf("done %c\n", k);
    }
    return 0;
}
