/* The front end's test program.  work() runs a number of times known by
 * construction; then, by the first argument:
 *   exit N [K]  print "out" on stdout and "err" on stderr, call work() K
 *               times (default 10), exit N
 *   kill SIG    call work() 10 times, then raise signal SIG
 *   wait FILE   call work() 10 times, create FILE, sleep until a signal
 *   cat         copy stdin to stdout
 *   exec K      call work() K times, then exec itself as "exit 0 5"
 *   fork        call work() 3 times, fork; the child calls it 4 times and
 *               the parent waits */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "calltrace.h"

static volatile int sink;

__attribute__((noinline)) static void work(void) { sink++; }

static void repeat(int n)
{
    for (int i = 0; i < n; i++)
        work();
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "exit";
    if (!strcmp(mode, "exit")) {
        repeat(argc > 3 ? atoi(argv[3]) : 10);
        calltrace_event("done");
        puts("out");
        fputs("err\n", stderr);
        return argc > 2 ? atoi(argv[2]) : 0;
    }
    if (!strcmp(mode, "kill") && argc > 2) {
        repeat(10);
        fflush(stdout);
        raise(atoi(argv[2]));
        return 99;
    }
    if (!strcmp(mode, "wait") && argc > 2) {
        repeat(10);
        FILE *f = fopen(argv[2], "w");
        if (f)
            fclose(f);
        for (;;)
            pause();
    }
    if (!strcmp(mode, "cat")) {
        int c;
        while ((c = getchar()) != EOF)
            putchar(c);
        return 0;
    }
    if (!strcmp(mode, "exec") && argc > 2) {
        repeat(atoi(argv[2]));
        execl("/proc/self/exe", argv[0], "exit", "0", "5", (char *)NULL);
        return 98;
    }
    if (!strcmp(mode, "fork")) {
        repeat(3);
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0) {
            repeat(4);
            return 0;
        }
        int st;
        waitpid(pid, &st, 0);
        return WIFEXITED(st) ? WEXITSTATUS(st) : 97;
    }
    fprintf(stderr, "usage: %s exit|kill|wait|cat|exec|fork ...\n", argv[0]);
    return 2;
}
