/*
 * calltrace control PID on|off|snapshot|status|filter SPEC|patch SPEC: one command to
 * a running traced process through its control socket (CALLTRACE_CONTROL,
 * preload/control/control_socket.c), and its answer.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "frontend/frontend.h"

static void usage(void)
{
    puts("Usage: calltrace control PID COMMAND\n"
         "Send COMMAND to process PID, traced with CALLTRACE_CONTROL=1, and\n"
         "print its answer.\n"
         "\n"
         "Commands:\n"
         "  on            switch tracing on (as calltrace_enable())\n"
         "  off           switch tracing off\n"
         "  snapshot      copy the trace as it is now to TRACE.snapN\n"
         "                (a flight recorder's ring: its newest blocks)\n"
         "  status        pid, tracing on or off, flight recorder, threads,\n"
         "                lost events, trace file\n"
         "  filter SPEC   replace the function filter (CALLTRACE_FILTER syntax)\n"
         "  patch SPEC    patch (+GLOB) or unpatch (-GLOB) the entries of the\n"
         "                functions named, in a program built with calltrace\n"
         "                cflags --patchable (items comma-separated, in order)\n"
         "\n"
         "Only the process's user (and root) is admitted.  Exit status: 0 done,\n"
         "1 bad usage, 2 refused or not reachable.");
}

/* A path in calltrace record's staging folder is gone once the run ends:
 * the answer names where the file will be then (the staging folder's note
 * names the output; one trace becomes the output itself, several a folder
 * of them), and where it is until then. */
static void print_answer(const char *ans)
{
    const char *mark = strstr(ans, "/.calltrace-record-");
    const char *slash = mark ? strchr(mark + 1, '/') : NULL;
    if (!slash) {
        puts(ans);
        return;
    }
    const char *start = mark;
    while (start > ans && start[-1] != ' ' && start[-1] != '=')
        start--;
    size_t len = strcspn(start, " ");
    char *staging = strndup(start, (size_t)(slash - start));
    char *name = strndup(slash + 1, len - (size_t)(slash + 1 - start));
    char *output = staging && name ? ct_fe_stage_output(staging) : NULL;
    if (!output) {
        puts(ans);
    } else {
        const char *snap = strstr(name, ".snap");
        bool single = ct_fe_count_traces(staging) <= 1;
        printf("%.*s%s%s%s (until the run ends: %.*s)%s\n",
               (int)(start - ans), ans, output, single ? "" : "/",
               single ? (snap ? snap : "") : name, (int)len, start,
               start + len);
    }
    free(staging), free(name), free(output);
}

static int valid_pid(const char *s, unsigned *pid)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (!*s || *end || errno || v == 0 || v > 0x7fffffff || *s == '-')
        return 0;
    *pid = (unsigned)v;
    return 1;
}

int ct_fe_control(int argc, char **argv)
{
    if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
        usage();
        return 0;
    }
    if (argc > 1 && (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version")))
        ct_fe_version();
    unsigned pid;
    if (argc < 3)
        ct_fe_usage_error("control", "expected a PID and a command");
    if (!valid_pid(argv[1], &pid))
        ct_fe_usage_error("control", "'%s' is not a process id", argv[1]);
    char cmd[4096];
    size_t n = 0;
    for (int i = 2; i < argc; i++) {
        int w = snprintf(cmd + n, sizeof cmd - n, "%s%s", i > 2 ? " " : "",
                         argv[i]);
        if (w < 0 || (size_t)w >= sizeof cmd - n - 1)
            ct_fe_usage_error("control", "command longer than %zu bytes",
                              sizeof cmd - 2);
        n += (size_t)w;
    }
    if (strchr(cmd, '\n'))
        ct_fe_usage_error("control", "a command is one line");
    cmd[n++] = '\n';

    /* The socket is in its owner's folder (as preload/control/control_socket.c
     * names it). */
    char proc[32];
    struct stat st;
    snprintf(proc, sizeof proc, "/proc/%u", pid);
    if (stat(proc, &st) != 0) {
        ct_fe_error("control %u: no such process", pid);
        return CT_FE_FAILED;
    }
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    snprintf(a.sun_path, sizeof a.sun_path, "/tmp/calltrace-%u/%u.ctl",
             (unsigned)st.st_uid, pid);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        int err = errno;
        if (err == EACCES || err == EPERM)
            ct_fe_error("control %u: permission denied: the process belongs "
                        "to another user", pid);
        else if (err == ENOENT || err == ECONNREFUSED)
            ct_fe_error("control %u: no control channel at %s (is it traced "
                        "with CALLTRACE_CONTROL=1?)", pid, a.sun_path);
        else
            ct_fe_error("control %u: %s: %s", pid, a.sun_path, strerror(err));
        return CT_FE_FAILED;
    }
    if (send(fd, cmd, n, MSG_NOSIGNAL) != (ssize_t)n) {
        ct_fe_error("control %u: cannot send: %s", pid, strerror(errno));
        close(fd);
        return CT_FE_FAILED;
    }
    char ans[8192];
    size_t have = 0;
    ssize_t r;
    while (have < sizeof ans - 1 &&
           (r = read(fd, ans + have, sizeof ans - 1 - have)) > 0)
        have += (size_t)r;
    close(fd);
    ans[have] = '\0';
    char *nl = strchr(ans, '\n');
    if (nl)
        *nl = '\0';
    if (strncmp(ans, "ok", 2) == 0 && (ans[2] == ' ' || !ans[2])) {
        print_answer(ans[2] ? ans + 3 : "");
        return 0;
    }
    if (strncmp(ans, "error ", 6) == 0)
        ct_fe_error("control %u: %s", pid, ans + 6);
    else
        ct_fe_error("control %u: no answer from the process", pid);
    return CT_FE_FAILED;
}
