/*
 * The environment of a child the program starts (wrap_spawn.c), shared by
 * the exec wrappers (wrap.c) and the spawn ones.
 */
#ifndef CT_WRAP_SPAWN_H
#define CT_WRAP_SPAWN_H

#include <stddef.h>

#pragma GCC visibility push(hidden)

struct ct_child_env {
    size_t n;        /* entries of the environment given                    */
    size_t slots;    /* pointers the child's environment needs, NULL too   */
    size_t added;    /* CALLTRACE_* entries missing from it                 */
    size_t ld_len;   /* bytes of our LD_PRELOAD entry; 0: it needs none     */
    long ld_at;      /* index of the LD_PRELOAD entry it replaces, or -1    */
};

/* Whether envp (NULL: empty) lacks anything a traced child needs; fills
 * plan with the room the new environment takes. */
int ct_child_env_plan(char *const envp[], struct ct_child_env *plan);
/* Fills slots (plan->slots pointers) and ld (plan->ld_len bytes) with the
 * child's environment: envp's entries in their order, LD_PRELOAD extended
 * in place or added, then the missing CALLTRACE_* entries. */
char **ct_child_env_build(char *const envp[], const struct ct_child_env *plan,
                          char **slots, char *ld);

/* Replaces envp, a variable, by the child's environment, built in the
 * caller's frame (no malloc: the exec wrappers may run after vfork). */
#define CT_CHILD_ENV(envp)                                                 \
    struct ct_child_env plan_;                                             \
    int fix_ = ct_child_env_plan(envp, &plan_);                            \
    char *slots_[fix_ ? plan_.slots : 1];                                  \
    char ld_[fix_ && plan_.ld_len ? plan_.ld_len : 1];                     \
    if (fix_)                                                              \
        envp = ct_child_env_build(envp, &plan_, slots_, ld_)

#pragma GCC visibility pop

#endif
