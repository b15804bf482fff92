/* Starts spawn_child (argv[2]) in the way argv[1] names, with an
 * environment of its own: only KEEP and SPACED (and, for "partial",
 * CALLTRACE_OUTPUT=argv[3]), never LD_PRELOAD or the tracer's settings.
 * See tests/e2e/trace_children.sh. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

__attribute__((noinline)) static void parent_work(void) { fflush(stdout); }

static int wait_for(pid_t pid)
{
    int status;
    if (waitpid(pid, &status, 0) != pid)
        return 1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

/* clearenv, then only the two variables: what system and popen pass. */
static void scrub(void)
{
    clearenv();
    setenv("KEEP", "1", 1);
    setenv("SPACED", "a b 'c'", 1);
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    const char *how = argv[1], *child = argv[2];
    char *env[] = {"KEEP=1", "SPACED=a b 'c'", NULL, NULL};
    char out[4200];
    if (strcmp(how, "partial") == 0 && argc > 3) {
        snprintf(out, sizeof out, "CALLTRACE_OUTPUT=%s", argv[3]);
        env[2] = out;
    }
    char *args[] = {(char *)child, NULL};
    pid_t pid;
    parent_work();
    if (strcmp(how, "spawn") == 0) {
        if (posix_spawn(&pid, child, NULL, NULL, args, env))
            return 3;
        return wait_for(pid);
    }
    if (strcmp(how, "spawnp") == 0) {
        if (posix_spawnp(&pid, child, NULL, NULL, args, env))
            return 3;
        return wait_for(pid);
    }
    if (strcmp(how, "execve") == 0 || strcmp(how, "partial") == 0)
        execve(child, args, env);
    else if (strcmp(how, "execvpe") == 0)
        execvpe(child, args, env);
    else if (strcmp(how, "execle") == 0)
        execle(child, child, (char *)NULL, env);
    else if (strcmp(how, "fexecve") == 0)
        fexecve(open(child, O_RDONLY | O_CLOEXEC), args, env);
    else if (strcmp(how, "execv") == 0) {
        scrub();
        execv(child, args);
    } else if (strcmp(how, "vfork") == 0) {
        pid = vfork();
        if (pid == 0) {
            execve(child, args, env);
            _exit(127);
        }
        return wait_for(pid);
    } else if (strcmp(how, "system") == 0) {
        scrub();
        int rc = system(child);
        return WIFEXITED(rc) ? WEXITSTATUS(rc) : 1;
    } else if (strcmp(how, "popen") == 0) {
        scrub();
        FILE *f = popen(child, "r");
        if (!f)
            return 3;
        char line[4096];
        while (fgets(line, sizeof line, f))
            fputs(line, stdout);
        return pclose(f) == 0 ? 0 : 1;
    }
    return 4;  /* the exec failed, or an unknown way */
}
