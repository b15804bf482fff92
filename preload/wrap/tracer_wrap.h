/*
 * What the tracer's wrappers stand in front of: the next definition of a
 * wrapped name (next.c), the file a dlopen would find by the caller's
 * search path (runpath.c), and glibc's clone past its wrapper
 * (wrap_clone.c).
 *
 * One part of tracer.h, the tracer's internal interface: the files of
 * the tracer include tracer.h, which includes every part; a part compiles
 * alone too, with the parts it needs.
 */
#ifndef CT_TRACER_WRAP_H
#define CT_TRACER_WRAP_H

#include "preload/tracer_base.h"

#pragma GCC visibility push(hidden)

/* The definition of name that a wrapper of the tracer's stands in front
 * of: RTLD_NEXT's, else the first loaded object's that is not the tracer
 * (a library dlopened RTLD_LOCAL), else NULL (next.c). */
void *ct_next_definition(const char *name);

/* The file the loader would open for dlopen(name) called from caller,
 * where that depends on the caller's DT_RUNPATH or DT_RPATH: a path to
 * give back with ct_runpath_free (NULL is fine).  NULL when name is a path,
 * is already loaded (as loaded(name, arg) tells), or the caller's own
 * search path does not hold it.  errno is kept by both (runpath.c). */
char *ct_runpath_resolve(const void *caller, const char *name,
                         int (*loaded)(const char *name, void *arg),
                         void *arg);
void ct_runpath_free(char *path);
/* One entry (len bytes) of a search path, $ORIGIN and ${ORIGIN} expanded,
 * "/name" appended, into out: 0, or -1 for an entry with another token
 * ($LIB, $PLATFORM), $ORIGIN unknown (origin ""), or no room. */
int ct_runpath_entry(const char *entry, size_t len, const char *origin,
                     const char *name, char *out, size_t cap);

/* clone() without CLONE_VM (wrap_clone.c): the fork handlers' work around
 * it, the child's run on the child's new stack. */
/* glibc's clone itself, past the wrapper: for the tracer's own processes. */
int ct_clone_real(int (*fn)(void *), void *stack, int flags, void *arg,
                  pid_t *ptid, void *tls, pid_t *ctid);
void ct_clone_prepare(void);
void ct_clone_parent(void);
void ct_clone_child(void);

#pragma GCC visibility pop

#endif /* CT_TRACER_WRAP_H */
