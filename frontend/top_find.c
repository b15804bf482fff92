/*
 * calltrace top PID: the tracer keeps its file header mapped for the whole
 * run, so the trace is the shared mapping in /proc/PID/maps that starts
 * with the calltrace magic and names PID in its header.  And calltrace top
 * -- PROGRAM: start it traced, then find its trace that way.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "calltrace_format.h"
#include "frontend/frontend.h"
#include "frontend/top.h"

/* Whether path holds a trace whose header names pid. */
static bool trace_of(const char *path, pid_t pid)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    struct ct_file_header h;
    bool ok = read(fd, &h, sizeof h) == (ssize_t)sizeof h &&
              memcmp(h.magic, CT_FILE_MAGIC, CT_FILE_MAGIC_LEN) == 0 &&
              h.pid == (uint32_t)pid;
    close(fd);
    return ok;
}

char *top_find_trace(pid_t pid, bool quiet)
{
    char maps[64];
    snprintf(maps, sizeof maps, "/proc/%d/maps", (int)pid);
    FILE *f = fopen(maps, "re");
    if (!f) {
        if (!quiet)
            ct_fe_error("no process %d to watch (%m)", (int)pid);
        return NULL;
    }
    char line[4096 + 256];
    char *found = NULL;
    while (!found && fgets(line, sizeof line, f)) {
        /* address perms offset dev inode path */
        char perms[8];
        unsigned long long offset;
        int path_at = 0;
        if (sscanf(line, "%*s %7s %llx %*s %*s %n", perms, &offset,
                   &path_at) < 2 || !path_at || perms[3] != 's' ||
            offset != 0 || line[path_at] != '/')
            continue;
        line[strcspn(line, "\n")] = '\0';
        char *path = line + path_at;
        if (trace_of(path, pid))
            found = strdup(path);
    }
    fclose(f);
    if (!found && !quiet)
        ct_fe_error("process %d writes no calltrace trace (is it traced, "
                    "and its trace not yet closed?)", (int)pid);
    return found;
}

pid_t top_spawn(char **argv, bool quiet_output)
{
    char *lib = ct_fe_find_library();
    if (!lib)
        return -1;
    const char *prev = getenv("LD_PRELOAD");
    char *preload;
    if (asprintf(&preload, "%s%s%s", lib, prev && *prev ? ":" : "",
                 prev ? prev : "") < 0)
        exit(CT_FE_FAILED);
    free(lib);
    pid_t pid = fork();
    if (pid < 0) {
        ct_fe_error("cannot start %s: %m", argv[0]);
        free(preload);
        return -1;
    }
    if (pid == 0) {
        setenv("LD_PRELOAD", preload, 1);
        if (!getenv("CALLTRACE_OUTPUT"))
            setenv("CALLTRACE_OUTPUT", CT_FE_DEFAULT_TRACE, 1);
        signal(SIGINT, SIG_DFL);
        if (quiet_output) {
            /* The screen is top's: the program's output would tear it. */
            int null = open("/dev/null", O_RDWR);
            dup2(null, STDIN_FILENO);
            dup2(null, STDOUT_FILENO);
            dup2(null, STDERR_FILENO);
        }
        execvp(argv[0], argv);
        ct_fe_error("cannot run %s: %m", argv[0]);
        _exit(127);
    }
    free(preload);
    return pid;
}
