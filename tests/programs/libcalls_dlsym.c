/* Calls through pointers dlsym and dlvsym returned, known by construction
 * (tests/e2e/libcalls_dlsym.sh):
 *   by_handle():  getpid 5 times through dlsym(libc handle)
 *   by_default(): getpid 3 times through dlsym(RTLD_DEFAULT)
 *   by_version(): getpid 2 times through dlvsym(libc handle, GLIBC_2.2.5)
 *   by_next():    getppid 4 times through dlsym(RTLD_NEXT): not recorded
 *                 (RTLD_NEXT is found relative to the caller, so the
 *                 tracer leaves that lookup to dlsym)
 *   data():       dlsym of a variable (environ) is the variable itself
 *   own():        a function of the program itself, called through
 *                 dlsym(RTLD_DEFAULT): a call of an instrumented function,
 *                 recorded by its hooks alone
 * Output: one line, the same with and without the tracer (every lookup
 * of getpid gives the same pointer). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <unistd.h>

extern char **environ;
typedef pid_t (*pid_fn)(void);

static int call_n(pid_fn f, int n)
{
    int ok = 0;
    for (int i = 0; i < n; i++)
        ok += f() > 0;
    return ok;
}

static pid_fn by_handle(void *libc)
{
    pid_fn f = (pid_fn)dlsym(libc, "getpid");
    return f && call_n(f, 5) == 5 ? f : NULL;
}

static pid_fn by_default(void)
{
    pid_fn f = (pid_fn)dlsym(RTLD_DEFAULT, "getpid");
    return f && call_n(f, 3) == 3 ? f : NULL;
}

static pid_fn by_version(void *libc)
{
    pid_fn f = (pid_fn)dlvsym(libc, "getpid", "GLIBC_2.2.5");
    return f && call_n(f, 2) == 2 ? f : NULL;
}

static int by_next(void)
{
    pid_fn f = (pid_fn)dlsym(RTLD_NEXT, "getppid");
    return f && call_n(f, 4) == 4;
}

static int data(void)
{
    return dlsym(RTLD_DEFAULT, "environ") == (void *)&environ;
}

int own_function(void);
int own_function(void)
{
    return 7;
}

static int own(void)
{
    int (*f)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "own_function");
    return f == own_function && f() == 7;
}

int main(void)
{
    void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
    if (!libc)
        return 1;
    pid_fn a = by_handle(libc), b = by_default(), c = by_version(libc);
    int next = by_next(), d = data(), o = own();
    printf("same=%d next=%d data=%d own=%d\n", a && a == b && b == c, next,
           d, o);
    return 0;
}
