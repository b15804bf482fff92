/*
 * The environment the tracer started with, however early it starts.
 *
 * Code in .preinit_array runs before libc has set `environ`, so getenv
 * finds nothing there.  The kernel's copy of the environment is on the
 * initial stack, after argc and argv, and ld.so points __libc_stack_end at
 * argc before running any code of the program; when that does not look
 * right, /proc/self/environ is read with raw system calls.
 *
 * At start the CALLTRACE_* entries are copied here, so that children
 * started with an environment of their own (wrap_spawn.c) get the settings
 * this process started with, even after clearenv.  Also kept: this
 * library's path, to name in a child's LD_PRELOAD.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload/tracer.h"

extern char **environ;
extern void *__libc_stack_end;

#define PREFIX "CALLTRACE_"
#define STORE_BYTES 8192
#define MAX_ENTRIES 64

static char store[STORE_BYTES];
static size_t store_used;
static const char *entries[MAX_ENTRIES];
static size_t n_entries;
static char self_path[CT_PATH_MAX];
static char self_name[CT_PATH_MAX];

static void keep(const char *entry, size_t len)
{
    if (len < sizeof PREFIX - 1 || memcmp(entry, PREFIX, sizeof PREFIX - 1))
        return;
    /* Far more room than the settings need: nothing real is left out. */
    if (n_entries == MAX_ENTRIES || store_used + len + 1 > STORE_BYTES)
        return;
    char *dst = store + store_used;
    memcpy(dst, entry, len);
    dst[len] = '\0';
    store_used += len + 1;
    entries[n_entries++] = dst;
}

/* argc, argv..., NULL, envp..., NULL at __libc_stack_end: the environment,
 * or NULL when it does not look like that. */
static char **initial_envp(void)
{
    long *sp = __libc_stack_end;
    if (!sp)
        return NULL;
    long argc = sp[0];
    if (argc < 0 || argc > (1 << 20))
        return NULL;
    char **argv = (char **)(sp + 1);
    if (argv[argc] != NULL)
        return NULL;
    return argv + argc + 1;
}

static long raw(long nr, long a, long b, long c)
{
    return syscall(nr, a, b, c);
}

/* Reads /proc/self/environ in pieces, keeping the entries we want. */
static void read_proc_environ(void)
{
    long fd = raw(SYS_openat, AT_FDCWD, (long)"/proc/self/environ",
                  O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    char buf[4096];
    char entry[CT_PATH_MAX + 64];
    size_t have = 0;
    int overlong = 0;
    for (;;) {
        long n = raw(SYS_read, fd, (long)buf, sizeof buf);
        if (n <= 0)
            break;
        for (long i = 0; i < n; i++) {
            if (buf[i] == '\0') {
                if (!overlong)  /* no setting is that long */
                    keep(entry, have);
                have = 0;
                overlong = 0;
            } else if (have < sizeof entry) {
                entry[have++] = buf[i];
            } else {
                overlong = 1;
            }
        }
    }
    raw(SYS_close, fd, 0, 0);
}

static void find_self(void)
{
    Dl_info info;
    if (!dladdr((void *)ct_env_capture, &info) || !info.dli_fname)
        return;
    const char *name = info.dli_fname;
    size_t len = strlen(name);
    if (len >= sizeof self_name)
        return;
    memcpy(self_name, name, len + 1);
    /* A relative path would name another file in a child that changed
     * directory; a bare name is searched for again, as it was for us. */
    if (name[0] != '/' && strchr(name, '/')) {
        if (!getcwd(self_path, sizeof self_path))
            return;
        size_t cwd = strlen(self_path);
        if (cwd + 1 + len >= sizeof self_path) {
            self_path[0] = '\0';
            return;
        }
        self_path[cwd] = '/';
        memcpy(self_path + cwd + 1, name, len + 1);
    } else {
        memcpy(self_path, name, len + 1);
    }
}

void ct_env_capture(void)
{
    store_used = n_entries = 0;
    char **envp = environ ? environ : initial_envp();
    if (envp) {
        for (; *envp; envp++)
            keep(*envp, strlen(*envp));
    } else {
        read_proc_environ();
    }
    find_self();
}

const char *ct_env_get(const char *name)
{
    if (environ)
        return getenv(name);
    size_t len = strlen(name);
    for (size_t i = 0; i < n_entries; i++)
        if (strncmp(entries[i], name, len) == 0 && entries[i][len] == '=')
            return entries[i] + len + 1;
    return NULL;
}

size_t ct_env_count(void)
{
    return n_entries;
}

const char *ct_env_entry(size_t i)
{
    return i < n_entries ? entries[i] : NULL;
}

const char *ct_env_self_path(void)
{
    return self_path;
}

const char *ct_env_self_name(void)
{
    return self_name;
}
