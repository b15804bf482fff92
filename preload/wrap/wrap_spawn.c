/*
 * Children started with an environment of their own keep being traced:
 * posix_spawn, posix_spawnp and the exec family (wrap.c) get LD_PRELOAD
 * with this library and the CALLTRACE_* settings the process started with
 * added to the environment they pass, when missing; system and popen,
 * which always pass `environ`, get them exported at the head of the shell
 * command when `environ` lacks them (after clearenv, say).  No other
 * variable is touched, nothing already there is duplicated, and
 * CALLTRACE_FOLLOW=0 turns all of it off.
 *
 * The exec wrappers may run in a vfork child, which shares the parent's
 * memory: the new environment is built in the caller's stack frame, from
 * data captured at start (env.c), without malloc.
 */
#include <dlfcn.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "preload/tracer.h"
#include "preload/wrap/wrap_spawn.h"

extern char **environ;

#define LD_PRELOAD_EQ "LD_PRELOAD="

static size_t name_len(const char *entry)
{
    const char *eq = strchr(entry, '=');
    return eq ? (size_t)(eq - entry) : strlen(entry);
}

/* The index of the entry of envp named like `entry` ("NAME=..."), or -1. */
static long find_entry(char *const envp[], size_t n, const char *entry)
{
    size_t len = name_len(entry);
    for (size_t i = 0; i < n; i++)
        if (strncmp(envp[i], entry, len) == 0 && envp[i][len] == '=')
            return (long)i;
    return -1;
}

/* Whether a LD_PRELOAD value (names split by ':' or ' ') names us. */
static int preloads_us(const char *value)
{
    const char *path = ct_env_self_path(), *name = ct_env_self_name();
    while (*value) {
        size_t len = strcspn(value, ": ");
        if ((len == strlen(path) && strncmp(value, path, len) == 0) ||
            (len == strlen(name) && strncmp(value, name, len) == 0))
            return 1;
        value += len;
        value += *value != '\0';
    }
    return 0;
}

int ct_child_env_plan(char *const envp[], struct ct_child_env *plan)
{
    memset(plan, 0, sizeof *plan);
    plan->ld_at = -1;
    if (ct_proc.started != 2 || !ct_proc.cfg.follow)
        return 0;
    size_t n = 0;
    while (envp && envp[n])
        n++;
    plan->n = n;
    const char *self = ct_env_self_path();
    if (*self) {
        long at = find_entry(envp, n, LD_PRELOAD_EQ);
        const char *old = at >= 0 ? envp[at] + sizeof LD_PRELOAD_EQ - 1 : NULL;
        if (!old || !preloads_us(old)) {
            plan->ld_at = at;
            plan->ld_len = sizeof LD_PRELOAD_EQ + strlen(self) +
                           (old && *old ? strlen(old) + 1 : 0);
        }
    }
    for (size_t i = 0; i < ct_env_count(); i++)
        if (find_entry(envp, n, ct_env_entry(i)) < 0)
            plan->added++;
    if (!plan->ld_len && !plan->added)
        return 0;
    plan->slots = n + plan->added + (plan->ld_len && plan->ld_at < 0) + 1;
    return 1;
}

char **ct_child_env_build(char *const envp[], const struct ct_child_env *plan,
                          char **slots, char *ld)
{
    size_t k = 0;
    for (; k < plan->n; k++)
        slots[k] = envp[k];
    if (plan->ld_len) {
        const char *old =
            plan->ld_at >= 0 ? envp[plan->ld_at] + sizeof LD_PRELOAD_EQ - 1 : "";
        snprintf(ld, plan->ld_len, "%s%s%s%s", LD_PRELOAD_EQ, old,
                 *old ? ":" : "", ct_env_self_path());
        if (plan->ld_at >= 0)
            slots[plan->ld_at] = ld;
        else
            slots[k++] = ld;
    }
    for (size_t i = 0; i < ct_env_count(); i++)
        if (find_entry(envp, plan->n, ct_env_entry(i)) < 0)
            slots[k++] = (char *)ct_env_entry(i);
    slots[k] = NULL;
    return slots;
}

typedef int (*spawn_fn)(pid_t *, const char *, const posix_spawn_file_actions_t *,
                        const posix_spawnattr_t *, char *const[], char *const[]);
typedef int (*system_fn)(const char *);
typedef FILE *(*popen_fn)(const char *, const char *);

CT_API int posix_spawn(pid_t *pid, const char *path,
                       const posix_spawn_file_actions_t *actions,
                       const posix_spawnattr_t *attr, char *const argv[],
                       char *const envp[]);
CT_API int posix_spawnp(pid_t *pid, const char *file,
                        const posix_spawn_file_actions_t *actions,
                        const posix_spawnattr_t *attr, char *const argv[],
                        char *const envp[]);
CT_API int system(const char *command);
CT_API FILE *popen(const char *command, const char *type);

static int spawn(const char *name, pid_t *pid, const char *path,
                 const posix_spawn_file_actions_t *actions,
                 const posix_spawnattr_t *attr, char *const argv[],
                 char *const envp[])
{
    spawn_fn next = (spawn_fn)dlsym(RTLD_NEXT, name);
    CT_CHILD_ENV(envp);
    return next(pid, path, actions, attr, argv, envp);
}

CT_API int posix_spawn(pid_t *pid, const char *path,
                       const posix_spawn_file_actions_t *actions,
                       const posix_spawnattr_t *attr, char *const argv[],
                       char *const envp[])
{
    return spawn("posix_spawn", pid, path, actions, attr, argv, envp);
}

CT_API int posix_spawnp(pid_t *pid, const char *file,
                        const posix_spawn_file_actions_t *actions,
                        const posix_spawnattr_t *attr, char *const argv[],
                        char *const envp[])
{
    return spawn("posix_spawnp", pid, file, actions, attr, argv, envp);
}

/* Appends s to the command being built (cap counted by the caller). */
static char *put(char *p, const char *s, size_t len)
{
    memcpy(p, s, len);
    return p + len;
}

/* `export NAME='value'; ` for one entry, quotes inside the value escaped
 * as '\''.  Returns the end, or with dst NULL only counts. */
static size_t export_entry(char *dst, const char *entry)
{
    size_t name = name_len(entry), n = 0;
    const char *v = entry[name] ? entry + name + 1 : "";
    char tmp[8];
    char *p = dst ? dst : tmp;
#define PUT(s, len) (n += (len), dst ? (void)(p = put(p, s, len)) : (void)0)
    PUT("export ", 7);
    PUT(entry, name);
    PUT("='", 2);
    for (; *v; v++) {
        if (*v == '\'')
            PUT("'\\''", 4);
        else
            PUT(v, 1);
    }
    PUT("'; ", 3);
#undef PUT
    return n;
}

/*
 * The shell command with the missing entries exported first, in memory
 * from malloc (system and popen are not for a vfork child); NULL when the
 * command needs nothing or there is no memory, and it then runs as given.
 */
/* A name the shell takes in `export NAME=`. */
static int shell_name(const char *entry)
{
    size_t len = name_len(entry);
    for (size_t i = 0; i < len; i++) {
        char c = entry[i];
        if (!(c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
              (i > 0 && c >= '0' && c <= '9')))
            return 0;
    }
    return len > 0;
}

/* An entry the shell must export: added or changed, with a usable name. */
static int to_export(const struct ct_child_env *plan, char **env, size_t i)
{
    return (i >= plan->n || (long)i == plan->ld_at) && shell_name(env[i]);
}

static char *command_with_env(const char *command)
{
    struct ct_child_env plan;
    if (!command || !ct_child_env_plan(environ, &plan))
        return NULL;
    char *slots[plan.slots];
    char ld[plan.ld_len ? plan.ld_len : 1];
    char **env = ct_child_env_build(environ, &plan, slots, ld);
    size_t len = strlen(command) + 1;
    for (size_t i = 0; env[i]; i++)
        if (to_export(&plan, env, i))
            len += export_entry(NULL, env[i]);
    char *cmd = malloc(len);
    if (!cmd)
        return NULL;
    char *p = cmd;
    for (size_t i = 0; env[i]; i++)
        if (to_export(&plan, env, i))
            p += export_entry(p, env[i]);
    memcpy(p, command, strlen(command) + 1);
    return cmd;
}

CT_API int system(const char *command)
{
    system_fn next = (system_fn)dlsym(RTLD_NEXT, "system");
    char *cmd = command_with_env(command);
    int rc = next(cmd ? cmd : command);
    free(cmd);
    return rc;
}

CT_API FILE *popen(const char *command, const char *type)
{
    popen_fn next = (popen_fn)dlsym(RTLD_NEXT, "popen");
    char *cmd = command_with_env(command);
    FILE *f = next(cmd ? cmd : command, type);
    free(cmd);
    return f;
}
